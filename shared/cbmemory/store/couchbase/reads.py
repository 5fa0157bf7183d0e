"""The Couchbase store's listings (``CouchbaseReads``, a part of ``couchbase.CouchbaseStore``): records and
sessions by key (KV, each body checked to be the user's), and by SQL++ with named parameters at
``request_plus`` consistency (requests.py) the listing under filters, the windows around anchors,
the sessions, counts, users and the stored vectors the embedding cache looks up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np

from ...dates import utcnow
from ...models import MemoryRecord, SearchFilters, Session
from ..windows import Window
from . import docs as d
from . import requests as q
from .client import CHUNK
from .core import CouchbaseBucket


class Listings:
    """The listings of ``CouchbaseStore`` (its contract methods of the same names, inputs checked), on its
    bucket."""

    def __init__(self, bucket: CouchbaseBucket):
        self._b = bucket

    def get_records(self, user_id: str, record_ids: list[str]) -> list[MemoryRecord]:
        record_ids = list(dict.fromkeys(record_ids))
        keys = [d.record_key(r) for r in record_ids]
        bodies = self._b.client.get_many(self._b.memory_collection, keys)
        out = []
        for rid, key in zip(record_ids, keys, strict=True):
            body = bodies.get(key)
            if body is not None and body.get("user_id") == user_id and body.get("record_id") == rid:
                out.append(d.body_to_record(body))
        return out

    def superseding(self, user_id: str, record_ids: list[str], now: datetime) -> dict[str, tuple[str, ...]]:
        asked = list(dict.fromkeys(record_ids))
        out: dict[str, list[str]] = {}
        for i in range(0, len(asked), CHUNK):
            part = asked[i : i + CHUNK]
            wanted = set(part)
            for row in self._b.client.query(q.superseding(self._b.memory_collection, user_id, part, now)):
                if isinstance(row, Mapping) and isinstance(row.get("supersedes"), list):
                    for older in row["supersedes"]:
                        if older in wanted:
                            out.setdefault(older, []).append(row["record_id"])
        return {k: tuple(v) for k, v in out.items()}

    def list_records(self, user_id: str, filters: SearchFilters, limit: int | None, newest_first: bool,
                      now: datetime) -> list[MemoryRecord]:
        st = q.list_records(self._b.memory_collection, user_id, filters, now, limit=limit,
                            newest_first=newest_first)
        return [d.body_to_record(row) for row in self._b.client.query(st)]

    def neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        """SQL++ (``requests.neighbours``), ``CHUNK`` windows a statement, each read by position."""
        records = [d.body_to_record(row) for i in range(0, len(merged), CHUNK) for row in self._b.client.query(
            q.neighbours(self._b.memory_collection, user_id, merged[i : i + CHUNK], filters, now))]
        if len(merged) > CHUNK:  # each statement's rows are in order; all of them, in list_records' order
            records.sort(key=lambda r: (r.occurred_at, r.session_id, r.position, d.record_key(r.record_id)))
        return records

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        body = self._b.client.get_one(self._b.sessions_collection, d.session_key(user_id, session_id))
        if body is None or body.get("user_id") != user_id or body.get("session_id") != session_id:
            return None
        return d.body_to_session(body)

    def list_sessions(self, user_id: str) -> list[Session]:
        return [d.body_to_session(row) for row in self._b.client.query(q.list_sessions(self._b.sessions_collection, user_id))]

    def count(self, user_id: str | None = None) -> int:
        rows = self._b.client.query(q.count_records(self._b.memory_collection, utcnow(), user_id))
        return int(rows[0]) if rows else 0

    def users(self) -> list[str]:
        return sorted(set(self._b.client.query(q.list_users(self._b.memory_collection))))

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(content_hashes))
        for i in range(0, len(hashes), CHUNK):
            for row in self._b.client.query(q.lookup_vectors(self._b.memory_collection, user_id, hashes[i : i + CHUNK])):
                out.setdefault(row["content_hash"], np.asarray(row[d.VECTOR_FIELD], dtype=np.float32))
        return out
