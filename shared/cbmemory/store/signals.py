"""The signals a store searches, and what each one's query is.

``Signal`` names them (retrieval's recipes name them too: ``cbmemory.retrieval.stages`` re-exports it).
``QUERIES`` says, per signal, what its query must be, checked once for every backend by
``MemoryStore.search`` (``InvalidInputError`` otherwise); a check that returns ``None`` means the query can
find nothing (no term, no phrase, no embedder bound), so no backend is asked. Each backend answers a signal
through its own ``{Signal: scorer}`` table (``MemoryStore.scorers``: ``sqlite.scorers``,
``couchbase.scorers``), whose keys are the signals it searches.

Adding a signal: its member here and its entry in ``QUERIES``; its scorer and table entry in each backend;
in retrieval, its default pool (``stages.DEFAULT_POOLS``) and how its query is made (``engine.SEARCHES``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from types import MappingProxyType

from ..errors import InvalidInputError
from ..validation import check_query
from .inputs import check_phrases, check_query_vector, check_sparse_query


class Signal(str, Enum):
    """A ranked list a store can search for; each member equals its string (``Signal.BM25 == "bm25"``).

    The score contract of each is in ``cbmemory.store.base``'s docstring."""

    VECTOR = "vector"  # cosine similarity with a query vector
    BM25 = "bm25"  # full text over the user's whole corpus, any query word matching
    ENTITY = "entity"  # exact phrases extracted from the query, through the full-text index
    SPARSE = "sparse"  # learned sparse vectors (SPLADE): dot product over the user's records

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


# (query, a reader of the bound embedder's dimension: None while none is bound) -> the checked query, or
# None: it can find nothing
QueryCheck = Callable[[object, Callable[[], "int | None"]], object]


def _vector(query: object, dimension: Callable[[], int | None]) -> object:
    """Finite floats, as many as the bound embedder's dimension; none bound: the store holds no vector."""
    checked = check_query_vector(query, dim := dimension())
    return None if dim is None else checked


def _text(query: object, dimension: Callable[[], int | None]) -> object:
    """Text of at most ``MAX_QUERY_CHARS`` characters, valid Unicode, taken as plain words."""
    return check_query(query)


def _phrases(query: object, dimension: Callable[[], int | None]) -> object:
    """A list (not a string) of at most ``MAX_PHRASES`` query texts; none: nothing to find."""
    return check_phrases(query) or None


def _sparse(query: object, dimension: Callable[[], int | None]) -> object:
    """A ``SparseVector``; one with no term finds nothing."""
    checked = check_sparse_query(query)
    return checked if len(checked) else None


QUERIES: Mapping[Signal, QueryCheck] = MappingProxyType({
    Signal.VECTOR: _vector, Signal.BM25: _text, Signal.ENTITY: _phrases, Signal.SPARSE: _sparse,
})


def check_signal(signal: object, searched: Mapping[Signal, object]) -> Signal:
    """``signal`` (a ``Signal`` or its string) as a ``Signal`` that ``searched`` (a backend's table) holds."""
    try:
        known = Signal(signal)
    except (TypeError, ValueError):
        raise InvalidInputError(f"unknown signal {signal!r}; known: {', '.join(s.value for s in Signal)}") from None
    if known not in searched:
        raise InvalidInputError(f"this store does not search the {known} signal; it searches "
                                f"{', '.join(map(str, searched))}")
    return known
