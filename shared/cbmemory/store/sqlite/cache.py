"""What the embedded store keeps in memory per user: vectors, filter columns, the full-text index, the
sparse vectors (inverted by term, :class:`SparseIndex`) and, once an annotation filter needs them, the
annotation pairs (inverted, annotation_index.py).

Each user's columns are loaded on first use and kept in sync with the file through two numbers of the
user's row (``write_seq``, ``delete_seq``), taken from one counter of the whole file, so they never repeat:
a new write appends the new rows, a deletion (or a forgotten user written again) reloads them, and so
does a record given its sparse vector afterwards (``set_sparse``: a changed row, like a replaced one).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...embedding.sparse import SparseMatrix, SparseVector
from ...errors import CorruptStoreError
from ...models import MemoryRecord
from ..lexical import LexicalIndex
from .annotation_index import AnnotationIndex
from .places import Places

# Columns of ``records`` read into memory, in this order (then the record's term ids and sparse vector).
LOAD_COLUMNS = ("rowid, vector, occurred_at, ingested_at, expires_at, session_id, kind, position, speaker, "
                "(kind = 'turn' AND source_ids != '[]'), record_id, terms, "
                "sparse_ids, sparse_weights")
_TAIL_ENTRIES = 16_384  # sparse entries scanned directly before they are merged into the postings


class SparseIndex:
    """One user's sparse vectors (in the order of the user's columns), scored against a query by dot product.

    A :class:`SparseMatrix` (postings by term) covers the records up to some point; the entries of records
    appended since (``tail``) are scanned directly, and merged into a new matrix once they outgrow an
    eighth of it (and at least ``_TAIL_ENTRIES``), so a search right after an append costs no rebuild and
    a search's cost is the postings of its terms plus that bounded tail. The matrix is only built by a
    search: a user never sparse-searched keeps the entries as they were read.
    """

    def __init__(self) -> None:
        self.n = 0  # records
        self.matrix: SparseMatrix | None = None  # the first ``matrix.n_docs`` records
        self._size = 0  # used length of the tail arrays
        self._ids = np.empty(0, np.int32)
        self._weights = np.empty(0, np.float32)
        self._rows = np.empty(0, np.int32)  # record position of each tail entry, increasing
        self._terms: np.ndarray | None = None  # ``terms()``, until an append adds entries

    @property
    def nnz(self) -> int:
        return (0 if self.matrix is None else self.matrix.nnz) + self._size

    def append(self, ids: Sequence[bytes | None], weights: Sequence[bytes | None]) -> None:
        """Records' stored sparse vectors (write.sparse_blobs); ``None`` for a record without one."""
        lengths = np.zeros(len(ids), np.int64)
        for i, (a, b) in enumerate(zip(ids, weights, strict=True)):
            if a is None and b is None:
                continue
            if a is None or b is None or len(a) % 4 or len(a) != len(b):
                raise CorruptStoreError("a record's stored sparse vector is damaged (ids and weights differ "
                                        "in length); restore the store from a backup")
            lengths[i] = len(a) // 4
        total = int(lengths.sum())
        if total:
            end = self._size + total
            if end > self._ids.size:
                cap = max(2 * self._ids.size, end, 1024)
                for name in ("_ids", "_weights", "_rows"):
                    old = getattr(self, name)
                    new = np.empty(cap, old.dtype)
                    new[: self._size] = old[: self._size]
                    setattr(self, name, new)
            self._ids[self._size : end] = np.frombuffer(b"".join(a for a in ids if a), dtype="<i4")
            self._weights[self._size : end] = np.frombuffer(b"".join(b for b in weights if b), dtype="<f4")
            self._rows[self._size : end] = np.repeat(np.arange(self.n, self.n + len(ids), dtype=np.int32), lengths)
            self._size = end
            self._terms = None
        self.n += len(ids)

    def terms(self) -> np.ndarray:
        """The distinct term ids of the user's sparse vectors (int32, increasing, read-only): a query term
        outside them scores 0 for every record. The same array until an append adds entries."""
        if self._terms is None:
            parts = [np.unique(self._ids[: self._size])]
            if self.matrix is not None:
                parts.append(self.matrix.terms)
            terms = np.union1d(*parts) if len(parts) == 2 else parts[0]
            terms = terms.astype(np.int32)
            terms.setflags(write=False)
            self._terms = terms
        return self._terms

    def _merge(self) -> None:
        """One matrix of every record: the old matrix's postings and the tail, by term then record."""
        m = self.matrix
        tail = slice(0, self._size)
        if m is None:
            ids, rows, weights = self._ids[tail], self._rows[tail], self._weights[tail]
        else:
            ids = np.concatenate([np.repeat(m.terms, np.diff(m.indptr)), self._ids[tail]])
            rows = np.concatenate([m.rows, self._rows[tail]])
            weights = np.concatenate([m.weights, self._weights[tail]])
        # the matrix's entries are in (term, record) order and every tail record comes after them, in
        # record order: each term's records stay in order
        self.matrix = SparseMatrix.from_entries(self.n, ids, rows, weights)
        self._size = 0
        for name, dtype in (("_ids", np.int32), ("_weights", np.float32), ("_rows", np.int32)):
            setattr(self, name, np.empty(0, dtype))

    def scores(self, query: SparseVector) -> np.ndarray:
        """Every record's dot product with ``query`` (float64, one per record, in column order)."""
        indexed = 0 if self.matrix is None else self.matrix.nnz
        if self._size > max(_TAIL_ENTRIES, indexed // 8):
            self._merge()
        out = np.zeros(self.n)
        if self.matrix is not None:
            out[: self.matrix.n_docs] = self.matrix.scores(query)
        if self._size and len(query):
            ids = self._ids[: self._size]
            pos = np.minimum(np.searchsorted(query.ids, ids), len(query) - 1)
            hit = np.flatnonzero(query.ids[pos] == ids)
            contrib = self._weights[hit].astype(np.float64) * query.weights[pos[hit]].astype(np.float64)
            out += np.bincount(self._rows[hit], weights=contrib, minlength=self.n)
        return out


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
    positions: np.ndarray
    speakers: np.ndarray
    echoes: np.ndarray  # a turn stored restating what its agent step was shown (source_ids set)
    ids: np.ndarray  # record ids
    lexical: LexicalIndex = field(default_factory=LexicalIndex)
    sparse: SparseIndex = field(default_factory=SparseIndex)
    # annotation pairs, read on the first search with an annotation filter (mask.annotation_pairs)
    pairs: AnnotationIndex = field(default_factory=AnnotationIndex)
    # records already read, by rowid: valid as long as these columns are (a row never changes under its
    # rowid; replacing or deleting one changes delete_seq, which reloads the columns and so empties this)
    records: dict[int, MemoryRecord] = field(default_factory=dict)
    _places: Places | None = None  # built on the first window read (``places``)

    def places(self) -> Places:
        """Where each record sits (session, kind, position), for reading windows by position."""
        if self._places is None:
            self._places = Places()
        if self._places.n < self.n:
            at = slice(self._places.n, self.n)
            self._places.add(self.sessions[at].tolist(), self.kinds[at].tolist(), self.positions[at].tolist())
        return self._places

    @property
    def max_rowid(self) -> int:
        return int(self.rowids[self.n - 1]) if self.n else 0

    def reserve(self, cap: int, dim: int) -> None:
        """Room for ``cap`` rows (moves the columns once)."""
        if cap > len(self.rowids):
            for name in ("rowids", "occurred", "ingested", "expires", "sessions", "kinds", "positions", "speakers",
                         "echoes", "ids"):
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
        self.positions[s] = cols[7]
        self.speakers[s] = cols[8]
        self.echoes[s] = cols[9]
        self.ids[s] = cols[10]
        self.lexical.append(cols[11])
        self.sparse.append(cols[12], cols[13])
        self.n += m

    @classmethod
    def empty(cls, write_seq: int, delete_seq: int, dim: int) -> UserColumns:
        return cls(write_seq, delete_seq, 0, np.empty(0, np.int64), np.empty((0, dim), np.float32),
                   np.empty(0), np.empty(0), np.empty(0), np.empty(0, object), np.empty(0, object),
                   np.empty(0, np.int64), np.empty(0, object), np.empty(0, bool), np.empty(0, object))


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
