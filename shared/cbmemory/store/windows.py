"""What ``MemoryStore.neighbours`` reads, written once: the anchors' windows of positions. Pure; no storage.

An anchor is a ``(session_id, kind, position)`` place in a user's memory; its window with radius r is the
records of that session and kind at positions ``position - r`` to ``position + r`` (its own included).
:func:`windows` checks the anchors and merges their windows, so each backend reads each record at most
once, by position, whatever the length of the session; :func:`in_windows` says which records a window holds
(the meaning every backend's read must have, and what a store double can filter a listing with).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..models import MemoryRecord

Anchor = tuple[str, str, int]  # (session_id, kind, position)


@dataclass(frozen=True, slots=True, order=True)
class Window:
    """The positions ``lo`` to ``hi`` (both included) of one session and kind."""

    session_id: str
    kind: str
    lo: int
    hi: int


def _checked(anchor: object) -> Anchor:
    if not isinstance(anchor, tuple) or len(anchor) != 3:
        raise InvalidInputError(f"an anchor is a (session_id, kind, position) tuple, got {anchor!r}")
    session_id, kind, position = anchor
    if not isinstance(session_id, str) or not isinstance(kind, str):
        raise InvalidInputError(f"an anchor's session id and kind are strings, got {anchor!r}")
    if isinstance(position, bool) or not isinstance(position, int):
        raise InvalidInputError(f"an anchor's position is an integer, got {anchor!r}")
    return session_id, kind, position


def windows(anchors: Iterable[object], radius: object) -> list[Window]:
    """The anchors' windows of ``radius`` positions each side, merged where they overlap or touch, sorted.
    ``InvalidInputError`` for a radius that is no integer of at least 0, or an anchor that is no
    ``(str, str, int)`` tuple."""
    if isinstance(radius, bool) or not isinstance(radius, int) or radius < 0:
        raise InvalidInputError(f"radius must be a non-negative integer, got {radius!r}")
    spans = sorted((s, k, p - radius, p + radius) for s, k, p in map(_checked, anchors))
    runs: list[tuple[str, str, int, int]] = []  # merged as tuples: a Window is made once per run
    for session_id, kind, lo, hi in spans:
        if runs and runs[-1][:2] == (session_id, kind) and lo <= runs[-1][3] + 1:
            runs[-1] = (session_id, kind, runs[-1][2], max(runs[-1][3], hi))
        else:
            runs.append((session_id, kind, lo, hi))
    return [Window(*run) for run in runs]


def in_windows(record: MemoryRecord, merged: Sequence[Window]) -> bool:
    """Whether ``record`` lies in one of the windows."""
    return any(w.session_id == record.session_id and w.kind == record.kind and w.lo <= record.position <= w.hi
               for w in merged)


__all__ = ["Anchor", "Window", "in_windows", "windows"]
