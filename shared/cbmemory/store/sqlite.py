"""The embedded default store: one SQLite file (WAL) with records, their float32 vectors, term ids and
(with a sparse encoder bound) learned sparse vectors; records written before the binding have none until
``set_sparse`` gives them one.

Searches read the queried user's records only. Vector search is exact over the user's vectors, kept in
memory as one numpy matrix; full-text search is BM25 over the user's own records (lexical.py), from term
ids kept beside the vectors; sparse search is the dot product with the user's sparse vectors, inverted by
term. All are loaded on first use and kept in sync with the file (sqlite_cache.py), so writes from other
processes are seen on the next search. Filters mean ``filters.admits``: in SQL
(sqlite_sql.filter_clause) for listings, as masks over the in-memory columns for searches (sqlite_mask.py).

Elsewhere: write transactions in sqlite_write.py (a write is one transaction: batches are atomic); opening
the file, making or upgrading its schema and wiping erased rows from its bytes in sqlite_file.py; SQL and
rows read back as models in sqlite_sql.py.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import numpy as np

from ..dates import utcnow
from ..embedding.sparse import SparseVector
from ..errors import (
    CbMemoryError,
    EmbedderMismatchError,
    InvalidInputError,
    NotAStoreError,
    ReadOnlyStoreError,
)
from ..models import (
    NO_FILTERS,
    ForgetResult,
    Hit,
    IngestResult,
    MemoryRecord,
    SearchFilters,
    Session,
    frozen_mapping,
)
from ..text import content_words
from . import lexical
from . import sqlite_file as sf
from . import sqlite_sql as q
from . import sqlite_write as w
from .base import MemoryStore, WriteMode
from .sqlite_cache import LOAD_COLUMNS, UserCache, UserColumns
from .sqlite_mask import column_mask
from .sqlite_sql import row_to_record, stored_time
from .windows import Window

_CHUNK = 500  # bound on parameters per IN (...) list
# Below this many rows per user the cosine scores come from a single-threaded numpy loop (einsum): a
# threaded BLAS call costs more in waking and waiting for its threads than it saves, badly so on a busy
# machine (10k x 384 on 2 shared cores: einsum p50 0.7 ms, BLAS 11 ms). Above it the product is bound by
# memory bandwidth and BLAS's threads help.
_SINGLE_THREAD_ROWS = 32_768
_LOAD_ROWS = 2_048  # rows per slice when a user's vectors are read into memory
_RECORD_CACHE = 2_048  # records of recent hits kept per user (oldest dropped first)


class SQLiteStore(MemoryStore):
    """Memory in one local file. ``SQLiteStore("memory.db")``, or ``":memory:"`` for a throwaway store.

    Safe to share between threads of one process (one connection behind a lock) and between processes
    (WAL mode; writers wait up to ``timeout`` seconds for each other).

    Problems with the file are typed errors (sqlite_file.py): a missing file opened with ``create=False``
    or ``read_only=True`` raises ``StoreNotFoundError`` (nothing is created); a file or directory that
    cannot be written raises ``ReadOnlyStoreError`` at open unless ``read_only=True``; a damaged file
    raises ``CorruptStoreError``, on reads that meet a damaged page and before the first write of each
    store object (``quick_check``), so nothing is ever written into it; a file of any other kind raises
    ``NotAStoreError``.
    """

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, cache_rows: int = 2_000_000,
                 create: bool = True, read_only: bool = False):
        """``cache_rows``: records whose vectors and full-text index are kept in memory, over all users
        (about 2 KB each with 384-dimension vectors); the least recently searched users are dropped first.
        ``create``: a missing file is made a new store (else ``StoreNotFoundError``). ``read_only``: only
        read; never creates or writes the file (writes raise ``ReadOnlyStoreError``). The way to read a
        store whose file or directory is read-only, which without it is refused at open."""
        self.path = str(path)
        self.read_only = read_only
        self._lock = sf.StoreLock()  # every use of the connection holds it; it types the file's errors
        self._timeout_ms = int(timeout * 1000)
        self._cache = UserCache(cache_rows)
        self._dim: int | None = None
        self._checked = False  # the file passed quick_check, or this object made it (see _check_writable)
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise NotAStoreError(f"{self.path} is a directory, not a cbmemory store file")
        # read_only opens a ``file:...?mode=ro`` URI; in a read-only directory, where SQLite cannot create the
        # -wal and -shm files, it falls back to ``immutable=1`` (exact when no -wal holds unmerged changes;
        # refused when one does): see sqlite_file.connect
        self._conn = sf.connect(self.path, create=create, read_only=read_only, timeout=timeout)
        self._lock.conn = self._conn
        try:
            self._open(create=create)
        except sqlite3.Error as exc:  # not about the file itself (those are typed): another file or schema
            self._conn.close()
            raise sf.opening_error(exc, self.path) from exc
        except BaseException:
            self._conn.close()
            raise
        self._conn.opening = False  # a store: "not a database" from now on means a damaged file

    def _check_writable(self) -> None:
        """Called first by every method that writes. Refuses a store opened ``read_only`` and, once per
        store object, checks the file with SQLite's ``quick_check`` (``CorruptStoreError`` if it fails), so
        nothing is written into a damaged file. The check reads every page: the first write after opening
        a large store waits for it."""
        if self.read_only:
            raise sf.opened_read_only(self.path)
        if not self._checked:
            with self._lock:
                if not self._checked and self.path != ":memory:":
                    sf.check_integrity(self._conn, self.path)
                self._checked = True

    # ---------------------------------------------------------------- setup
    def _open(self, *, create: bool = True) -> None:
        """Check the file is a cbmemory store of this schema (an empty file becomes one when ``create``
        and not ``read_only``: sqlite_file.prepare) and set the connection up. Nothing here writes to an
        existing store but the upgrade of an older schema."""
        if sf.prepare(self._conn, self.path, create=create, read_only=self.read_only):
            self._checked = True  # made by this object: nothing to check before writing
        version = self._meta("schema_version")
        if version in sf.UPGRADABLE:
            if self.read_only:
                raise ReadOnlyStoreError(f"{self.path} has schema version {version}, which must be upgraded (a "
                                         "write) before it can be read; open it once without read_only=True")
            self._check_writable()  # the upgrade writes: not into a damaged file
            with self._tx() as c:  # every step (2 -> 3 -> 4) in one transaction
                pending = sf.upgrade(c)
            if pending:
                self._wipe()  # from 2: the old index's pages held every user's words
            version = self._meta("schema_version")
        if version != q.SCHEMA_VERSION:
            raise NotAStoreError(f"{self.path} has schema version {version!r}; expected {q.SCHEMA_VERSION}")
        dim = self._meta("embedder_dimension")
        self._dim = int(dim) if dim else None

    def _meta(self, key: str) -> str | None:
        with self._lock:
            return sf.meta(self._conn, key)

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        with self._lock, sf.transaction(self._conn, write) as c:
            yield c

    def bind_embedder(self, name: str, dimension: int) -> None:
        if self.read_only:  # check only: a store with no vectors yet is searched as empty
            have = self.bound_embedder
            if have is not None and have != (name, dimension):
                raise EmbedderMismatchError(
                    f"{self.path} holds vectors from {have[0]!r} ({have[1]} dimensions); "
                    f"it cannot be searched with {name!r} ({dimension} dimensions)")
            self._dim = dimension if have is not None else None
            return
        with self._tx() as c:
            have_name, have_dim = self._meta("embedder_name"), self._meta("embedder_dimension")
            if have_name is None:
                c.execute("INSERT INTO meta VALUES ('embedder_name', ?), ('embedder_dimension', ?)",
                          (name, str(dimension)))
            elif have_name != name or int(have_dim or 0) != dimension:
                raise EmbedderMismatchError(
                    f"{self.path} holds vectors from {have_name!r} ({have_dim} dimensions); "
                    f"it cannot be searched with {name!r} ({dimension} dimensions)"
                )
        self._dim = dimension

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        name, dim = self._meta("embedder_name"), self._meta("embedder_dimension")
        return (name, int(dim)) if name and dim else None

    def _dimension(self) -> int | None:
        return self._dim

    def bind_sparse_encoder(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidInputError(f"a sparse encoder's name must be a non-empty string, got {name!r}")
        if self.read_only:  # check only
            with self._tx(write=False) as c:
                self._check_sparse_binding(c, name)
            return
        self._check_writable()
        with self._tx() as c:
            if self._check_sparse_binding(c, name):
                c.execute("INSERT INTO meta VALUES ('sparse_encoder_name', ?)", (name,))
                # the records already here (if any) have no sparse vector: indexed until set_sparse gives
                # them one, so users_missing_sparse reads no record written since
                c.execute(q.WITHOUT_SPARSE_INDEX)

    def _check_sparse_binding(self, c: sqlite3.Connection, name: str) -> bool:
        """Whether ``name`` may be bound and is not yet (raises when it may not be). A store holding records
        may be bound: they have no sparse vector until :meth:`set_sparse` gives them one."""
        have = sf.meta(c, "sparse_encoder_name")
        if have == name:
            return False
        if have is not None:
            raise EmbedderMismatchError(f"{self.path} holds sparse vectors from {have!r}; it cannot be searched "
                                        f"or written with {name!r}")
        return True

    @property
    def bound_sparse_encoder(self) -> str | None:
        return self._meta("sparse_encoder_name")

    # ---------------------------------------------------------------- writes
    def _write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray,
               mode: WriteMode, sparse: list[SparseVector] | None) -> IngestResult:
        """One transaction (sqlite_write.write_batch): the batch is all-or-nothing."""
        with self._tx() as c:
            result, touched = w.write_batch(c, sessions, records, vectors, mode, sparse)
            w.mark_users(c, touched)
            pending = w.wipe_pending(c) is not None
        if pending:
            self._wipe()
        return result

    def _set_sparse(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        """One transaction. A record given its vector changes the user's ``delete_seq`` (as a replaced record
        does), so every process reloads the user's columns, sparse index included, on its next search."""
        with self._tx() as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                raise InvalidInputError("bind a sparse encoder to the store before setting sparse vectors")
            n = w.set_sparse(c, user_id, vectors)
            touched = {user_id: True} if n else {}
            w.mark_users(c, touched)
            pending = w.wipe_pending(c) is not None
        for user in touched:
            self._cache.drop(user)
        if pending:
            self._wipe()
        return n

    def _wipe(self) -> bool:
        """Finish a pending wipe of erased records from the file's bytes (sqlite_file.wipe)."""
        if self.path == ":memory:":
            return True
        with self._lock:
            return sf.wipe(self._conn, self._timeout_ms)

    def _erased(self, touched: dict[str, bool], pending: bool) -> bool:
        """After an erasing transaction: drop the users' columns, and finish the wipe if one is pending
        (this erase's, or one a reader blocked earlier). Returns whether the file is wiped."""
        for user in touched:
            self._cache.drop(user)
        return self._wipe() if pending else True

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        self._check_writable()
        with self._tx() as c:
            records, sessions = w.erase(c, user_id, session_id)
            touched = {user_id: True} if records or sessions else {}
            w.mark_users(c, touched)
            if touched:
                w.set_wipe_pending(c, "rebuild")
            pending = w.wipe_pending(c) is not None
        return ForgetResult(records, sessions, self._erased(touched, pending))

    def purge_expired(self, now: datetime | None = None) -> int:
        self._check_writable()
        with self._tx() as c:
            n, touched = w.purge(c, (now or utcnow()).timestamp())
            w.mark_users(c, touched)
            if n:
                w.set_wipe_pending(c, "rebuild")
            pending = w.wipe_pending(c) is not None
        self._erased(touched, pending)
        return n

    # ---------------------------------------------------------------- reads
    def _refresh(self, c: sqlite3.Connection, user_id: str) -> UserColumns:
        """The user's columns, brought up to date inside the caller's read transaction."""
        if self._dim is None:  # opened before any vector was written: another process may have bound one
            dim_text = self._meta("embedder_dimension")
            self._dim = int(dim_text) if dim_text else None
        dim = self._dim or 0
        row = c.execute("SELECT write_seq, delete_seq FROM users WHERE user_id = ?", (user_id,)).fetchone()
        ws, ds = row if row else (0, 0)
        m = self._cache.get(user_id)
        if m is not None and (m.write_seq, m.delete_seq) == (ws, ds):
            return m
        if m is None or m.delete_seq != ds:
            m = UserColumns.empty(ws, ds, dim)
        after = m.max_rowid
        new = c.execute("SELECT count(*) FROM records WHERE user_id = ? AND rowid > ?", (user_id, after)).fetchone()[0]
        if new > len(m.rowids) - m.n:
            m.reserve(m.n + new if m.n == 0 else max(m.n + new, 2 * len(m.rowids)), dim)
        cur = c.execute(f"SELECT {LOAD_COLUMNS} FROM records WHERE user_id = ? AND rowid > ? ORDER BY rowid",
                        (user_id, after))
        while rows := cur.fetchmany(_LOAD_ROWS):  # in slices: no second copy of every vector at once
            m.append(rows, dim)
        m.write_seq, m.delete_seq = ws, ds
        self._cache.put(user_id, m)
        return m

    def _records_by_rowid(self, c: sqlite3.Connection, user_id: str, m: UserColumns,
                          rowids: Sequence[int]) -> dict[int, MemoryRecord]:
        cache = m.records
        out = {r: cache[r] for r in rowids if r in cache}
        missing = [r for r in rowids if r not in out]
        for i in range(0, len(missing), _CHUNK):
            part = missing[i : i + _CHUNK]
            # ``+r.user_id``: with many ids SQLite would otherwise scan the user's whole index
            # (records_user) instead of looking the rows up by rowid
            sql = (f"SELECT {q.RECORD_COLUMNS} FROM records r WHERE +r.user_id = ? "
                   f"AND r.rowid IN ({','.join('?' * len(part))})")
            out.update({row[0]: row_to_record(row) for row in c.execute(sql, [user_id, *part])})
        if missing:
            cache.update((r, out[r]) for r in missing if r in out)
            for old in list(itertools.islice(cache, max(0, len(cache) - _RECORD_CACHE))):
                del cache[old]
        return out

    def _hits(self, c: sqlite3.Connection, signal: str, user_id: str, m: UserColumns, idx: np.ndarray,
              scores: np.ndarray, k: int) -> list[Hit]:
        """The ``k`` best (score, then rowid) of the records at positions ``idx``, as hits with records."""
        if idx.size == 0:
            return []
        rowids, scores = m.rowids[idx], scores[idx]
        if rowids.size > k:
            part = np.argpartition(-scores, k - 1)[:k]
            rowids, scores = rowids[part], scores[part]
        order = np.lexsort((rowids, -scores))
        rowids, scores = rowids[order], scores[order]
        recs = self._records_by_rowid(c, user_id, m, rowids.tolist())
        hits = []
        for rank, (rowid, score) in enumerate(zip(rowids.tolist(), scores.tolist(), strict=True), 1):
            rec = recs.get(rowid)
            if rec is not None:
                hits.append(Hit(rec, score, frozen_mapping({signal: score}), frozen_mapping({signal: rank})))
        return hits

    def vector_search(self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        qv = np.asarray(vector, dtype=np.float32).reshape(-1)
        t_now = (now or utcnow()).timestamp()
        with self._tx(write=False) as c:
            m = self._refresh(c, user_id)
            if self._dim is not None and (qv.shape[0] != self._dim or not np.isfinite(qv).all()):
                raise InvalidInputError(f"query vector must be {self._dim} finite floats")
            if m.n == 0:
                return []
            scores = (np.einsum("ij,j->i", m.vectors[: m.n], qv) if m.n <= _SINGLE_THREAD_ROWS
                      else m.vectors[: m.n] @ qv)
            idx = np.flatnonzero(column_mask(c, user_id, m, filters, t_now))
            return self._hits(c, "vector", user_id, m, idx, scores, k)

    def _lexical(self, signal: str, user_id: str, phrases: list[np.ndarray], k: int, filters: SearchFilters,
                 now: datetime | None) -> list[Hit]:
        """BM25 over the user's own live records (statistics and cost), kept where ``filters`` pass."""
        if not phrases:
            return []
        t_now = (now or utcnow()).timestamp()
        with self._tx(write=False) as c:
            m = self._refresh(c, user_id)
            if m.n == 0:
                return []
            live = m.expires[: m.n] > t_now
            scores = m.lexical.bm25(phrases, live)
            idx = np.flatnonzero((scores > 0) & column_mask(c, user_id, m, filters, t_now))
            return self._hits(c, signal, user_id, m, idx, scores, k)

    def text_search(self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS,
                    now: datetime | None = None) -> list[Hit]:
        terms = lexical.query_terms(content_words(query))
        return self._lexical("bm25", user_id, [terms[i : i + 1] for i in range(terms.size)], k, filters, now)

    def phrase_search(self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        ids = {tuple(lexical.term_ids(p)) for p in phrases}
        return self._lexical("entity", user_id, [np.array(t, np.int64) for t in sorted(ids) if t], k, filters, now)

    def sparse_search(self, user_id: str, query: SparseVector, k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        """Dot products over the user's sparse vectors (sqlite_cache.SparseIndex: the postings of the query's
        terms); positive scores only, ties by rowid (the earlier written first)."""
        if not isinstance(query, SparseVector):
            raise InvalidInputError(f"query must be a SparseVector, got {type(query).__name__}")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"k must be a positive integer, got {k!r}")
        t_now = (now or utcnow()).timestamp()
        with self._tx(write=False) as c:
            if len(query) == 0 or sf.meta(c, "sparse_encoder_name") is None:
                return []
            m = self._refresh(c, user_id)
            if m.n == 0:
                return []
            scores = m.sparse.scores(query)
            cand = np.flatnonzero(scores > 0)
            idx = cand[column_mask(c, user_id, m, filters, t_now, cand)]
            return self._hits(c, "sparse", user_id, m, idx, scores, k)

    def users_missing_sparse(self) -> list[str]:
        """In user id order. Read from the partial index of records without a sparse vector that binding
        makes (its records: those written before), not from the whole table."""
        now = utcnow().timestamp()
        with self._tx(write=False) as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                return []
            return [r[0] for r in c.execute(
                "SELECT DISTINCT user_id FROM records WHERE sparse_ids IS NULL "
                "AND (expires_at IS NULL OR expires_at > ?) ORDER BY user_id", (now,))]

    def _records_without_sparse(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        where, params = q.filter_clause(user_id, NO_FILTERS, utcnow().timestamp())
        if limit is not None:
            params["limit"] = limit
        with self._tx(write=False) as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                return []
            rows = c.execute(q.list_select(f"{where} AND r.sparse_ids IS NULL", False, limit is not None),
                             params).fetchall()
        return [row_to_record(r) for r in rows]

    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        with self._lock:
            for i in range(0, len(record_ids), _CHUNK):
                part = list(record_ids[i : i + _CHUNK])
                sql = (f"SELECT {q.RECORD_COLUMNS} FROM records r WHERE +r.user_id = ? "
                       f"AND r.record_id IN ({','.join('?' * len(part))})")
                out.extend(row_to_record(r) for r in self._conn.execute(sql, [user_id, *part]))
        return out

    def list_records(self, user_id: str, filters: SearchFilters = NO_FILTERS, *, limit: int | None = None,
                     newest_first: bool = False, now: datetime | None = None) -> list[MemoryRecord]:
        where, params = q.filter_clause(user_id, filters, (now or utcnow()).timestamp())
        if limit is not None:
            params["limit"] = limit
        with self._lock:
            rows = self._conn.execute(q.list_select(where, newest_first, limit is not None), params).fetchall()
        return [row_to_record(r) for r in rows]

    def _neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        """One statement per ``_CHUNK`` windows (sqlite_sql.window_select), each window read by position."""
        rows: list[tuple] = []
        with self._lock:
            for i in range(0, len(merged), _CHUNK):
                where, params = q.filter_clause(user_id, filters, now.timestamp())
                rows += self._conn.execute(q.window_select(where, params, merged[i : i + _CHUNK]), params)
        if len(merged) > _CHUNK:  # each chunk is in order; all of them, in list_records' order again
            rows.sort(key=lambda r: (r[11], r[3], r[5], r[0]))  # occurred_at, session_id, position, rowid
        return [row_to_record(r) for r in rows]

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT occurred_at, annotations FROM sessions WHERE user_id = ? AND session_id = ?",
                (user_id, session_id)).fetchone()
        if row is None:
            return None
        return Session(user_id, session_id, stored_time(row[0]), frozen_mapping(json.loads(row[1])))

    def list_sessions(self, user_id: str) -> list[Session]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT session_id, occurred_at, annotations FROM sessions WHERE user_id = ? "
                "ORDER BY occurred_at, session_id", (user_id,)).fetchall()
        return [Session(user_id, s, stored_time(o), frozen_mapping(json.loads(a))) for s, o, a in rows]

    def count(self, user_id: str | None = None) -> int:
        now = utcnow().timestamp()
        args: tuple[object, ...]
        with self._lock:
            if user_id is None:
                sql, args = "SELECT count(*) FROM records WHERE expires_at IS NULL OR expires_at > ?", (now,)
            else:
                sql = "SELECT count(*) FROM records WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)"
                args = (user_id, now)
            return int(self._conn.execute(sql, args).fetchone()[0])

    def users(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT user_id FROM records ORDER BY user_id")]

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(content_hashes), _CHUNK):
                part = list(content_hashes[i : i + _CHUNK])
                sql = (f"SELECT content_hash, vector FROM records WHERE user_id = ? AND content_hash IN "
                       f"({','.join('?' * len(part))}) GROUP BY content_hash")
                for h, blob in self._conn.execute(sql, [user_id, *part]):
                    out[h] = np.frombuffer(blob, dtype=np.float32).copy()
        return out

    def stats(self) -> dict[str, object]:
        with self._lock:
            c = self._conn
            kinds = dict(c.execute("SELECT kind, count(*) FROM records GROUP BY kind").fetchall())
            out: dict[str, object] = {
                "backend": "sqlite",
                "path": self.path,
                "users": c.execute("SELECT count(DISTINCT user_id) FROM records").fetchone()[0],
                "sessions": c.execute("SELECT count(*) FROM sessions").fetchone()[0],
                "records": sum(kinds.values()),
                "records_by_kind": kinds,
                "embedder": self._meta("embedder_name"),
                "dimension": self._dim,
                "sparse_encoder": self._meta("sparse_encoder_name"),
                "sparse_records": c.execute(
                    "SELECT count(*) FROM records WHERE sparse_ids IS NOT NULL").fetchone()[0],
                "schema_version": self._meta("schema_version"),
            }
        if self.path != ":memory:":
            out["file_bytes"] = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal")
                                    if os.path.exists(p))
        return out

    def close(self) -> None:
        with self._lock:
            try:
                if not self.read_only and w.wipe_pending(self._conn) is not None:
                    self._wipe()
            except (sqlite3.Error, CbMemoryError):  # already closed, or damaged: nothing to finish here
                pass
            self._conn.close()
            self._cache.clear()
