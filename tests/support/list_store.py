"""A store test double for the retrieval engine: preset ranked lists per signal, each search returning the
first ``k`` and logging (signal, k). Only what ``retrieve`` calls; the engine is what is under test."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cbmemory.models import SearchFilters
from cbmemory.store.candidates import Candidates
from cbmemory.store.windows import in_windows, windows


class ListStore:
    def __init__(self, vector: Any = (), bm25: Any = (), sessions: int = 1, sparse: Any = ()):
        self.lists = {"vector": list(vector), "bm25": list(bm25), "sparse": list(sparse)}
        self.sessions = sessions
        self.calls: list[tuple[str, int]] = []
        self.sparse_queries: list[Any] = []

    def search(self, signal, user_id, query, k, filters=None, now=None):
        """The preset list of ``signal`` (``entity``: none), its first ``k``; logs (signal, k) and sparse queries."""
        signal = str(signal)
        self.calls.append((signal, k))
        if signal == "sparse":
            self.sparse_queries.append(query)
        return self.lists.get(signal, [])[:k]

    def search_candidates(self, signal, user_id, query, k, filters=None, now=None):
        """As the store contract's default: the signal's hits, as columns (records kept)."""
        return Candidates.from_hits(user_id, self.search(signal, user_id, query, k, filters, now))

    def read_candidates(self, found, at):
        return [found.records[i] for i in at]

    def list_records(self, user_id, filters=None, *, limit=None, newest_first=False, now=None):
        """The records of the preset lists (each once) in the sessions and of the kinds ``filters`` name."""
        self.calls.append(("list", 0))
        seen = {h.record.record_id: h.record for hits in self.lists.values() for h in hits}
        return [r for r in seen.values()
                if (filters is None or filters.session_ids is None or r.session_id in filters.session_ids)
                and (filters is None or filters.kinds is None or r.kind in filters.kinds)]

    def neighbours(self, user_id, anchors, radius, filters=None, now=None):
        """The store contract's windows (cbmemory.store.windows) cut from ``list_records`` of the anchors'
        sessions, so a double that lists records answers this too (and logs the listing)."""
        merged = windows(anchors, radius)
        if not merged:
            return []
        sessions = tuple(sorted({w.session_id for w in merged}))
        listed = self.list_records(user_id, replace(filters or SearchFilters(), session_ids=sessions), now=now)
        return [r for r in listed if in_windows(r, merged)]

    def neighbour_candidates(self, user_id, anchors, radius, filters=None, now=None):
        """As the store contract's default: ``neighbours`` as columns (records kept)."""
        records = self.neighbours(user_id, anchors, radius, filters, now)
        return Candidates.from_records(user_id, records, [0.0] * len(records))

    def list_sessions(self, user_id):
        return [object()] * self.sessions

    def _records(self):
        return {h.record.record_id: h.record for hits in self.lists.values() for h in hits}

    def superseding(self, user_id, record_ids, now=None):
        """The links from the older side (``MemoryStore.superseding``), from the preset records' ``supersedes``."""
        out: dict[str, list[str]] = {}
        for r in self._records().values():
            for old in r.supersedes:
                if old in record_ids:
                    out.setdefault(old, []).append(r.record_id)
        return {k: tuple(v) for k, v in out.items()}

    def get_records(self, user_id, record_ids):
        return [r for rid, r in self._records().items() if rid in record_ids]
