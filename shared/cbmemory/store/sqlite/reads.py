"""The embedded store's listings (``Listings``, a part of ``SQLiteStore``): records by id, in
conversation order under filters (SQL: sql.filter_clause), around anchors (windows read by position),
sessions, counts, users and the stored vectors the embedding cache looks up. Each is one SQL statement per
``CHUNK`` of ids or windows, read straight from the file (never from the columns in memory).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from ...dates import utcnow
from ...models import MemoryRecord, SearchFilters, Session, frozen_mapping
from . import file as sf
from . import sql as q
from .core import CHUNK, SQLiteFile
from .sql import row_to_record, stored_time


class Listings:
    """The listings of ``SQLiteStore`` (its contract methods of the same names, inputs checked), on its file."""

    def __init__(self, db: SQLiteFile):
        self._db = db

    def get_records(self, user_id: str, record_ids: list[str]) -> list[MemoryRecord]:
        out: list[MemoryRecord] = []
        with self._db.lock:
            for i in range(0, len(record_ids), CHUNK):
                part = record_ids[i : i + CHUNK]
                sql = (f"SELECT {q.RECORD_COLUMNS} FROM records r WHERE +r.user_id = ? "
                       f"AND r.record_id IN ({','.join('?' * len(part))})")
                out.extend(row_to_record(r) for r in self._db.conn.execute(sql, [user_id, *part]))
        return out

    def superseding(self, user_id: str, record_ids: list[str], now: datetime) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        with self._db.lock:
            for i in range(0, len(record_ids), CHUNK):
                part = record_ids[i : i + CHUNK]
                sql = q.SUPERSEDING.format(ids=",".join("?" * len(part)))
                for newer, older in self._db.conn.execute(sql, [user_id, now.timestamp(), *part]):
                    out.setdefault(older, []).append(newer)
        return {k: tuple(v) for k, v in out.items()}

    def list_records(self, user_id: str, filters: SearchFilters, limit: int | None, newest_first: bool,
                      now: datetime) -> list[MemoryRecord]:
        where, params = q.filter_clause(user_id, filters, now.timestamp())
        if limit is not None:
            params["limit"] = limit
        with self._db.lock:
            rows = self._db.conn.execute(q.list_select(where, newest_first, limit is not None), params).fetchall()
        return [row_to_record(r) for r in rows]

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        with self._db.lock:
            row = self._db.conn.execute(
                "SELECT occurred_at, annotations FROM sessions WHERE user_id = ? AND session_id = ?",
                (user_id, session_id)).fetchone()
        if row is None:
            return None
        return Session(user_id, session_id, stored_time(row[0]), frozen_mapping(json.loads(row[1])))

    def list_sessions(self, user_id: str) -> list[Session]:
        with self._db.lock:
            rows = self._db.conn.execute(
                "SELECT session_id, occurred_at, annotations FROM sessions WHERE user_id = ? "
                "ORDER BY occurred_at, session_id", (user_id,)).fetchall()
        return [Session(user_id, s, stored_time(o), frozen_mapping(json.loads(a))) for s, o, a in rows]

    def count(self, user_id: str | None = None) -> int:
        now = utcnow().timestamp()
        args: tuple[object, ...]
        with self._db.lock:
            if user_id is None:
                sql, args = "SELECT count(*) FROM records WHERE expires_at IS NULL OR expires_at > ?", (now,)
            else:
                sql = "SELECT count(*) FROM records WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)"
                args = (user_id, now)
            return int(self._db.conn.execute(sql, args).fetchone()[0])

    def users(self) -> list[str]:
        with self._db.lock:
            return [r[0] for r in self._db.conn.execute("SELECT DISTINCT user_id FROM records ORDER BY user_id")]

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        """The records' vectors by the hash of their indexed text, then, for the hashes left, the vectors kept of
        texts derived from the user's turns (``sql.DERIVED_TABLE``; a store made before it has none)."""
        out: dict[str, np.ndarray] = {}
        with self._db.lock:
            c = self._db.conn
            for table in ("records", "derived"):
                left = [h for h in dict.fromkeys(content_hashes) if h not in out]
                if not left or (table == "derived" and not sf.has_table(c, table)):
                    break
                for i in range(0, len(left), CHUNK):
                    part = left[i : i + CHUNK]
                    sql = (f"SELECT content_hash, vector FROM {table} WHERE user_id = ? AND content_hash IN "
                           f"({','.join('?' * len(part))}) GROUP BY content_hash")
                    for h, blob in c.execute(sql, [user_id, *part]):
                        out[h] = np.frombuffer(blob, dtype=np.float32).copy()
        return out
