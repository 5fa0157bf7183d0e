"""Where each of a user's in-memory records sits: its session, kind and position, indexed so that the
records of a window (``windows.Window``: positions ``lo`` to ``hi`` of one session and kind) are found by two
binary searches, whatever the window's radius or the session's length.

Built from a user's columns on the first window read (``cache.UserColumns.places``) and kept up to
date on appends: each (session, kind) keeps its positions and column indices, sorted again only when it
has grown since its last read. A session may hold several records at one position (a turn's events).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..windows import Window


class _Group:
    __slots__ = ("cols", "positions", "sorted")

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.cols: list[int] = []
        self.sorted: tuple[np.ndarray, np.ndarray] | None = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self.sorted is None:
            positions = np.array(self.positions, dtype=np.int64)
            cols = np.array(self.cols, dtype=np.int64)
            order = np.lexsort((cols, positions))
            self.sorted = positions[order], cols[order]
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
        out = []
        for w in merged:
            group = self._groups.get((w.session_id, w.kind))
            if group is None:
                continue
            positions, cols = group.arrays()
            lo = np.searchsorted(positions, w.lo, side="left")
            hi = np.searchsorted(positions, w.hi, side="right")
            out.append(cols[lo:hi])
        return np.concatenate(out) if out else np.empty(0, np.int64)


__all__ = ["Places"]
