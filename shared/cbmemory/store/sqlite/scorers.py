"""The embedded store's ``{Signal: scorer}`` table (``SQLiteStore.scorers``): each scorer reads one user's
columns in memory (``cache.UserColumns``) inside the search's read transaction and returns the positions of
the records its signal may return under the filters (``mask.column_mask``) and every record's score; the
store keeps the ``k`` best (score, then rowid). Scores follow the contract (``cbmemory.store.base``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ...models import SearchFilters
from ...text import content_words
from .. import lexical
from ..signals import Signal
from . import file as sf
from .cache import UserColumns
from .mask import column_mask

# Below this many rows per user the cosine scores come from a single-threaded numpy loop (einsum): a
# threaded BLAS call costs more in waking and waiting for its threads than it saves, badly so on a busy
# machine (10k x 384 on 2 shared cores: einsum p50 0.7 ms, BLAS 11 ms). Above it the product is bound by
# memory bandwidth and BLAS's threads help.
_SINGLE_THREAD_ROWS = 32_768
_NONE = (np.empty(0, np.int64), np.empty(0))


@dataclass(frozen=True)
class Scoring:
    """What a scorer reads: the read transaction, the user, their columns, the filters and ``now`` (epoch s)."""

    c: sqlite3.Connection
    user_id: str
    m: UserColumns
    filters: SearchFilters
    now: float

    def admitted(self, idx: np.ndarray | None = None) -> np.ndarray:
        """Which records (of ``idx``, or all) the filters admit at ``now`` (``mask.column_mask``)."""
        return column_mask(self.c, self.user_id, self.m, self.filters, self.now, idx)


Scorer = Callable[[Scoring, Any], tuple[np.ndarray, np.ndarray]]


def vector(s: Scoring, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cosine of every record's vector with the query (vectors are normalised)."""
    m = s.m
    scores = np.einsum("ij,j->i", m.vectors[: m.n], query) if m.n <= _SINGLE_THREAD_ROWS else m.vectors[: m.n] @ query
    return np.flatnonzero(s.admitted()), scores


def _lexical(s: Scoring, phrases: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """BM25 over the user's own live records (``lexical``), positive scores only."""
    if not phrases:
        return _NONE
    scores = s.m.lexical.bm25(phrases, s.m.expires[: s.m.n] > s.now)
    found = np.flatnonzero(scores > 0)
    return found[s.admitted(found)], scores


def bm25(s: Scoring, query: str) -> tuple[np.ndarray, np.ndarray]:
    """Each content word of the query a one-term phrase."""
    terms = lexical.query_terms(content_words(query))
    return _lexical(s, [terms[i : i + 1] for i in range(terms.size)])


def entity(s: Scoring, query: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each phrase's terms, contiguous within one field."""
    ids = {tuple(lexical.term_ids(p)) for p in query}
    return _lexical(s, [np.array(t, np.int64) for t in sorted(ids) if t])


def sparse(s: Scoring, query: Any) -> tuple[np.ndarray, np.ndarray]:
    """Dot products with the user's sparse vectors (``cache.SparseIndex``: the postings of the query's
    terms), positive only; nothing while no sparse encoder is bound."""
    if sf.meta(s.c, "sparse_encoder_name") is None:
        return _NONE
    scores = s.m.sparse.scores(query)
    cand = np.flatnonzero(scores > 0)
    return cand[s.admitted(cand)], scores


SCORERS: Mapping[Signal, Scorer] = MappingProxyType({
    Signal.VECTOR: vector, Signal.BM25: bm25, Signal.ENTITY: entity, Signal.SPARSE: sparse,
})
