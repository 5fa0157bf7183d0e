"""Unit layer (store.signals): one search over each backend's ``{Signal: scorer}`` table. Every signal has a
query check, a scorer in each backend and a search and pool in retrieval (a signal added in one place and
not another fails here), and a store refuses a signal its table does not hold, before anything is sent."""

from __future__ import annotations

from types import MappingProxyType

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.retrieval.engine import SEARCHES
from cbmemory.retrieval.stages import DEFAULT_POOLS
from cbmemory.store import Signal, SQLiteStore
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.signals import QUERIES


def test_every_signal_is_checked_scored_by_each_backend_and_searched_by_retrieval():
    everything = set(Signal)
    assert set(QUERIES) == everything
    assert set(SQLiteStore.scorers) == set(CouchbaseStore.scorers) == everything
    assert set(SEARCHES) == set(DEFAULT_POOLS) == everything


def test_a_signal_is_its_string():
    assert Signal("bm25") is Signal.BM25 and Signal.BM25 == "bm25" and f"{Signal.SPARSE}" == "sparse"


def test_a_store_searches_only_the_signals_of_its_table(store, state):
    """The Couchbase store (on the SDK's fake) with its table less ``sparse``: a sparse search is refused
    with a typed error naming what it searches, and no request is sent; an unknown signal likewise."""
    store.scorers = MappingProxyType({s: f for s, f in CouchbaseStore.scorers.items() if s is not Signal.SPARSE})
    sent = len(state.calls)
    with pytest.raises(InvalidInputError, match="does not search the sparse signal; it searches vector, bm25"):
        store.search(Signal.SPARSE, "u1", object(), 5)
    with pytest.raises(InvalidInputError, match="unknown signal 'length'"):
        store.search_candidates("length", "u1", "words", 5)
    assert len(state.calls) == sent


def test_the_query_is_checked_by_its_signal_before_the_backend_is_asked():
    store = SQLiteStore(":memory:")
    store.bind_embedder("e", 2)
    with pytest.raises(InvalidInputError):
        store.search(Signal.VECTOR, "u1", np.ones(3), 5)  # not the bound dimension
    with pytest.raises(InvalidInputError):
        store.search(Signal.ENTITY, "u1", "a phrase", 5)  # phrases are a list, not one string
    assert store.search(Signal.ENTITY, "u1", [], 5) == []  # no phrase: nothing to find
