"""The search half of the store contract (``MemoryStore`` inherits it): the four signals' searches, their
candidates as columns, and the checks of what a search asks. The score contract and the checks are stated
once, in ``cbmemory.store.base``'s docstring.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

import numpy as np

from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError
from ..models import NO_FILTERS, Hit, MemoryRecord, SearchFilters
from ..validation import check_query
from .candidates import Candidates
from .filters import admits_nothing
from .inputs import (
    check_filters,
    check_now,
    check_phrases,
    check_query_vector,
    check_search_k,
    check_sparse_query,
    check_user_id,
)

_Q = TypeVar("_Q")


class SearchBase(ABC):
    """The searches every store answers, checked here before the backend's ``_``-prefixed method runs."""

    def _dimension(self) -> int | None:
        """The dimension of the bound embedder's vectors (``MemoryStore`` says)."""
        raise NotImplementedError

    def vector_search(
        self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters = NO_FILTERS,
        now: datetime | None = None,
    ) -> list[Hit]:
        """Exact nearest neighbours by cosine similarity among the user's records (signal ``vector``).
        Checked here (``inputs``): the user id, ``k``, ``filters``, ``now`` and the vector (finite floats, as
        many as the bound embedder's dimension). No hits when no embedder is bound (the store holds no
        vector) or the filters admit nothing; else the backend's :meth:`_vector_search` answers."""
        checked = self._checked_as(self._vector_query, user_id, vector, k, filters, now)
        return [] if checked is None else self._vector_search(*checked)

    @abstractmethod
    def _vector_search(self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters,
                       now: datetime) -> list[Hit]:
        """:meth:`vector_search` of checked inputs (``vector``: float32, C-contiguous, of the bound dimension)."""

    def text_search(
        self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS, now: datetime | None = None
    ) -> list[Hit]:
        """Full-text BM25 over the user's records, any query word matching (signal ``bm25``). Query text is
        taken as plain words: operators of the backend's query language are never interpreted. Checked here:
        the user id, ``k``, ``filters``, ``now`` and the query (a string of at most ``MAX_QUERY_CHARS``
        characters, valid Unicode); the backend's :meth:`_text_search` answers."""
        checked = self._checked_as(self._text_query, user_id, query, k, filters, now)
        return [] if checked is None else self._text_search(*checked)

    @abstractmethod
    def _text_search(self, user_id: str, query: str, k: int, filters: SearchFilters, now: datetime) -> list[Hit]:
        """:meth:`text_search` of checked inputs."""

    def phrase_search(
        self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
        now: datetime | None = None,
    ) -> list[Hit]:
        """Records containing any of ``phrases`` as exact phrases, BM25-ranked (signal ``entity``). Checked
        here: the user id, ``k``, ``filters``, ``now`` and the phrases (a list, not a string, of at most
        ``MAX_PHRASES`` query texts); the backend's :meth:`_phrase_search` answers."""
        checked = self._checked_as(self._phrase_query, user_id, phrases, k, filters, now)
        return [] if checked is None else self._phrase_search(*checked)

    @abstractmethod
    def _phrase_search(self, user_id: str, phrases: list[str], k: int, filters: SearchFilters,
                       now: datetime) -> list[Hit]:
        """:meth:`phrase_search` of checked inputs (at least one phrase)."""

    def sparse_search(
        self, user_id: str, query: SparseVector, k: int, filters: SearchFilters = NO_FILTERS,
        now: datetime | None = None,
    ) -> list[Hit]:
        """The user's records by dot product of their sparse vector with ``query``, positive scores only,
        best first, ties in the backend's stable order (signal ``sparse``); no hits when no sparse encoder is
        bound. Checked here: the user id, ``k``, ``filters``, ``now`` and the query (a ``SparseVector``); a
        query with no term, or filters that admit nothing, find nothing; else the backend's
        :meth:`_sparse_search` answers."""
        checked = self._checked_as(self._sparse_query, user_id, query, k, filters, now)
        return [] if checked is None else self._sparse_search(*checked)

    @abstractmethod
    def _sparse_search(self, user_id: str, query: SparseVector, k: int, filters: SearchFilters,
                       now: datetime) -> list[Hit]:
        """:meth:`sparse_search` of checked inputs (a query of at least one term); no hits when no sparse
        encoder is bound."""

    def _vector_query(self, vector: object) -> np.ndarray | None:
        qv = check_query_vector(vector, dim := self._dimension())
        return None if dim is None else qv  # no embedder bound: the store holds no vector

    @staticmethod
    def _text_query(query: object) -> str | None:
        return check_query(query)

    @staticmethod
    def _phrase_query(phrases: object) -> list[str] | None:
        return check_phrases(phrases) or None

    @staticmethod
    def _sparse_query(query: object) -> SparseVector | None:
        checked = check_sparse_query(query)
        return checked if len(checked) else None

    def _checked_as(self, check: Callable[[object], _Q | None], user_id: object, query: object, k: object,
                    filters: object, now: object) -> tuple[str, _Q, int, SearchFilters, datetime] | None:
        """A search's inputs checked (``inputs``, then ``check`` for its query), as the backend's method
        takes them; ``None`` when it can find nothing (``check`` found no query, or the filters admit
        nothing)."""
        user_id, k, filters, at = self._checked_search(user_id, k, filters, now)
        checked = check(query)
        return None if checked is None or admits_nothing(filters) else (user_id, checked, k, filters, at)

    def _checked_signal(self, signal: str, user_id: object, query: object, k: object, filters: object,
                        now: object) -> tuple[str, object, int, SearchFilters, datetime] | None:
        checks: dict[str, Callable[[object], object]] = {
            "vector": self._vector_query, "bm25": self._text_query, "entity": self._phrase_query,
            "sparse": self._sparse_query}
        if signal not in checks:
            raise InvalidInputError(f"unknown signal {signal!r}; known: {', '.join(checks)}")
        return self._checked_as(checks[signal], user_id, query, k, filters, now)

    def search_candidates(self, signal: str, user_id: str, query: object, k: int,
                          filters: SearchFilters = NO_FILTERS, now: datetime | None = None) -> Candidates:
        """The search of ``signal`` (``vector``: a query vector, ``bm25``: text, ``entity``: phrases,
        ``sparse``: a ``SparseVector``), the same checks and the same candidates in the same order as its
        ``*_search`` method, as columns (``Candidates``) instead of hits: retrieval ranks them and reads
        only the records it returns (:meth:`read_candidates`)."""
        checked = self._checked_signal(signal, user_id, query, k, filters, now)
        if checked is None:
            return Candidates.empty(check_user_id(user_id))
        return self._candidates(signal, *checked)

    def _candidates(self, signal: str, user_id: str, query: object, k: int, filters: SearchFilters,
                    now: datetime) -> Candidates:
        """:meth:`search_candidates` of checked inputs. By default the backend's hits as columns (their
        records kept); a backend that holds the columns in memory answers without reading records."""
        search = {"vector": self._vector_search, "bm25": self._text_search, "entity": self._phrase_search,
                  "sparse": self._sparse_search}[signal]
        return Candidates.from_hits(user_id, search(user_id, query, k, filters, now))  # type: ignore[operator]

    def read_candidates(self, found: Candidates, at: Sequence[int]) -> list[MemoryRecord | None]:
        """The records of the candidates at positions ``at`` of ``found`` (a search of this store), one per
        position (``None`` for one deleted since the search). Only ``found.user_id``'s records are read."""
        if found.records is not None:
            return [found.records[i] for i in at]
        return self._read_candidates(found, list(at))

    def _read_candidates(self, found: Candidates, at: list[int]) -> list[MemoryRecord | None]:
        raise NotImplementedError(f"{type(self).__name__} returned candidates without records")

    @staticmethod
    def _checked_search(user_id: object, k: object, filters: object, now: object
                        ) -> tuple[str, int, SearchFilters, datetime]:
        """The inputs every search takes, checked (``inputs``); ``now`` resolved (``None``: the current time)."""
        return check_user_id(user_id), check_search_k(k), check_filters(filters), check_now(now)
