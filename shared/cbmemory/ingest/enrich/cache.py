"""The extraction cache, keyed by (user, prompt version, input hash), and the log of what failed: in memory,
or in a small SQLite file of its own (``SQLiteCache``) so a re-ingest, or another store ingesting the same
conversation for the same user, costs no model call.

The cache is per user, like the embedding cache: a text another user already had extracted is a miss (a
model call) for this one, so the cache's speed tells no tenant what another one wrote. Each entry and
failure is stored with its user and session, and ``forget(user_id, session_id=None)`` removes them: the
extractions (facts, events, summaries), the raw replies and the failures log's raw text. ``SQLiteCache``
erases in one transaction with ``secure_delete`` on, then rebuilds the file (VACUUM) and truncates its WAL,
so nothing of the erased rows stays in the file's bytes (the store's own erasure does the same). An entry
is tagged with the session whose write made it; the same user's identical prompt in another session is a
hit on it, and forgetting the tagging session drops it (a later call costs a model call, nothing more).

The cache file has a schema version (``PRAGMA user_version``, ``CACHE_SCHEMA_VERSION``). A file of an older
format (before entries were keyed by user: they could be neither attributed nor erased per user) is
recreated empty when opened, and its old rows wiped from the file's bytes: it is only a cache. A file of a
newer format is refused (``ValueError``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...dates import utcnow
from ..slots import clean_key, clean_value
from .parsing import ExtractedEvent

CACHE_SCHEMA_VERSION = 2  # 1 (user_version 0): keyed by (prompt version, input hash) only, for every user


@dataclass(frozen=True, slots=True)
class Failure:
    """What failed, kept instead of losing anything: the raw turns are already stored."""

    task: str
    user_id: str
    session_id: str
    error: str
    input_hash: str
    prompt_version: str
    source_ids: tuple[str, ...] = ()
    raw: str = ""
    attempts: int = 0
    at: str = ""


class ExtractionCache(Protocol):
    """Validated results by (user, prompt version, input hash), each stored with its session, and the
    failures log; ``forget`` erases a user's (or one session's) entries and failures."""

    def get(self, user_id: str, prompt_version: str, key: str) -> Any | None: ...

    def put(self, user_id: str, session_id: str, prompt_version: str, key: str, task: str, value: Any,
            raw: str) -> None: ...

    def record_failure(self, failure: Failure) -> None: ...

    def failures(self, user_id: str | None = None) -> list[Failure]: ...

    def forget(self, user_id: str, session_id: str | None = None) -> int: ...


def _matches(user_id: str, session_id: str | None, user: str, session: str) -> bool:
    return user == user_id and (session_id is None or session == session_id)


class MemoryCache:
    """An in-process cache (lost on exit)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str, str], tuple[str, Any]] = {}  # (user, version, key) -> (session, value)
        self._failures: list[Failure] = []
        self._lock = threading.Lock()

    def get(self, user_id: str, prompt_version: str, key: str) -> Any | None:
        with self._lock:
            hit = self._values.get((user_id, prompt_version, key))
        return None if hit is None else hit[1]

    def put(self, user_id: str, session_id: str, prompt_version: str, key: str, task: str, value: Any,
            raw: str) -> None:
        with self._lock:
            self._values[(user_id, prompt_version, key)] = (session_id, value)

    def record_failure(self, failure: Failure) -> None:
        with self._lock:
            self._failures.append(failure)

    def failures(self, user_id: str | None = None) -> list[Failure]:
        with self._lock:
            return [f for f in self._failures if user_id is None or f.user_id == user_id]

    def forget(self, user_id: str, session_id: str | None = None) -> int:
        """Drop the user's entries and failures (of one session when ``session_id`` is given); returns how
        many were dropped."""
        with self._lock:
            gone = [k for k, (session, _) in self._values.items() if _matches(user_id, session_id, k[0], session)]
            for k in gone:
                del self._values[k]
            kept = [f for f in self._failures if not _matches(user_id, session_id, f.user_id, f.session_id)]
            n = len(gone) + len(self._failures) - len(kept)
            self._failures = kept
        return n

    def __len__(self) -> int:
        with self._lock:
            return len(self._values)


_CACHE_TABLES = ("llm_cache", "llm_failures")
_CACHE_SCHEMA = (
    """CREATE TABLE llm_cache (
        user_id TEXT NOT NULL, session_id TEXT NOT NULL, prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL,
        task TEXT NOT NULL, value TEXT NOT NULL, raw TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (user_id, prompt_version, input_hash))""",
    """CREATE TABLE llm_failures (
        id INTEGER PRIMARY KEY, at TEXT NOT NULL, prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL,
        task TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, source_ids TEXT NOT NULL,
        error TEXT NOT NULL, raw TEXT NOT NULL, attempts INTEGER NOT NULL)""",
    "CREATE INDEX llm_failures_user ON llm_failures (user_id, session_id)",
)


def _begin(c: sqlite3.Connection) -> None:
    c.execute("BEGIN IMMEDIATE")


def _wipe(c: sqlite3.Connection) -> bool:
    """Rebuild the file so no erased row survives in free pages (secure_delete zeroes a row where it lies,
    not the stale copies b-tree rebalancing left), then copy the WAL in and truncate it. Returns whether the
    WAL could be truncated: a reader on an older snapshot in another connection blocks that; the WAL is then
    truncated by the next ``forget`` or when the file's last connection closes."""
    c.execute("VACUUM")
    return c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0


