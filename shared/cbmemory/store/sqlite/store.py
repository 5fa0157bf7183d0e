"""The embedded default store: one SQLite file (WAL) with records, their float32 vectors, term ids and
(with a sparse encoder bound) learned sparse vectors; records written before the binding have none until
``set_sparse`` gives them one.

Searches read the queried user's records only. Vector search is exact over the user's vectors, kept in
memory as one numpy matrix; full-text search is BM25 over the user's own records (lexical.py), from term
ids kept beside the vectors; sparse search is the dot product with the user's sparse vectors, inverted by
term. All are loaded on first use and kept in sync with the file (cache.py), so writes from other
processes are seen on the next search. Filters mean ``filters.admits``: in SQL
(sql.filter_clause) for listings, as masks over the in-memory columns for searches (mask.py).

``SQLiteStore`` is here with its searches, writes and erasures; the rest of it is in parts, each a base
class of it: the file, its connection, the embedder binding and the users' columns in memory in
core.py, the sparse vectors in sparse.py, the listings in reads.py. Elsewhere: write
transactions in write.py (a write is one transaction: batches are atomic); opening the file, making
or upgrading its schema and wiping erased rows from its bytes in file.py; SQL and rows read back as
models in sql.py.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from ...dates import utcnow
from ...embedding.sparse import SparseVector
from ...errors import CbMemoryError
from ...models import ForgetResult, Hit, IngestResult, MemoryRecord, SearchFilters, Session
from ..base import Derived, WriteMode
from ..candidates import Candidates
from ..parts import PartsStore
from ..signals import Signal
from ..windows import Window
from . import file as sf
from . import sql as q
from . import write as w
from .cache import UserColumns
from .core import SQLiteFile
from .mask import column_mask
from .reads import Listings
from .scorers import SCORERS, Scoring
from .sparse import SparseVectors


class SQLiteStore(PartsStore):
    """Memory in one local file. ``SQLiteStore("memory.db")``, or ``":memory:"`` for a throwaway store.

    Safe to share between threads of one process (one connection behind a lock) and between processes
    (WAL mode; writers wait up to ``timeout`` seconds for each other).

    Problems with the file are typed errors (file.py): a missing file opened with ``create=False``
    or ``read_only=True`` raises ``StoreNotFoundError`` (nothing is created); a file or directory that
    cannot be written raises ``ReadOnlyStoreError`` at open unless ``read_only=True``; a damaged file
    raises ``CorruptStoreError``, on reads that meet a damaged page and before the first write of each
    store object (``quick_check``), so nothing is ever written into it; a file of any other kind raises
    ``NotAStoreError``.

    Composed of parts: the file (``core.SQLiteFile``: connection, transactions, embedder binding, the users'
    columns in memory), its listings (``reads.Listings``) and its sparse vectors (``sparse.SparseVectors``),
    each on the file (``store.parts.PartsStore`` answers from the last two as they are); the searches (by
    ``scorers.SCORERS``), writes and erasures are here.
    """

    _listings: Listings
    _sparse: SparseVectors

    scorers = SCORERS
    keeps_derived = True

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, cache_rows: int = 2_000_000,
                 create: bool = True, read_only: bool = False):
        """``cache_rows``: records whose vectors and full-text index are kept in memory, over all users
        (about 2 KB each with 384-dimension vectors); the least recently searched users are dropped first.
        ``create``: a missing file is made a new store (else ``StoreNotFoundError``). ``read_only``: only
        read; never creates or writes the file (writes raise ``ReadOnlyStoreError``). The way to read a
        store whose file or directory is read-only, which without it is refused at open."""
        self._db = SQLiteFile(path, timeout=timeout, cache_rows=cache_rows, create=create, read_only=read_only)
        self.path, self.read_only = self._db.path, read_only
        self._listings = Listings(self._db)
        self._sparse = SparseVectors(self._db)

    # ---------------------------------------------------------------- the parts' answers, as they are
    def bind_embedder(self, name: str, dimension: int) -> None:
        self._db.bind_embedder(name, dimension)

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        return self._db.bound_embedder

    def _dimension(self) -> int | None:
        return self._db.dimension()

    def _check_writable(self) -> None:
        self._db.check_writable()

    def _read_candidates(self, found: Candidates, at: list[int]) -> list[MemoryRecord | None]:
        return self._db.read_candidates(found, at)

    @property
    def bound_sparse_encoder(self) -> str | None:
        return self._sparse.bound

    def _sparse_terms(self, user_id: str) -> np.ndarray:
        return self._sparse.terms(user_id)

    # ---------------------------------------------------------------- writes
    def _write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray,
               mode: WriteMode, sparse: list[SparseVector] | None, derived: list[Derived] | None) -> IngestResult:
        """One transaction (write.write_batch): the batch is all-or-nothing, its derived vectors with it."""
        with self._db.tx() as c:
            result, touched = w.write_batch(c, sessions, records, vectors, mode, sparse)
            w.keep_derived(c, {r.record_id: r.user_id for r in records}, derived or [])
            w.mark_users(c, touched)
            pending = w.wipe_pending(c) is not None
        if pending:
            self._db.wipe()
        return result

    def _keep_derived(self, user_id: str, derived: list[Derived]) -> int:
        with self._db.tx() as c:
            return w.keep_derived(c, dict.fromkeys((d[0] for d in derived), user_id), derived)

    def _turns_to_keep(self, user_id: str, after: str, limit: int | None, form: int) -> list[MemoryRecord]:
        with self._db.tx(write=False) as c:
            # a table without forms (made by an older version, not yet written by this one) holds those of form 1
            table = sf.has_table(c, "derived")
            formed = table and sf.has_column(c, "derived", "form")
            sql = q.turns_to_keep(table and (formed or form == 1), formed, limit is not None)
            rows = c.execute(sql, {"user": user_id, "after": after, "now": utcnow().timestamp(),
                                   "limit": limit, "form": form}).fetchall()
        return [q.row_to_record(r) for r in rows]

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        self._db.check_writable()
        with self._db.tx() as c:
            records, sessions = w.erase(c, user_id, session_id)
            touched = {user_id: True} if records or sessions else {}
            w.mark_users(c, touched)
            if touched:
                w.set_wipe_pending(c, "rebuild")
            pending = w.wipe_pending(c) is not None
        return ForgetResult(records, sessions, self._erased(touched, pending))

    def purge_expired(self, now: datetime | None = None) -> int:
        self._db.check_writable()
        with self._db.tx() as c:
            n, touched = w.purge(c, (now or utcnow()).timestamp())
            w.mark_users(c, touched)
            if n:
                w.set_wipe_pending(c, "rebuild")
            pending = w.wipe_pending(c) is not None
        self._erased(touched, pending)
        return n

    def _erased(self, touched: dict[str, bool], pending: bool) -> bool:
        """After an erasing transaction: drop the users' columns, and finish the wipe if one is pending
        (this erase's, or one a reader blocked earlier). Returns whether the file is wiped."""
        for user in touched:
            self._db.cache.drop(user)
        return self._db.wipe() if pending else True

    # ---------------------------------------------------------------- searches
    def _top_of(self, signal: Signal, user_id: str, query: object, k: int, filters: SearchFilters,
                now: datetime, with_records: bool) -> tuple[Candidates, dict[int, MemoryRecord]]:
        """The ``k`` best of ``signal`` by its scorer (score, then rowid), read in one transaction, with their
        records when asked."""
        with self._db.tx(write=False) as c:
            m = self._db.refresh(c, user_id)
            if m.n == 0:
                return Candidates.empty(user_id), {}
            scoring = Scoring(c, user_id, m, filters, now.timestamp())
            found = self._db.top(user_id, m, *self.scorers[signal](scoring, query), k)
            records = self._db.records_by_rowid(c, user_id, m, found.keys.tolist()) if with_records else {}
        return found, records

    def _candidates(self, signal: Signal, user_id: str, query: object, k: int, filters: SearchFilters,
                    now: datetime) -> Candidates:
        """Columns from memory: no record is read (``read_candidates`` reads those retrieval returns)."""
        return self._top_of(signal, user_id, query, k, filters, now, False)[0]

    def _search(self, signal: Signal, user_id: str, query: object, k: int, filters: SearchFilters,
                now: datetime) -> list[Hit]:
        return self._db.as_hits(signal.value, *self._top_of(signal, user_id, query, k, filters, now, True))

    def _placed(self, c: sqlite3.Connection, user_id: str, m: UserColumns, merged: Sequence[Window],
                filters: SearchFilters, now: datetime) -> np.ndarray:
        """The column positions of the windows' records that ``filters`` admit (places.py), in
        ``list_records``' order (date, session, position, rowid)."""
        idx = m.places().within(merged)
        idx = idx[column_mask(c, user_id, m, filters, now.timestamp(), idx)]
        keys = zip(m.occurred[idx].tolist(), m.sessions[idx].tolist(), m.positions[idx].tolist(),
                   m.rowids[idx].tolist(), strict=True)  # Python strings: compared as SQLite compares them
        return idx[sorted(range(idx.size), key=list(keys).__getitem__)]

    def _neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        """From the columns in memory: the windows' records by position, ``filters`` as for a search, their
        records read by rowid (most from the recent-records cache)."""
        with self._db.tx(write=False) as c:
            m = self._db.refresh(c, user_id)
            if m.n == 0:
                return []
            rowids = m.rowids[self._placed(c, user_id, m, merged, filters, now)].tolist()
            records = self._db.records_by_rowid(c, user_id, m, rowids)
        return [records[r] for r in rowids if r in records]

    def _neighbour_candidates(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                              now: datetime) -> Candidates:
        """From the columns in memory; no record is read."""
        with self._db.tx(write=False) as c:
            m = self._db.refresh(c, user_id)
            if m.n == 0:
                return Candidates.empty(user_id)
            idx = self._placed(c, user_id, m, merged, filters, now)
            return Candidates(user_id, m.rowids[idx], m.ids[idx], np.zeros(idx.size), m.sessions[idx], m.kinds[idx],
                              m.positions[idx], m.occurred[idx], m.speakers[idx], m.echoes[idx])

    def stats(self) -> dict[str, object]:
        with self._db.lock:
            c = self._db.conn
            kinds = dict(c.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
            out: dict[str, object] = {
                "backend": "sqlite",
                "path": self.path,
                "users": c.execute("SELECT count(DISTINCT user_id) FROM records").fetchone()[0],
                "sessions": c.execute("SELECT count(*) FROM sessions").fetchone()[0],
                "records": sum(kinds.values()),
                "records_by_kind": kinds,
                "embedder": self._db.meta("embedder_name"),
                "dimension": self._db.dim,
                "sparse_encoder": self._db.meta("sparse_encoder_name"),
                "sparse_records": c.execute(
                    "SELECT count(*) FROM records WHERE sparse_ids IS NOT NULL").fetchone()[0],
                # vectors kept of what user turns state (a store made before them has no table yet: 0)
                "kept_vectors": c.execute("SELECT count(*) FROM derived").fetchone()[0]
                if sf.has_table(c, "derived") else 0,
                "schema_version": self._db.meta("schema_version"),
            }
        if self.path != ":memory:":
            out["file_bytes"] = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal")
                                    if os.path.exists(p))
        return out

    def close(self) -> None:
        with self._db.lock:
            try:
                if not self.read_only and w.wipe_pending(self._db.conn) is not None:
                    self._db.wipe()
            except (sqlite3.Error, CbMemoryError):  # already closed, or damaged: nothing to finish here
                pass
            self._db.conn.close()
            self._db.cache.clear()
