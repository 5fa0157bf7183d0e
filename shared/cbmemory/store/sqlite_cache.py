"""What the embedded store keeps in memory per user: vectors, filter columns and the full-text index.

Each user's columns are loaded on first use and kept in sync with the file through two numbers of the
user's row (``write_seq``, ``delete_seq``), taken from one counter of the whole file, so they never repeat:
a new write appends the new rows, a deletion (or a forgotten user written again) reloads them.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from ..models import MemoryRecord
from .lexical import LexicalIndex

# Columns of ``records`` read into memory, in this order (the last one is the record's term ids).
LOAD_COLUMNS = "rowid, vector, occurred_at, ingested_at, expires_at, session_id, kind, terms"


@dataclass
class UserColumns:
    """One user's vectors, the columns search filters need and the full-text index, grown on appends."""

    write_seq: int
    delete_seq: int
    n: int
    rowids: np.ndarray
    vectors: np.ndarray
    occurred: np.ndarray
    ingested: np.ndarray
    expires: np.ndarray
    sessions: np.ndarray
    kinds: np.ndarray
    lexical: LexicalIndex = field(default_factory=LexicalIndex)
    # records already read, by rowid: valid as long as these columns are (a row never changes under its
    # rowid; replacing or deleting one changes delete_seq, which reloads the columns and so empties this)
    records: dict[int, MemoryRecord] = field(default_factory=dict)

    @property
    def max_rowid(self) -> int:
        return int(self.rowids[self.n - 1]) if self.n else 0

    def reserve(self, cap: int, dim: int) -> None:
        """Room for ``cap`` rows (moves the columns once)."""
        if cap > len(self.rowids):
            for name in ("rowids", "occurred", "ingested", "expires", "sessions", "kinds"):
                old = getattr(self, name)
                new = np.empty(cap, dtype=old.dtype)
                new[: self.n] = old[: self.n]
                setattr(self, name, new)
            vecs = np.empty((cap, dim), dtype=np.float32)
            vecs[: self.n] = self.vectors[: self.n]
            self.vectors = vecs

    def append(self, rows: list[tuple], dim: int) -> None:
        """Rows of ``LOAD_COLUMNS``, in rowid order."""
        m = len(rows)
        if self.n + m > len(self.rowids):
            self.reserve(max(2 * len(self.rowids), self.n + m, 64), dim)
        s = slice(self.n, self.n + m)
        cols = list(zip(*rows, strict=True))
        self.rowids[s] = cols[0]
        self.vectors[s] = np.frombuffer(b"".join(cols[1]), dtype=np.float32).reshape(m, dim)
        self.occurred[s] = cols[2]
        self.ingested[s] = cols[3]
        self.expires[s] = [np.inf if e is None else e for e in cols[4]]
        self.sessions[s] = cols[5]
        self.kinds[s] = cols[6]
        self.lexical.append(cols[7])
        self.n += m

    @classmethod
    def empty(cls, write_seq: int, delete_seq: int, dim: int) -> UserColumns:
        return cls(write_seq, delete_seq, 0, np.empty(0, np.int64), np.empty((0, dim), np.float32),
                   np.empty(0), np.empty(0), np.empty(0), np.empty(0, object), np.empty(0, object))


class UserCache:
    """Users' columns, least recently searched dropped first once they hold more than ``max_rows``."""

    def __init__(self, max_rows: int):
        self.max_rows = max_rows
        self._users: OrderedDict[str, UserColumns] = OrderedDict()
        self._rows: dict[str, int] = {}  # rows of each user as counted when put
        self._total = 0

    def get(self, user_id: str) -> UserColumns | None:
        cols = self._users.get(user_id)
        if cols is not None:
            self._users.move_to_end(user_id)
        return cols

    def put(self, user_id: str, cols: UserColumns) -> None:
        self._total += cols.n - self._rows.get(user_id, 0)
        self._rows[user_id] = cols.n
        self._users[user_id] = cols
        self._users.move_to_end(user_id)
        while self._total > self.max_rows and len(self._users) > 1:
            self.drop(next(iter(self._users)))

    def drop(self, user_id: str) -> None:
        if self._users.pop(user_id, None) is not None:
            self._total -= self._rows.pop(user_id)

    def clear(self) -> None:
        self._users.clear()
        self._rows.clear()
        self._total = 0
