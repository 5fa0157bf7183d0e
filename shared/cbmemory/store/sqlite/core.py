"""The embedded store's file (``SQLiteFile``, the part every other part of ``SQLiteStore`` uses): the file and
its one connection (opened, checked and upgraded by file.py, used under one lock, in transactions), the
embedder binding, and each user's columns in memory (cache.py: vectors, term ids, sparse postings), brought
up to date on each search and turned into hits. The parts built on it: the listings (reads.py), the sparse
vectors (sparse.py); the store itself (store.py) holds them and adds the searches, writes and erasures.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from ...errors import EmbedderMismatchError, NotAStoreError, ReadOnlyStoreError, StoreUnavailableError
from ...models import Hit, MemoryRecord, frozen_mapping
from ..candidates import Candidates
from ..turns import write_wait
from . import file as sf
from . import sql as q
from .cache import LOAD_COLUMNS, UserCache, UserColumns
from .sql import row_to_record

CHUNK = 500  # bound on parameters per IN (...) list
_LOAD_ROWS = 2_048  # rows per slice when a user's vectors are read into memory
_RECORD_CACHE = 2_048  # records of recent hits kept per user (oldest dropped first)


class SQLiteFile:
    """One SQLite file behind a lock, with the users' columns cached in memory; ``SQLiteStore`` is the store
    (its docstring and ``__init__`` say what the arguments mean)."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 30.0, cache_rows: int = 2_000_000,
                 create: bool = True, read_only: bool = False):
        """``cache_rows``: records whose vectors and full-text index are kept in memory, over all users
        (about 2 KB each with 384-dimension vectors); the least recently searched users are dropped first.
        ``create``: a missing file is made a new store (else ``StoreNotFoundError``). ``read_only``: only
        read; never creates or writes the file (writes raise ``ReadOnlyStoreError``). The way to read a
        store whose file or directory is read-only, which without it is refused at open."""
        self.path = str(path)
        self.read_only = read_only
        self.lock = sf.StoreLock()  # every use of the connection holds it; it types the file's errors
        self._timeout_ms = int(timeout * 1000)
        self.cache = UserCache(cache_rows)
        self.dim: int | None = None
        self._checked = False  # the file passed quick_check, or this object made it (see check_writable)
        if self.path != ":memory:" and Path(self.path).is_dir():
            raise NotAStoreError(f"{self.path} is a directory, not a cbmemory store file")
        # read_only opens a ``file:...?mode=ro`` URI; in a read-only directory, where SQLite cannot create the
        # -wal and -shm files, it falls back to ``immutable=1`` (exact when no -wal holds unmerged changes;
        # refused when one does): see file.connect
        self.conn = sf.connect(self.path, create=create, read_only=read_only, timeout=timeout)
        self.lock.conn = self.conn
        try:
            self._open(create=create)
        except sqlite3.Error as exc:  # not about the file itself (those are typed): another file or schema
            self.conn.close()
            raise sf.opening_error(exc, self.path) from exc
        except BaseException:
            self.conn.close()
            raise
        self.conn.opening = False  # a store: "not a database" from now on means a damaged file

    def check_writable(self) -> None:
        """Called first by every method that writes. Refuses a store opened ``read_only`` and, once per
        store object, checks the file with SQLite's ``quick_check`` (``CorruptStoreError`` if it fails), so
        nothing is written into a damaged file, then makes the parts a store of the current schema made
        before them lacks (``file.LATER``; not one an upgrade is about to bring up to date). The check
        reads every page: the first write after opening a large store waits for it."""
        if self.read_only:
            raise sf.opened_read_only(self.path)
        if not self._checked:
            missing: list[str] = []
            with self.lock:
                if not self._checked and self.path != ":memory:":
                    sf.check_integrity(self.conn, self.path)
                    if self.meta("schema_version") == q.SCHEMA_VERSION:
                        missing = sf.missing_later(self.conn)
                self._checked = True
            if missing:
                with self.tx() as c:
                    for stmt in sf.missing_later(c):  # read again under the write lock: another may have made them
                        c.execute(stmt)

    # ---------------------------------------------------------------- setup
    def _open(self, *, create: bool = True) -> None:
        """Check the file is a cbmemory store of this schema (an empty file becomes one when ``create``
        and not ``read_only``: file.prepare) and set the connection up. Nothing here writes to an
        existing store but the upgrade of an older schema."""
        if sf.prepare(self.conn, self.path, create=create, read_only=self.read_only):
            self._checked = True  # made by this object: nothing to check before writing
        version = self.meta("schema_version")
        if version in sf.UPGRADABLE:
            if self.read_only:
                raise ReadOnlyStoreError(f"{self.path} has schema version {version}, which must be upgraded (a "
                                         "write) before it can be read; open it once without read_only=True")
            self.check_writable()  # the upgrade writes: not into a damaged file
            with self.tx() as c:  # every step (2 -> 3 -> 4) in one transaction
                pending = sf.upgrade(c)
            if pending:
                self.wipe()  # from 2: the old index's pages held every user's words
            version = self.meta("schema_version")
        if version != q.SCHEMA_VERSION:
            raise NotAStoreError(f"{self.path} has schema version {version!r}; expected {q.SCHEMA_VERSION}")
        dim = self.meta("embedder_dimension")
        self.dim = int(dim) if dim else None

    def meta(self, key: str) -> str | None:
        with self.lock:
            return sf.meta(self.conn, key)

    @contextmanager
    def tx(self, write: bool = True) -> Iterator[sqlite3.Connection]:
        """A transaction under the store's lock. A write first takes the file's write lock without waiting
        inside SQLite: while another connection holds it, this one lets go of the store's lock, sleeps
        (1 ms, doubling to 50 ms) and tries again, so the process's other threads read meanwhile, for at
        most the store's ``timeout`` (less inside ``turns.waiting_at_most``), then ``StoreUnavailableError``."""
        if write:
            self._take_write_lock()  # returns holding self.lock, inside BEGIN IMMEDIATE
            try:
                with sf.committed(self.conn) as c:
                    yield c
            except BaseException as exc:
                self.lock.__exit__(type(exc), exc, exc.__traceback__)  # a sqlite3.Error leaves typed
                raise
            self.lock.__exit__(None, None, None)
            return
        with self.lock, sf.transaction(self.conn, write) as c:
            yield c

    def _take_write_lock(self) -> None:
        wait = write_wait(self._timeout_ms / 1000)
        deadline = time.monotonic() + wait
        pause = 0.001
        while True:
            self.lock.__enter__()
            try:
                if sf.begin_immediate(self.conn, self._timeout_ms):
                    return
            except BaseException as exc:
                self.lock.__exit__(type(exc), exc, exc.__traceback__)
                raise
            self.lock.__exit__(None, None, None)
            if time.monotonic() >= deadline:
                raise StoreUnavailableError(f"{self.path} is locked by another connection (waited {wait:g} s for "
                                            "its write lock); try again")
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.05)

    def bind_embedder(self, name: str, dimension: int) -> None:
        if self.read_only:  # check only: a store with no vectors yet is searched as empty
            have = self.bound_embedder
            if have is not None and have != (name, dimension):
                raise EmbedderMismatchError(
                    f"{self.path} holds vectors from {have[0]!r} ({have[1]} dimensions); "
                    f"it cannot be searched with {name!r} ({dimension} dimensions)")
            self.dim = dimension if have is not None else None
            return
        if self.bound_embedder == (name, dimension):  # bound already: a read, never a write transaction
            self.dim = dimension
            return
        with self.tx() as c:
            have_name, have_dim = self.meta("embedder_name"), self.meta("embedder_dimension")
            if have_name is None:
                c.execute("INSERT INTO meta VALUES ('embedder_name', ?), ('embedder_dimension', ?)",
                          (name, str(dimension)))
            elif have_name != name or int(have_dim or 0) != dimension:
                raise EmbedderMismatchError(
                    f"{self.path} holds vectors from {have_name!r} ({have_dim} dimensions); "
                    f"it cannot be searched with {name!r} ({dimension} dimensions)"
                )
        self.dim = dimension

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        name, dim = self.meta("embedder_name"), self.meta("embedder_dimension")
        return (name, int(dim)) if name and dim else None

    def dimension(self) -> int | None:
        """The bound embedder's dimension, read from the file again while none is known: a store opened
        before any vector was written sees the binding another process made since."""
        if self.dim is None:
            dim_text = self.meta("embedder_dimension")
            self.dim = int(dim_text) if dim_text else None
        return self.dim

    def wipe(self) -> bool:
        """Finish a pending wipe of erased records from the file's bytes (file.wipe)."""
        if self.path == ":memory:":
            return True
        with self.lock:
            return sf.wipe(self.conn, self._timeout_ms)

    # ---------------------------------------------------------------- the users' columns
    def refresh(self, c: sqlite3.Connection, user_id: str) -> UserColumns:
        """The user's columns, brought up to date inside the caller's read transaction."""
        dim = self.dimension() or 0
        row = c.execute("SELECT write_seq, delete_seq FROM users WHERE user_id = ?", (user_id,)).fetchone()
        ws, ds = row if row else (0, 0)
        m = self.cache.get(user_id)
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
        self.cache.put(user_id, m)
        return m

    def records_by_rowid(self, c: sqlite3.Connection, user_id: str, m: UserColumns,
                          rowids: Sequence[int]) -> dict[int, MemoryRecord]:
        cache = m.records
        out = {r: cache[r] for r in rowids if r in cache}
        missing = [r for r in rowids if r not in out]
        for i in range(0, len(missing), CHUNK):
            part = missing[i : i + CHUNK]
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

    @staticmethod
    def top(user_id: str, m: UserColumns, idx: np.ndarray, scores: np.ndarray, k: int) -> Candidates:
        """The ``k`` best (score, then rowid) of the records at positions ``idx``, as columns."""
        if idx.size == 0:
            return Candidates.empty(user_id)
        scores = scores[idx]
        if idx.size > k:
            part = np.argpartition(-scores, k - 1)[:k]
            idx, scores = idx[part], scores[part]
        order = np.lexsort((m.rowids[idx], -scores))
        idx = idx[order]
        return Candidates(user_id, m.rowids[idx], m.ids[idx], scores[order].astype(np.float64), m.sessions[idx], m.kinds[idx],
                          m.positions[idx], m.occurred[idx], m.speakers[idx], m.echoes[idx])

    def read_candidates(self, found: Candidates, at: list[int]) -> list[MemoryRecord | None]:
        rowids = found.keys[at].tolist()
        with self.tx(write=False) as c:
            m = self.refresh(c, found.user_id)
            recs = self.records_by_rowid(c, found.user_id, m, rowids)
        return [recs.get(r) for r in rowids]

    @staticmethod
    def as_hits(signal: str, found: Candidates, records: Mapping[int, MemoryRecord]) -> list[Hit]:
        hits = []
        for rank, (rowid, score) in enumerate(zip(found.keys.tolist(), found.scores.tolist(), strict=True), 1):
            rec = records.get(rowid)
            if rec is not None:
                hits.append(Hit(rec, score, frozen_mapping({signal: score}), frozen_mapping({signal: rank})))
        return hits
