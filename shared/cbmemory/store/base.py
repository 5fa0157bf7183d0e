"""The one store contract every backend implements (embedded SQLite, Couchbase, ...).

Score contract, stated once: every search method returns hits ordered best first with ``score`` higher
is better. ``vector`` scores are cosine similarities in [-1, 1] (vectors are L2-normalised);
``bm25`` and ``entity`` scores are positive BM25 values (unbounded, comparable only within one call),
computed over the queried user's records only: another user's data changes neither a score nor the cost.
Every method takes exactly one ``user_id`` and never returns a record of any other user. Expired records
(``expires_at`` at or before ``now``) are never returned.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import numpy as np

from ..models import NO_FILTERS, ForgetResult, Hit, IngestResult, MemoryRecord, SearchFilters, Session

WriteMode = Literal["merge", "replace", "append"]


@dataclass(frozen=True, slots=True)
class StoreCapabilities:
    """What a backend can do natively; recipes check these instead of branching on backend names."""

    vector: bool = True
    full_text: bool = True
    phrase: bool = True
    ttl: bool = True
    persistent: bool = True
    atomic_batches: bool = True  # a write() is all-or-nothing across records (not on Couchbase: per document)


class MemoryStore(ABC):
    """Storage of memory records with their vectors, per user."""

    capabilities: StoreCapabilities = StoreCapabilities()

    @abstractmethod
    def bind_embedder(self, name: str, dimension: int) -> None:
        """Record the embedder on first use; raise ``EmbedderMismatchError`` if the store holds another's."""

    @abstractmethod
    def write(
        self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray, *,
        mode: WriteMode = "merge",
    ) -> IngestResult:
        """Store sessions and records (row i of ``vectors`` belongs to ``records[i]``). Where
        ``capabilities.atomic_batches`` holds, after a crash either all of them are visible or none;
        elsewhere each record is atomic and re-running the write completes it (it is idempotent).
        Re-writing an unchanged record changes nothing; a record whose content, date, expiry or
        annotations changed is replaced.

        ``mode``: ``merge`` adds and replaces records. ``replace`` makes each of ``sessions`` hold exactly
        the batch's records: its other raw records are deleted, and if anything of it changed, the
        records derived from it too. ``append`` raises ``WriteConflictError`` (writing nothing) if a record
        of the same session and kind already holds a position at or after the batch's first one."""

    @abstractmethod
    def vector_search(
        self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters = NO_FILTERS,
        now: datetime | None = None,
    ) -> list[Hit]:
        """Exact nearest neighbours by cosine similarity among the user's records (signal ``vector``)."""

    @abstractmethod
    def text_search(
        self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS, now: datetime | None = None
    ) -> list[Hit]:
        """Full-text BM25 over the user's records, any query word matching (signal ``bm25``). Query text is
        taken as plain words: operators of the backend's query language are never interpreted."""

    @abstractmethod
    def phrase_search(
        self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
        now: datetime | None = None,
    ) -> list[Hit]:
        """Records containing any of ``phrases`` as exact phrases, BM25-ranked (signal ``entity``)."""

    @abstractmethod
    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids (others' and unknown ids are silently absent)."""

    @abstractmethod
    def list_records(
        self, user_id: str, filters: SearchFilters = NO_FILTERS, *, limit: int | None = None,
        newest_first: bool = False, now: datetime | None = None,
    ) -> list[MemoryRecord]:
        """The user's records in conversation order (session date, then position)."""

    @abstractmethod
    def get_session(self, user_id: str, session_id: str) -> Session | None: ...

    @abstractmethod
    def list_sessions(self, user_id: str) -> list[Session]: ...

    @abstractmethod
    def count(self, user_id: str | None = None) -> int:
        """Live records of one user, or of all users when ``user_id`` is None."""

    @abstractmethod
    def users(self) -> list[str]: ...

    @abstractmethod
    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase a user's records, raw and derived, and sessions (or one session's) in one step: rows,
        full-text terms and vectors, and the user's own entry once nothing of the user is left."""

    @abstractmethod
    def purge_expired(self, now: datetime | None = None) -> int:
        """Delete records whose ``expires_at`` has passed, and the sessions left with no record.
        Returns how many records."""

    @abstractmethod
    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        """The user's stored vectors by content hash, for the embedding cache (vectors only, never text;
        never another user's, so the cache's speed reveals nothing of what others wrote)."""

    @abstractmethod
    def stats(self) -> dict[str, object]: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
