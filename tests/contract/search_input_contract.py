"""Contract layer: what a search or a read asks of a store is checked once, by ``MemoryStore`` itself, the same
on every backend: a bad user id, k, query (vector, text, phrases, sparse vector), filters, limit or ``now``
is refused with an ``InvalidInputError`` (``BAD_CALLS``), while inputs at their bounds and user ids that name
no one are taken and never return another user's records. A part of ``StoreContract`` (a base class of it),
which provides the ``store`` and ``sparse_bound`` fixtures and ``write``; not a test module itself.

``BAD_CALLS`` is also run against the Couchbase store over the in-process fake of its SDK
(tests/unit/store/test_couchbase_inputs.py), which checks that nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.models import NO_FILTERS, SearchFilters
from cbmemory.store import MemoryStore
from cbmemory.store.inputs import MAX_PHRASES, MAX_SEARCH_K
from cbmemory.store.signals import Signal
from cbmemory.validation import MAX_QUERY_CHARS

from .contract_data import DIM, NOW, sparse, unit

SEARCHES = ("vector", "text", "phrase", "sparse")
_GOOD = object()
BadCall = Callable[[MemoryStore, np.ndarray], object]


def search(store: MemoryStore, kind: str, vector: np.ndarray, query: object = _GOOD, *, user_id: object = "u1",
           k: object = 5, filters: object = NO_FILTERS, now: object = NOW) -> list:
    """One search of ``kind`` with good arguments (``vector``: a unit vector of the store's dimension), but
    those given."""
    good = {"vector": vector, "text": "alpha", "phrase": ["alpha"], "sparse": sparse({1: 1.0})}[kind]
    signal = {"vector": Signal.VECTOR, "text": Signal.BM25, "phrase": Signal.ENTITY, "sparse": Signal.SPARSE}[kind]
    return store.search(signal, user_id, good if query is _GOOD else query, k, filters, now)


def _bad_calls() -> list[tuple[str, BadCall]]:
    calls: list[tuple[str, BadCall]] = []

    def add(name: str, call: BadCall) -> None:
        calls.append((name, call))

    for kind in SEARCHES:
        for user in (None, 7, b"u1", "u\ud800"):
            add(f"{kind}: user_id {user!r}", lambda s, v, kind=kind, user=user: search(s, kind, v, user_id=user))
        for k in (0, -1, True, 2.5, "5", None, MAX_SEARCH_K + 1):
            add(f"{kind}: k {k!r}", lambda s, v, kind=kind, k=k: search(s, kind, v, k=k))
        for f in (None, {"kinds": ("turn",)}, "s1"):
            add(f"{kind}: filters {f!r}", lambda s, v, kind=kind, f=f: search(s, kind, v, filters=f))
        for now in ("2024-01-01", 1_704_067_200, date(2024, 1, 1)):
            add(f"{kind}: now {now!r}", lambda s, v, kind=kind, now=now: search(s, kind, v, now=now))
    too_long = "x" * (MAX_QUERY_CHARS + 1)
    queries: dict[str, tuple[tuple[str, Callable[[np.ndarray], object]], ...]] = {
        "vector": (("of another dimension", lambda v: np.ones(v.size + 1)),
                   ("with a NaN", lambda v: np.where(np.arange(v.size) == 1, np.nan, v)),
                   ("with an infinity", lambda v: np.full(v.size, np.inf)),
                   ("a matrix of two rows", lambda v: np.stack([v, v])),
                   ("empty", lambda v: np.zeros(0)), ("of strings", lambda v: ["x"] * v.size),
                   ("None", lambda v: None)),
        "text": (("None", lambda v: None), ("an int", lambda v: 5), ("bytes", lambda v: b"alpha"),
                 ("too long", lambda v: too_long), ("a lone surrogate", lambda v: "alpha \ud800")),
        "phrase": (("a string", lambda v: "alpha"), ("bytes", lambda v: b"alpha"), ("None", lambda v: None),
                   ("of ints", lambda v: [1]), ("with a None", lambda v: ["alpha", None]),
                   ("with a lone surrogate", lambda v: ["\ud800"]), ("with one too long", lambda v: [too_long]),
                   ("too many", lambda v: ["alpha"] * (MAX_PHRASES + 1))),
        "sparse": (("a dict", lambda v: {1: 1.0}), ("an array", lambda v: np.ones(3)),
                   ("pairs", lambda v: [(1, 1.0)]), ("None", lambda v: None), ("a string", lambda v: "alpha")),
    }
    for kind, bad in queries.items():
        for name, make in bad:
            add(f"{kind}: query {name}", lambda s, v, kind=kind, make=make: search(s, kind, v, make(v)))
    for name, kwargs in (("user_id None", {"user_id": None}), ("filters None", {"filters": None}),
                         ("limit -1", {"limit": -1}), ("limit True", {"limit": True}),
                         ("limit 1.5", {"limit": 1.5}), ("limit '3'", {"limit": "3"}),
                         ("newest_first 'yes'", {"newest_first": "yes"}), ("newest_first 1", {"newest_first": 1}),
                         ("now a string", {"now": "2024-01-01"})):
        add(f"list_records: {name}", lambda s, v, kw=kwargs: s.list_records(
            kw.get("user_id", "u1"), kw.get("filters", NO_FILTERS), limit=kw.get("limit"),
            newest_first=kw.get("newest_first", False), now=kw.get("now")))
    for name, user, ids in (("user_id 7", 7, ["r"]), ("ids a string", "u1", "record-id"), ("ids None", "u1", None),
                            ("ids of ints", "u1", [1]), ("an id with a lone surrogate", "u1", ["\ud800"])):
        add(f"get_records: {name}", lambda s, v, user=user, ids=ids: s.get_records(user, ids))
    anchor = [("s1", "turn", 0)]
    add("neighbours: user_id None", lambda s, v: s.neighbours(None, anchor, 1))
    add("neighbours: filters None", lambda s, v: s.neighbours("u1", anchor, 1, None))
    add("neighbours: now a string", lambda s, v: s.neighbours("u1", anchor, 1, NO_FILTERS, "x"))
    add("records_without_sparse: user_id None", lambda s, v: s.records_without_sparse(None))
    for user in (None, 7, "u\ud800"):
        add(f"sparse_terms: user_id {user!r}", lambda s, v, user=user: s.sparse_terms(user))
    return calls


BAD_CALLS = _bad_calls()


class SearchInputContract:
    """The input checks of searches and reads; a part of ``StoreContract``."""

    @pytest.fixture
    def two_users(self, sparse_bound):
        """A store bound to an embedder and a sparse encoder, with records of ``u1`` and ``u2``."""
        for user in ("u1", "u2"):
            self.write(sparse_bound, user, "s1", [f"alpha of {user}", f"beta of {user}"], [unit(0), unit(1)],
                       sparse=[sparse({1: 1.0}), sparse({2: 1.0})])
        return sparse_bound

    def test_searches_and_reads_are_checked_by_the_contract(self, store):
        """No backend overrides the public methods: ``MemoryStore`` checks, the backend's ``_...`` answers."""
        for name in ("search", "search_candidates", "list_records",
                     "get_records", "neighbours", "records_without_sparse", "sparse_terms"):
            assert getattr(type(store), name) is getattr(MemoryStore, name), name

    @pytest.mark.parametrize("name, call", BAD_CALLS, ids=[name for name, _ in BAD_CALLS])
    def test_bad_inputs_are_refused_with_a_typed_error(self, two_users, name, call):
        with pytest.raises(InvalidInputError):
            call(two_users, unit(0))
        assert two_users.count() == 4  # a refused read changed nothing

    def test_inputs_at_their_bounds_are_taken(self, two_users):
        row = unit(0).reshape(1, DIM)  # a (1, dimension) row is the vector it holds
        for kind in SEARCHES:
            for kwargs in ({"k": 1000}, {"k": np.int64(2)}, {"now": NOW.replace(tzinfo=None)}):
                hits = search(two_users, kind, unit(0), **kwargs)
                assert hits and {h.record.user_id for h in hits} == {"u1"}, (kind, kwargs)
        assert [h.record.text for h in two_users.search(Signal.VECTOR, "u1", row, 1, now=NOW)] == ["alpha of u1"]
        assert [h.record.text for h in two_users.search(Signal.VECTOR, "u1", [0.0, 1.0] + [0.0] * (DIM - 2), 1,
                                                              now=NOW)] == ["beta of u1"]  # a list of floats
        longest = ("alpha " * MAX_QUERY_CHARS)[:MAX_QUERY_CHARS]
        assert two_users.search(Signal.BM25, "u1", longest, 5, now=NOW)
        assert two_users.search(Signal.BM25, "u1", "", 5, now=NOW) == []  # no word: no hit
        assert two_users.search(Signal.ENTITY, "u1", [], 5, now=NOW) == []
        assert two_users.search(Signal.ENTITY, "u1", ("alpha", ""), 5, now=NOW)  # a tuple; an empty phrase finds nothing
        assert two_users.search(Signal.SPARSE, "u1", sparse({}), 5, now=NOW) == []
        assert two_users.list_records("u1", limit=0) == []
        assert [r.text for r in two_users.list_records("u1", limit=np.int64(1), newest_first=True)] == ["beta of u1"]
        assert two_users.get_records("u1", ()) == []
        [rec] = two_users.list_records("u1", limit=1)
        assert two_users.get_records("u1", (rec.record_id,)) == [rec]
        assert two_users.get_records("u2", [rec.record_id]) == []  # another user's id is absent

    @pytest.mark.parametrize("user", ["", " ", "U1", "u1 ", "u1\x00", "u1' OR '1'='1", "%", "*", "a" * 5000])
    def test_user_ids_that_name_no_one_find_nothing(self, two_users, user):
        for kind in SEARCHES:
            assert search(two_users, kind, unit(0), user_id=user) == [], kind
        assert two_users.list_records(user) == []
        assert two_users.get_records(user, [r.record_id for r in two_users.list_records("u1")]) == []
        assert two_users.neighbours(user, [("s1", "turn", 0)], 1) == []
        assert two_users.records_without_sparse(user) == []

    def test_a_naive_now_is_utc(self, sparse_bound):
        self.write(sparse_bound, "u1", "s1", ["alpha fleeting"], [unit(0)], expires_at=NOW + timedelta(hours=1),
                   sparse=[sparse({1: 1.0})])
        naive = NOW.replace(tzinfo=None)
        for kind in SEARCHES:
            assert len(search(sparse_bound, kind, unit(0), now=naive)) == 1, kind
            assert search(sparse_bound, kind, unit(0), now=naive + timedelta(hours=1)) == [], kind  # expired
        assert len(sparse_bound.list_records("u1", now=naive)) == 1
        assert sparse_bound.list_records("u1", now=naive + timedelta(hours=2)) == []

    def test_an_unbound_store_finds_no_vector_but_still_checks_the_query(self, store):
        assert store.search(Signal.VECTOR, "u1", np.ones(3), 5, now=NOW) == []  # no dimension to compare with yet
        for bad in (np.full(3, np.nan), np.zeros(0), "abc"):
            with pytest.raises(InvalidInputError):
                store.search(Signal.VECTOR, "u1", bad, 5)
        with pytest.raises(InvalidInputError):
            store.search(Signal.VECTOR, "u1", np.ones(3), 0)

    def test_filters_that_admit_nothing_find_nothing_but_the_inputs_are_still_checked(self, two_users):
        none = SearchFilters(session_ids=())
        for kind in SEARCHES:
            assert search(two_users, kind, unit(0), filters=none) == [], kind
            with pytest.raises(InvalidInputError):
                search(two_users, kind, unit(0), filters=none, k=0)
        with pytest.raises(InvalidInputError):
            two_users.search(Signal.VECTOR, "u1", np.ones(DIM + 1), 5, none)
