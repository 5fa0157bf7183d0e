"""The embedded default store: one SQLite file (WAL) with records, an FTS5 index and float32 vectors.

Vector search is exact: the queried user's vectors are kept as one numpy matrix per user, loaded on first
use and kept in sync through two per-user counters in the file (``write_seq`` for appends, ``delete_seq``
for deletions and replacements), so writes from other processes are seen on the next search.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..dates import utcnow
from ..errors import EmbedderMismatchError, InvalidInputError, NotAStoreError
from ..models import NO_FILTERS, Hit, IngestResult, MemoryRecord, SearchFilters, Session, frozen_mapping
from . import sqlite_sql as q
from .base import MemoryStore, StoreCapabilities

_CHUNK = 500  # bound on parameters per IN (...) list
# Below this many rows per user the cosine scores come from a single-threaded numpy loop (einsum): a
# threaded BLAS call costs more in waking and waiting for its threads than it saves, badly so on a busy
# machine (10k x 384 on 2 shared cores: einsum p50 0.7 ms, BLAS 11 ms). Above it the product is bound by
# memory bandwidth and BLAS's threads help.
_SINGLE_THREAD_ROWS = 32_768
_LOAD_ROWS = 2_048  # rows per slice when a user's vectors are read into memory
_RECORD_CACHE = 2_048  # records of recent hits kept per user (oldest dropped first)


def _dt(x: float | None) -> datetime | None:
    return None if x is None else _utc(x)


@lru_cache(maxsize=8192)  # a session's records share their dates, a batch its ingest time
def _utc(x: float) -> datetime:
    return datetime.fromtimestamp(x, tz=timezone.utc)


def _annotations(raw: str) -> Mapping[str, str]:
    return frozen_mapping(None) if raw == "{}" else frozen_mapping(json.loads(raw))


def _row_to_record(row: sqlite3.Row | tuple) -> MemoryRecord:
    (_rowid, record_id, user_id, session_id, kind, position, turn_id, role, speaker, text, index_text,
     occurred, ingested, expires, annotations, source_ids, chash) = row[:17]
    return MemoryRecord(
        record_id=record_id, user_id=user_id, session_id=session_id, kind=kind, position=position,
        role=role, text=text, index_text=index_text, occurred_at=_utc(occurred), ingested_at=_utc(ingested),
        content_hash=chash, turn_id=turn_id, speaker=speaker, annotations=_annotations(annotations),
        expires_at=_dt(expires), source_ids=() if source_ids == "[]" else tuple(json.loads(source_ids)),
    )


@dataclass
class _UserMatrix:
    """One user's vectors and the columns vector-search filters need, grown in place on appends."""

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
    # records already read, by rowid: valid as long as this matrix is (a row never changes under its rowid;
    # replacing or deleting one bumps delete_seq, which replaces the matrix and so empties this cache)
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
        self.n += m

    @classmethod
    def empty(cls, write_seq: int, delete_seq: int, dim: int) -> _UserMatrix:
        return cls(write_seq, delete_seq, 0, np.empty(0, np.int64), np.empty((0, dim), np.float32),
                   np.empty(0), np.empty(0), np.empty(0), np.empty(0, object), np.empty(0, object))


