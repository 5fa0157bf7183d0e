"""The extraction cache, keyed by (prompt version, input hash), and the log of what failed: in memory, or
in a small SQLite file of its own (``SQLiteCache``) so a re-ingest, or another store ingesting the same
conversation, costs no model call."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...dates import utcnow
from .parsing import ExtractedEvent


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
    """Validated results by (prompt version, input hash), and the failures log."""

    def get(self, prompt_version: str, key: str) -> Any | None: ...

    def put(self, prompt_version: str, key: str, task: str, value: Any, raw: str) -> None: ...

    def record_failure(self, failure: Failure) -> None: ...

    def failures(self) -> list[Failure]: ...


class MemoryCache:
    """An in-process cache (lost on exit)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], Any] = {}
        self._failures: list[Failure] = []
        self._lock = threading.Lock()

    def get(self, prompt_version: str, key: str) -> Any | None:
        with self._lock:
            return self._values.get((prompt_version, key))

    def put(self, prompt_version: str, key: str, task: str, value: Any, raw: str) -> None:
        with self._lock:
            self._values[(prompt_version, key)] = value

    def record_failure(self, failure: Failure) -> None:
        with self._lock:
            self._failures.append(failure)

    def failures(self) -> list[Failure]:
        with self._lock:
            return list(self._failures)

    def __len__(self) -> int:
        return len(self._values)


_CACHE_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS llm_cache (
        prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL, task TEXT NOT NULL,
        value TEXT NOT NULL, raw TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (prompt_version, input_hash))""",
    """CREATE TABLE IF NOT EXISTS llm_failures (
        id INTEGER PRIMARY KEY, at TEXT NOT NULL, prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL,
        task TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, source_ids TEXT NOT NULL,
        error TEXT NOT NULL, raw TEXT NOT NULL, attempts INTEGER NOT NULL)""",
)


class SQLiteCache:
    """The cache and failures log in a small SQLite file of their own (opened on first use), so a
    re-ingest, or another store ingesting the same conversation, costs no model call."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _c(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            for stmt in _CACHE_SCHEMA:
                conn.execute(stmt)
            self._conn = conn
        return self._conn

    def get(self, prompt_version: str, key: str) -> Any | None:
        with self._lock:
            row = self._c().execute("SELECT task, value FROM llm_cache WHERE prompt_version = ? AND input_hash = ?",
                                    (prompt_version, key)).fetchone()
        return None if row is None else _decode(row[0], json.loads(row[1]))

    def put(self, prompt_version: str, key: str, task: str, value: Any, raw: str) -> None:
        with self._lock:
            self._c().execute(
                "INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)",
                (prompt_version, key, task, json.dumps(_encode(value), ensure_ascii=False), raw,
                 utcnow().isoformat(timespec="seconds")))

    def record_failure(self, failure: Failure) -> None:
        with self._lock:
            self._c().execute(
                "INSERT INTO llm_failures (at, prompt_version, input_hash, task, user_id, session_id, source_ids, "
                "error, raw, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (failure.at, failure.prompt_version, failure.input_hash, failure.task, failure.user_id,
                 failure.session_id, json.dumps(list(failure.source_ids)), failure.error, failure.raw,
                 failure.attempts))

    def failures(self) -> list[Failure]:
        with self._lock:
            rows = self._c().execute(
                "SELECT task, user_id, session_id, error, input_hash, prompt_version, source_ids, raw, attempts, at "
                "FROM llm_failures ORDER BY id").fetchall()
        return [Failure(r[0], r[1], r[2], r[3], r[4], r[5], tuple(json.loads(r[6])), r[7], r[8], r[9]) for r in rows]

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
                 "turns": list(e.turns)} for e in value]
    return value


def _decode(task: str, value: Any) -> Any:
    if task == "events":
        return [ExtractedEvent(e["who"], e["what"], e.get("when"), e.get("date"), e.get("where"),
                               tuple(e.get("turns") or ())) for e in value]
    return value


__all__ = ["ExtractionCache", "Failure", "MemoryCache", "SQLiteCache"]
