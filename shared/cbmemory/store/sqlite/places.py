"""Where each of a user's in-memory records sits: its session, kind and position, indexed so that the
records of a window (``windows.Window``: positions ``lo`` to ``hi`` of one session and kind) are found by two
binary searches, whatever the window's radius or the session's length.

Built from a user's columns on the first window read (``cache.UserColumns.places``) and kept up to
date on appends: each (session, kind) keeps its positions and column indices, sorted again only when it
has grown since its last read. A session may hold several records at one position (a turn's events).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import numpy as np

from ..windows import Window


class _Group:
    __slots__ = ("cols", "positions", "sorted")

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.cols: list[int] = []
        self.sorted: tuple[list[int], list[int]] | None = None

    def lists(self) -> tuple[list[int], list[int]]:
        """Positions and column indices in (position, column) order: Python lists, as a window reads a few
        items of a session of tens (a binary search of a list of 20 takes 0.1 us, numpy's call 1.5 us)."""
        if self.sorted is None:
            pairs = sorted(zip(self.positions, self.cols, strict=True))
            self.sorted = [p for p, _ in pairs], [c for _, c in pairs]
        return self.sorted


class Places:
    """The column indices of a user's records by (session, kind), in position order."""

    def __init__(self) -> None:
        self._groups: dict[tuple[str, str], _Group] = {}
        self.n = 0  # column rows indexed

    def add(self, sessions: Sequence[str], kinds: Sequence[str], positions: Sequence[int]) -> None:
        """The next rows of the columns (from row ``n`` on)."""
        for i, (session, kind, position) in enumerate(zip(sessions, kinds, positions, strict=True), self.n):
            group = self._groups.get((session, kind))
            if group is None:
                group = self._groups[(session, kind)] = _Group()
            group.positions.append(int(position))
            group.cols.append(i)
            group.sorted = None
        self.n += len(sessions)

    def within(self, merged: Sequence[Window]) -> np.ndarray:
        """The column indices of the records inside ``merged`` (a record is in at most one window)."""
        out: list[int] = []
        for w in merged:
            group = self._groups.get((w.session_id, w.kind))
            if group is None:
                continue
            positions, cols = group.lists()
            out += cols[bisect_left(positions, w.lo):bisect_right(positions, w.hi)]
        return np.array(out, dtype=np.int64)


__all__ = ["Places"]