class SQLiteStore(MemoryStore):
    """Memory in one local file. ``SQLiteStore("memory.db")``, or ``":memory:"`` for a throwaway store.

    Safe to share between threads of one process (one connection behind a lock) and between processes
    (WAL mode; writers wait up to ``timeout`` seconds for each other).
    """

    capabilities = StoreCapabilities(vector=True, full_text=True, phrase=True, ttl=True, persistent=True)

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0):
        self.path = str(path)
        self._lock = threading.RLock()
        self._timeout_ms = int(timeout * 1000)
        self._wipe_pending = False  # erased content may still be in the WAL (see _wipe_wal)
        self._cache: dict[str, _UserMatrix] = {}
        self._dim: int | None = None
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise NotAStoreError(f"{self.path} is a directory, not a cbmemory store file")
        try:
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                         check_same_thread=False)
            self._open()
        except sqlite3.DatabaseError as exc:
            raise NotAStoreError(f"{self.path} is not a cbmemory store: {exc}") from exc

    # ---------------------------------------------------------------- setup
    def _open(self) -> None:
        c = self._conn
        app_id = c.execute("PRAGMA application_id").fetchone()[0]
        if app_id != q.APPLICATION_ID:
            tables = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if app_id != 0 or tables:
                raise NotAStoreError(f"{self.path} is a SQLite file of some other application")
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA secure_delete=ON")  # erased memories are overwritten, not left in free pages
        with self._tx():
            if c.execute("PRAGMA application_id").fetchone()[0] != q.APPLICATION_ID:
                for stmt in q.SCHEMA:
                    c.execute(stmt)
                c.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (q.SCHEMA_VERSION,))
                c.execute(f"PRAGMA application_id={q.APPLICATION_ID}")
        version = self._meta("schema_version")
        if version != q.SCHEMA_VERSION:
            raise NotAStoreError(f"{self.path} has schema version {version!r}; expected {q.SCHEMA_VERSION}")
        dim = self._meta("embedder_dimension")
        self._dim = int(dim) if dim else None

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def bind_embedder(self, name: str, dimension: int) -> None:
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
    def embedder(self) -> tuple[str, int] | None:
        name, dim = self._meta("embedder_name"), self._meta("embedder_dimension")
        return (name, int(dim)) if name and dim else None

    # ---------------------------------------------------------------- writes
    def write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray) -> IngestResult:
        if self._dim is None:
            raise InvalidInputError("bind an embedder to the store before writing records")
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if vecs.shape != (len(records), self._dim):
            raise InvalidInputError(f"vectors have shape {vecs.shape}; expected ({len(records)}, {self._dim})")
        if not np.isfinite(vecs).all():
            raise InvalidInputError("vectors must be finite (no NaN or infinity)")
        if len({r.record_id for r in records}) != len(records):
            raise InvalidInputError("a batch holds the same record twice")
        inserted = replaced = unchanged = 0
        with self._tx() as c:
            for s in sessions:
                c.execute(
                    "INSERT INTO sessions VALUES (?, ?, ?, ?) ON CONFLICT (user_id, session_id) DO UPDATE SET "
                    "occurred_at = excluded.occurred_at, annotations = excluded.annotations",
                    (s.user_id, s.session_id, s.occurred_at.timestamp(), json.dumps(dict(s.annotations))),
                )
            existing: dict[str, tuple] = {}
            ids = [r.record_id for r in records]
            for i in range(0, len(ids), _CHUNK):
                part = ids[i : i + _CHUNK]
                sql = ("SELECT record_id, rowid, content_hash, occurred_at, expires_at, annotations "
                       f"FROM records WHERE record_id IN ({','.join('?' * len(part))})")
                existing.update({row[0]: row[1:] for row in c.execute(sql, part)})
            rows, stale, touched = [], [], {}
            for rec, vec in zip(records, vecs, strict=True):
                old = existing.get(rec.record_id)
                new_sig = (rec.content_hash, rec.occurred_at.timestamp(),
                           None if rec.expires_at is None else rec.expires_at.timestamp(),
                           json.dumps(dict(rec.annotations), sort_keys=True))
                if old is not None:
                    old_sig = (old[1], old[2], old[3], json.dumps(json.loads(old[4]), sort_keys=True))
                    if old_sig == new_sig:
                        unchanged += 1
                        continue
                    stale.append(old[0])
                    replaced += 1
                else:
                    inserted += 1
                touched.setdefault(rec.user_id, False)
                if old is not None:
                    touched[rec.user_id] = True
                rows.append((
                    rec.record_id, rec.user_id, rec.session_id, rec.kind, rec.position, rec.turn_id, rec.role,
                    rec.speaker, rec.text, rec.index_text, new_sig[1], rec.ingested_at.timestamp(), new_sig[2],
                    json.dumps(dict(rec.annotations)), json.dumps(list(rec.source_ids)), rec.content_hash,
                    vec.tobytes(),
                ))
            for i in range(0, len(stale), _CHUNK):
                part = stale[i : i + _CHUNK]
                c.execute(f"DELETE FROM records WHERE rowid IN ({','.join('?' * len(part))})", part)
            c.executemany(
                "INSERT INTO records (record_id, user_id, session_id, kind, position, turn_id, role, speaker, "
                "text, index_text, occurred_at, ingested_at, expires_at, annotations, source_ids, content_hash, "
                "vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            for user_id, had_deletes in touched.items():
                self._bump(c, user_id, had_deletes)
        if self._wipe_pending:
            self._wipe_wal()
        return IngestResult(inserted, replaced, unchanged, tuple(ids))

    @staticmethod
    def _bump(c: sqlite3.Connection, user_id: str, deleted: bool) -> None:
        c.execute(
            "INSERT INTO users (user_id, write_seq, delete_seq) VALUES (?, 1, ?) ON CONFLICT (user_id) DO UPDATE "
            "SET write_seq = write_seq + 1, delete_seq = delete_seq + excluded.delete_seq",
            (user_id, int(deleted)),
        )

    def _erase(self, where: str, params: Sequence[object]) -> int:
        with self._tx() as c:
            users = [r[0] for r in c.execute(f"SELECT DISTINCT user_id FROM records WHERE {where}", params)]
            n = c.execute(f"DELETE FROM records WHERE {where}", params).rowcount
            for u in users:
                self._bump(c, u, True)
            if n:  # merge FTS segments so erased words are gone from the index too
                c.execute("INSERT INTO records_fts (records_fts) VALUES ('optimize')")
        if n or self._wipe_pending:
            self._wipe_wal()
        return n

    def _wipe_wal(self) -> None:
        """Copy the WAL into the file (where secure_delete has zeroed the erased rows) and truncate it, so
        erased content is left in neither. A reader in another connection still on an older snapshot
        blocks this; after waiting a little the wipe is left pending and retried after the next write and
        at close."""
        if self.path == ":memory:":
            return
        with self._lock:
            c = self._conn
            c.execute(f"PRAGMA busy_timeout = {min(self._timeout_ms, 2000)}")
            try:
                busy = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                c.execute(f"PRAGMA busy_timeout = {self._timeout_ms}")
            self._wipe_pending = bool(busy)

    def forget(self, user_id: str, session_id: str | None = None) -> int:
        if session_id is None:
            n = self._erase("user_id = ?", (user_id,))
            with self._tx() as c:
                c.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
        else:
            n = self._erase("user_id = ? AND session_id = ?", (user_id, session_id))
            with self._tx() as c:
                c.execute("DELETE FROM sessions WHERE user_id = ? AND session_id = ?", (user_id, session_id))
        return n

    def purge_expired(self, now: datetime | None = None) -> int:
        return self._erase("expires_at IS NOT NULL AND expires_at <= ?", ((now or utcnow()).timestamp(),))

    # ---------------------------------------------------------------- reads
    def _refresh(self, c: sqlite3.Connection, user_id: str) -> _UserMatrix:
        """The user's vectors and filter columns, brought up to date inside the caller's read transaction."""
        dim = self._dim or 0
        row = c.execute("SELECT write_seq, delete_seq FROM users WHERE user_id = ?", (user_id,)).fetchone()
        ws, ds = row if row else (0, 0)
        m = self._cache.get(user_id)
        if m is not None and (m.write_seq, m.delete_seq) == (ws, ds):
            return m
        if m is None or m.delete_seq != ds or m.write_seq > ws:
            m = _UserMatrix.empty(ws, ds, dim)
        after = m.max_rowid
        new = c.execute("SELECT count(*) FROM records WHERE user_id = ? AND rowid > ?", (user_id, after)).fetchone()[0]
        if new > len(m.rowids) - m.n:
            m.reserve(m.n + new if m.n == 0 else max(m.n + new, 2 * len(m.rowids)), dim)
        cur = c.execute(
            "SELECT rowid, vector, occurred_at, ingested_at, expires_at, session_id, kind FROM records "
            "WHERE user_id = ? AND rowid > ? ORDER BY rowid", (user_id, after))
        while rows := cur.fetchmany(_LOAD_ROWS):  # in slices: no second copy of every vector at once
            m.append(rows, dim)
        m.write_seq, m.delete_seq = ws, ds
        self._cache[user_id] = m
        return m

    def _mask(self, m: _UserMatrix, user_id: str, filters: SearchFilters, now: float,
              idx: np.ndarray | None = None) -> np.ndarray:
        """Which of the user's records (all, or those at positions ``idx``) pass ``filters`` at ``now``."""
        sel = slice(0, m.n) if idx is None else idx
        mask = m.expires[sel] > now
        if filters.session_ids is not None:
            mask &= np.isin(m.sessions[sel], list(filters.session_ids))
        if filters.kinds is not None:
            mask &= np.isin(m.kinds[sel], list(filters.kinds))
        for arr, lo, hi in ((m.occurred, filters.occurred_after, filters.occurred_before),
                            (m.ingested, filters.ingested_after, filters.ingested_before)):
            if lo is not None:
                mask &= arr[sel] >= lo.timestamp()
            if hi is not None:
                mask &= arr[sel] <= hi.timestamp()
        if filters.annotations:
            where, params = q.filter_clause(user_id, SearchFilters(annotations=filters.annotations), now)
            with self._lock:
                allowed = [r[0] for r in self._conn.execute(f"SELECT r.rowid FROM records r WHERE {where}", params)]
            mask &= np.isin(m.rowids[sel], allowed)
        return mask

    def _records_by_rowid(self, c: sqlite3.Connection, user_id: str, m: _UserMatrix,
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
            out.update({row[0]: _row_to_record(row) for row in c.execute(sql, [user_id, *part])})
        if missing:
            cache.update((r, out[r]) for r in missing if r in out)
            for old in list(itertools.islice(cache, max(0, len(cache) - _RECORD_CACHE))):
                del cache[old]
        return out

    def _hits(self, c: sqlite3.Connection, signal: str, user_id: str, m: _UserMatrix, rowids: np.ndarray,
              scores: np.ndarray, k: int) -> list[Hit]:
        """The ``k`` best (score, then rowid) of the candidates, as hits carrying their records."""
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
        if self._dim is None:
            return []
        qv = np.asarray(vector, dtype=np.float32).reshape(-1)
        if qv.shape[0] != self._dim or not np.isfinite(qv).all():
            raise InvalidInputError(f"query vector must be {self._dim} finite floats")
        t_now = (now or utcnow()).timestamp()
        with self._tx(write=False) as c:
            m = self._refresh(c, user_id)
            if m.n == 0:
                return []
            scores = (np.einsum("ij,j->i", m.vectors[: m.n], qv) if m.n <= _SINGLE_THREAD_ROWS
                      else m.vectors[: m.n] @ qv)
            idx = np.flatnonzero(self._mask(m, user_id, filters, t_now))
            if idx.size == 0:
                return []
            return self._hits(c, "vector", user_id, m, m.rowids[idx], scores[idx], k)

    def _fts(self, signal: str, user_id: str, match: str | None, k: int, filters: SearchFilters,
             now: datetime | None) -> list[Hit]:
        """BM25 of every match of the full-text index (one pass in C, no join), kept only where the row is
        one of the user's live records passing ``filters`` (checked against the in-memory columns)."""
        if match is None:
            return []
        t_now = (now or utcnow()).timestamp()
        with self._tx(write=False) as c:
            rows = c.execute(q.FTS_SCORES, (match,)).fetchall()
            if not rows:
                return []
            m = self._refresh(c, user_id)
            if m.n == 0:
                return []
            rowids = np.fromiter((r[0] for r in rows), np.int64, len(rows))
            scores = np.fromiter((r[1] for r in rows), np.float64, len(rows))
            pos = np.minimum(np.searchsorted(m.rowids[: m.n], rowids), m.n - 1)  # the user's rowids ascend
            mine = np.flatnonzero(m.rowids[pos] == rowids)
            keep = mine[self._mask(m, user_id, filters, t_now, pos[mine])]
            if keep.size == 0:
                return []
            return self._hits(c, signal, user_id, m, rowids[keep], scores[keep], k)

    def text_search(self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS,
                    now: datetime | None = None) -> list[Hit]:
        return self._fts("bm25", user_id, q.match_any(query), k, filters, now)

    def phrase_search(self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        return self._fts("entity", user_id, q.match_phrases(phrases), k, filters, now)

    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        out = []
        with self._lock:
            for i in range(0, len(record_ids), _CHUNK):
                part = list(record_ids[i : i + _CHUNK])
                sql = (f"SELECT {q.RECORD_COLUMNS} FROM records r WHERE +r.user_id = ? "
                       f"AND r.record_id IN ({','.join('?' * len(part))})")
                out.extend(_row_to_record(r) for r in self._conn.execute(sql, [user_id, *part]))
        return out

    def list_records(self, user_id: str, filters: SearchFilters = NO_FILTERS, *, limit: int | None = None,
                     newest_first: bool = False, now: datetime | None = None) -> list[MemoryRecord]:
        where, params = q.filter_clause(user_id, filters, (now or utcnow()).timestamp())
        if limit is not None:
            params["limit"] = limit
        with self._lock:
            rows = self._conn.execute(q.list_select(where, newest_first, limit is not None), params).fetchall()
        return [_row_to_record(r) for r in rows]

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT occurred_at, annotations FROM sessions WHERE user_id = ? AND session_id = ?",
                (user_id, session_id)).fetchone()
        if row is None:
            return None
        return Session(user_id, session_id, _dt(row[0]), frozen_mapping(json.loads(row[1])))

    def list_sessions(self, user_id: str) -> list[Session]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT session_id, occurred_at, annotations FROM sessions WHERE user_id = ? "
                "ORDER BY occurred_at, session_id", (user_id,)).fetchall()
        return [Session(user_id, s, _dt(o), frozen_mapping(json.loads(a))) for s, o, a in rows]

    def count(self, user_id: str | None = None) -> int:
        now = utcnow().timestamp()
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

    def lookup_vectors(self, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(content_hashes), _CHUNK):
                part = list(content_hashes[i : i + _CHUNK])
                sql = (f"SELECT content_hash, vector FROM records WHERE content_hash IN "
                       f"({','.join('?' * len(part))}) GROUP BY content_hash")
                for h, blob in self._conn.execute(sql, part):
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
                "schema_version": self._meta("schema_version"),
            }
        if self.path != ":memory:":
            out["file_bytes"] = sum(os.path.getsize(p) for p in (self.path, self.path + "-wal")
                                    if os.path.exists(p))
        return out

    def close(self) -> None:
        with self._lock:
            if self._wipe_pending:
                try:
                    self._wipe_wal()
                except sqlite3.Error:  # already closed: SQLite's own last-close checkpoint applies
                    pass
            self._conn.close()
            self._cache.clear()
