"""What a backend answers straight from its parts: the listings (records by id, links, sessions, counts,
stored vectors) and the sparse vectors. ``PartsStore`` is the one place where the contract meets them;
``SQLiteStore`` and ``CouchbaseStore`` each hold their own ``Listings`` and ``SparseVectors`` (``_listings``,
``_sparse``) and add the searches, writes and erasures of their engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

import numpy as np

from ..embedding.sparse import SparseVector
from ..models import MemoryRecord, SearchFilters, Session
from .base import MemoryStore


class ListingsPart(Protocol):
    def get_records(self, user_id: str, record_ids: list[str]) -> list[MemoryRecord]: ...

    def superseding(self, user_id: str, record_ids: list[str], now: datetime) -> dict[str, tuple[str, ...]]: ...

    def list_records(self, user_id: str, filters: SearchFilters, limit: int | None, newest_first: bool,
                     now: datetime) -> list[MemoryRecord]: ...

    def get_session(self, user_id: str, session_id: str) -> Session | None: ...

    def list_sessions(self, user_id: str) -> list[Session]: ...

    def count(self, user_id: str | None = None) -> int: ...

    def users(self) -> list[str]: ...

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]: ...


class SparsePart(Protocol):
    def bind(self, name: str) -> None: ...

    def users_missing(self) -> list[str]: ...

    def records_without(self, user_id: str, limit: int | None) -> list[MemoryRecord]: ...

    def set(self, user_id: str, vectors: dict[str, SparseVector]) -> int: ...


class PartsStore(MemoryStore):
    """The contract's methods its parts answer as they are (still abstract: the engine's part is the backend's)."""

    _listings: ListingsPart
    _sparse: SparsePart

    def _get_records(self, user_id: str, record_ids: list[str]) -> list[MemoryRecord]:
        return self._listings.get_records(user_id, record_ids)

    def _superseding(self, user_id: str, record_ids: list[str], now: datetime) -> dict[str, tuple[str, ...]]:
        return self._listings.superseding(user_id, record_ids, now)

    def _list_records(self, user_id: str, filters: SearchFilters, limit: int | None, newest_first: bool,
                      now: datetime) -> list[MemoryRecord]:
        return self._listings.list_records(user_id, filters, limit, newest_first, now)

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        return self._listings.get_session(user_id, session_id)

    def list_sessions(self, user_id: str) -> list[Session]:
        return self._listings.list_sessions(user_id)

    def count(self, user_id: str | None = None) -> int:
        return self._listings.count(user_id)

    def users(self) -> list[str]:
        return self._listings.users()

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        return self._listings.lookup_vectors(user_id, content_hashes)

    def _bind_sparse_encoder(self, name: str) -> None:
        self._sparse.bind(name)

    def users_missing_sparse(self) -> list[str]:
        return self._sparse.users_missing()

    def _records_without_sparse(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        return self._sparse.records_without(user_id, limit)

    def _set_sparse(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        return self._sparse.set(user_id, vectors)