class SQLiteCache:
    """The cache and failures log in a small SQLite file of their own (opened on first use), so a
    re-ingest, or another store ingesting the same conversation for the same user, costs no model call.
    Entries and failures carry their user and session; ``forget`` erases them from the file's bytes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            try:
                conn.execute("PRAGMA secure_delete=ON")  # erased rows are zeroed where they lie
                conn.execute("PRAGMA journal_mode=WAL")
                if self._prepare(conn):
                    _wipe(conn)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _prepare(self, c: sqlite3.Connection) -> bool:
        """Create the tables, or recreate those of an older format; returns whether old rows were dropped."""
        _begin(c)
        try:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version > CACHE_SCHEMA_VERSION:
                raise ValueError(f"{self.path} is an extraction cache of a newer format ({version}; this "
                                 f"version of cbmemory reads {CACHE_SCHEMA_VERSION})")
            dropped = False
            if version < CACHE_SCHEMA_VERSION:
                for table in _CACHE_TABLES:
                    dropped |= c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                         (table,)).fetchone() is not None
                    c.execute(f"DROP TABLE IF EXISTS {table}")
                for stmt in _CACHE_SCHEMA:
                    c.execute(stmt)
                c.execute(f"PRAGMA user_version = {CACHE_SCHEMA_VERSION}")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")
        return dropped

    def get(self, user_id: str, prompt_version: str, key: str) -> Any | None:
        with self._lock:
            row = self._c().execute(
                "SELECT task, value FROM llm_cache WHERE user_id = ? AND prompt_version = ? AND input_hash = ?",
                (user_id, prompt_version, key)).fetchone()
        return None if row is None else _decode(row[0], json.loads(row[1]))

    def put(self, user_id: str, session_id: str, prompt_version: str, key: str, task: str, value: Any,
            raw: str) -> None:
        with self._lock:
            self._c().execute(
                "INSERT OR REPLACE INTO llm_cache (user_id, session_id, prompt_version, input_hash, task, value, "
                "raw, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (user_id, session_id, prompt_version, key, task, json.dumps(_encode(value), ensure_ascii=False),
                 raw, utcnow().isoformat(timespec="seconds")))

    def record_failure(self, failure: Failure) -> None:
        with self._lock:
            self._c().execute(
                "INSERT INTO llm_failures (at, prompt_version, input_hash, task, user_id, session_id, source_ids, "
                "error, raw, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (failure.at, failure.prompt_version, failure.input_hash, failure.task, failure.user_id,
                 failure.session_id, json.dumps(list(failure.source_ids)), failure.error, failure.raw,
                 failure.attempts))

    def failures(self, user_id: str | None = None) -> list[Failure]:
        sql = ("SELECT task, user_id, session_id, error, input_hash, prompt_version, source_ids, raw, attempts, at "
               "FROM llm_failures")
        with self._lock:
            if user_id is None:
                rows = self._c().execute(sql + " ORDER BY id").fetchall()
            else:
                rows = self._c().execute(sql + " WHERE user_id = ? ORDER BY id", (user_id,)).fetchall()
        return [Failure(r[0], r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6])), r[7], r[8], r[9]) for r in rows]

    def forget(self, user_id: str, session_id: str | None = None) -> int:
        """Erase the user's entries and failures (of one session when ``session_id`` is given) in one
        transaction, then rebuild the file and truncate its WAL so none of their bytes remain. Returns how
        many entries and failures were erased."""
        where, args = "user_id = ?", [user_id]
        if session_id is not None:
            where, args = where + " AND session_id = ?", [user_id, session_id]
        with self._lock:
            c = self._c()
            _begin(c)
            try:
                n = c.execute(f"DELETE FROM llm_cache WHERE {where}", args).rowcount
                n += c.execute(f"DELETE FROM llm_failures WHERE {where}", args).rowcount
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")
            if n:
                _wipe(c)
            else:  # nothing new to erase; finish an earlier erase whose WAL a reader kept
                c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return n

    def __len__(self) -> int:
        with self._lock:
            return self._c().execute("SELECT count(*) FROM llm_cache").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _encode(value: Any) -> Any:
    if isinstance(value, list) and all(isinstance(v, ExtractedEvent) for v in value):
        return [{"who": e.who, "what": e.what, "when": e.when, "date": e.date, "where": e.where,
                 "turns": list(e.turns), **({"key": e.key, "value": e.value} if e.key else {})} for e in value]
    return value


def _decode(task: str, value: Any) -> Any:
    """A cached result as the runner returned it; an entry written before slot keys reads without them, and
    a key that is not one (a file edited by hand) is dropped, as the parser drops it."""
    if task == "events":
        out = []
        for e in value:
            key, val = clean_key(e.get("key")), clean_value(e.get("value"))
            out.append(ExtractedEvent(e["who"], e["what"], e.get("when"), e.get("date"), e.get("where"),
                                      tuple(e.get("turns") or ()), key if val else None, val if key else None))
        return out
    return value


__all__ = ["CACHE_SCHEMA_VERSION", "ExtractionCache", "Failure", "MemoryCache", "SQLiteCache"]
