"""The search half of the store contract (``MemoryStore`` inherits it): one search over the signals a
backend's ``{Signal: scorer}`` table holds, its candidates as columns, and the checks of what a search asks.
The score contract and the checks are stated once, in ``cbmemory.store.base``'s docstring; what each
signal's query is, in ``cbmemory.store.signals``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar

from ..models import NO_FILTERS, Hit, MemoryRecord, SearchFilters
from .candidates import Candidates
from .filters import admits_nothing
from .inputs import check_filters, check_now, check_search_k, check_user_id
from .signals import QUERIES, Signal, check_signal


class SearchBase(ABC):
    """The searches every store answers, checked here before the backend's :meth:`_search` runs."""

    # The signals the backend searches, each with its scorer (what a scorer is, the backend says).
    scorers: ClassVar[Mapping[Signal, Any]]

    def _dimension(self) -> int | None:
        """The dimension of the bound embedder's vectors (``MemoryStore`` says)."""
        raise NotImplementedError

    def search(self, signal: Signal | str, user_id: str, query: object, k: int,
               filters: SearchFilters = NO_FILTERS, now: datetime | None = None) -> list[Hit]:
        """The user's ``k`` best records for ``query`` by ``signal``, best first, each hit's ``signals`` and
        ``ranks`` holding that signal's score and rank (``Signal``; the query: ``vector`` a query vector,
        ``bm25`` text, ``entity`` phrases, ``sparse`` a ``SparseVector``):

        - ``vector``: exact nearest neighbours by cosine similarity; no hits while no embedder is bound;
        - ``bm25``: full-text BM25, any query word matching; query text is taken as plain words, operators of
          the backend's query language are never interpreted;
        - ``entity``: records containing any of the phrases exactly, BM25-ranked;
        - ``sparse``: the dot product of each record's sparse vector with the query, positive scores only,
          ties in the backend's stable order; no hits while no sparse encoder is bound.

        Checked here (``inputs``, ``signals.QUERIES``): a signal the backend searches (its ``scorers``), the
        user id, ``k``, ``filters``, ``now`` and the query; a query that can find nothing (no phrase, a sparse
        vector with no term) or filters that admit nothing find nothing, else the backend's :meth:`_search`
        answers."""
        checked = self._checked_query(signal, user_id, query, k, filters, now)
        return [] if checked is None else self._search(*checked)

    @abstractmethod
    def _search(self, signal: Signal, user_id: str, query: Any, k: int, filters: SearchFilters,
                now: datetime) -> list[Hit]:
        """:meth:`search` of checked inputs (the query as ``signals.QUERIES`` returns it: a vector is float32,
        C-contiguous, of the bound dimension), by the backend's scorer of ``signal``."""

    def search_candidates(self, signal: Signal | str, user_id: str, query: object, k: int,
                          filters: SearchFilters = NO_FILTERS, now: datetime | None = None) -> Candidates:
        """:meth:`search`: the same checks and the same candidates in the same order, as columns
        (``Candidates``) instead of hits: retrieval ranks them and reads only the records it returns
        (:meth:`read_candidates`)."""
        checked = self._checked_query(signal, user_id, query, k, filters, now)
        if checked is None:
            return Candidates.empty(check_user_id(user_id))
        return self._candidates(*checked)

    def _candidates(self, signal: Signal, user_id: str, query: Any, k: int, filters: SearchFilters,
                    now: datetime) -> Candidates:
        """:meth:`search_candidates` of checked inputs. By default the backend's hits as columns (their
        records kept); a backend that holds the columns in memory answers without reading records."""
        return Candidates.from_hits(user_id, self._search(signal, user_id, query, k, filters, now))

    def read_candidates(self, found: Candidates, at: Sequence[int]) -> list[MemoryRecord | None]:
        """The records of the candidates at positions ``at`` of ``found`` (a search of this store), one per
        position (``None`` for one deleted since the search). Only ``found.user_id``'s records are read."""
        if found.records is not None:
            return [found.records[i] for i in at]
        return self._read_candidates(found, list(at))

    def _read_candidates(self, found: Candidates, at: list[int]) -> list[MemoryRecord | None]:
        raise NotImplementedError(f"{type(self).__name__} returned candidates without records")

    def _checked_query(self, signal: object, user_id: object, query: object, k: object, filters: object,
                 now: object) -> tuple[Signal, str, Any, int, SearchFilters, datetime] | None:
        """A search's inputs checked, as the backend's method takes them; ``None`` when it can find nothing
        (its query check found no query, or the filters admit nothing)."""
        known = check_signal(signal, self.scorers)
        user, n, f, at = self._checked_search(user_id, k, filters, now)
        checked = QUERIES[known](query, self._dimension)
        return None if checked is None or admits_nothing(f) else (known, user, checked, n, f, at)

    @staticmethod
    def _checked_search(user_id: object, k: object, filters: object, now: object
                        ) -> tuple[str, int, SearchFilters, datetime]:
        """The inputs every search takes, checked (``inputs``); ``now`` resolved (``None``: the current time)."""
        return check_user_id(user_id), check_search_k(k), check_filters(filters), check_now(now)
