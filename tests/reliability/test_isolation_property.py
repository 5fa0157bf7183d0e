"""Reliability layer, property-based (Hypothesis): over users x filters x recipes x queries (hostile strings
and arbitrary text), no hit ever belongs to another user, is expired, or falls outside the filters, through
the facade and through each store search method (the sparse one included).

The users are chosen to be confusable (case, trailing space, zero-width space, SQL and LIKE characters),
they share session ids, annotation values and most words, and each has one secret word no other user has.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cbmemory import AgentMemory
from cbmemory.embedding.splade import SpladeEncoder
from cbmemory.models import SearchFilters
from cbmemory.recipes import all_recipes
from cbmemory.store.signals import Signal
from tests.support.hostile import HOSTILE

from .workers import HashEmbedder

# Every recipe searches one memory on purpose (isolation must hold for each): those made for records indexed
# otherwise warn so (tests/integration/test_recipe_mismatch.py covers the warning itself).
pytestmark = pytest.mark.filterwarnings("ignore::cbmemory.RecipeMismatchWarning")

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

USERS = ["alice", "Alice", "alice ", "bob", "bob\u200b", "al%ce", "a'lice", "用户"]
SESSIONS = ["s1", "s2", "s3"]
T0 = datetime(2023, 5, 1, tzinfo=timezone.utc)
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def secret(i: int) -> str:
    return f"zq{i}secretword"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    clock = Clock()
    # with sparse vectors too (the real SPLADE-tiny encoder), so every recipe and the sparse search run
    memory = AgentMemory.open(tmp_path_factory.mktemp("iso") / "iso.db", embedder=HashEmbedder(), clock=clock,
                              sparse_encoder=SpladeEncoder(max_terms=128))
    for i, user in enumerate(USERS):
        for j, sid in enumerate(SESSIONS):
            msgs = [{"role": "user", "content": f"coffee in Paris with the project team, note {j}"},
                    {"role": "assistant", "content": f"remember {secret(i)} for the Paris project"},
                    {"role": "user", "content": "NEAR records OR bob * the meeting went well"}]
            ttl = timedelta(hours=1) if sid == "s3" else None  # s3 expires once the clock moves on
            memory.add_session(user, sid, msgs, date=T0 + timedelta(days=7 * j), ttl=ttl,
                               annotations={"topic": "work" if j % 2 == 0 else "home"})
    clock.now = START + timedelta(days=1)  # s3 has expired (not purged: no write since)
    yield memory, clock
    memory.close()


def _check(hits, user: str, filters: SearchFilters, now: datetime) -> None:
    others = [secret(i) for i, u in enumerate(USERS) if u != user]
    for h in hits:
        r = getattr(h, "record", h)  # hits, or records from list_records
        assert r.user_id == user, (user, r.user_id)
        assert not any(s in r.text or s in r.index_text for s in others)
        assert r.expires_at is None or r.expires_at > now
        if filters.session_ids is not None:
            assert r.session_id in filters.session_ids
        if filters.kinds is not None:
            assert r.kind in filters.kinds
        if filters.occurred_after is not None:
            assert r.occurred_at >= filters.occurred_after
        if filters.occurred_before is not None:
            assert r.occurred_at <= filters.occurred_before
        for key, value in filters.annotations.items():
            assert r.annotations.get(key) == value


names = st.sampled_from(SESSIONS + ["S1", "s1 ", "' OR 1=1 --", "%"])
dates = st.one_of(st.none(), st.sampled_from([T0 - timedelta(days=1), T0, T0 + timedelta(days=7),
                                              T0 + timedelta(days=30)]))
filters_st = st.builds(
    SearchFilters,
    session_ids=st.one_of(st.none(), st.lists(names, max_size=3).map(tuple)),
    kinds=st.one_of(st.none(), st.sampled_from([("turn",), ("round",), ("turn", "' OR 1"), ()])),
    occurred_after=dates,
    occurred_before=dates,
    annotations=st.sampled_from([{}, {"topic": "work"}, {"topic": "home"}, {"topic": "' OR '1'='1"},
                                 {"' OR 1=1 --": "work"}]),
)
queries = st.one_of(
    st.sampled_from(HOSTILE),
    st.sampled_from([f"what is {secret(i)}?" for i in range(len(USERS))] + ["Paris project coffee",
                                                                           "\"Paris\" NEAR team"]),
    st.text(max_size=60),
)


@pytest.mark.heavy
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(user=st.sampled_from(USERS + ["nobody", "ALICE"]), filters=filters_st,
       recipe=st.sampled_from(sorted(RECIPES)), query=queries, k=st.integers(1, 30))
def test_no_hit_ever_belongs_to_another_user(world, user, filters, recipe, query, k):
    memory, clock = world
    now = clock()
    hits = memory.search(query, user, k=k, filters=filters, recipe=recipe)
    assert len(hits) <= k
    _check(hits, user, filters, now)
    store = memory.store
    vec = memory.embedder.embed_query(query or "x")
    vector_hits = store.search(Signal.VECTOR, user, vec, k, filters, now)
    _check(vector_hits, user, filters, now)
    if user in USERS and filters == SearchFilters():
        assert len(vector_hits) == min(k, 6)  # the search really ran over the user's live records
    _check(store.search(Signal.BM25, user, query, k, filters, now), user, filters, now)
    _check(store.search(Signal.ENTITY, user, [query, "Paris"], k, filters, now), user, filters, now)
    sparse_hits = store.search(Signal.SPARSE, user, memory.sparse_encoder.encode_query(query), k, filters, now)
    _check(sparse_hits, user, filters, now)
    _check(store.list_records(user, filters, limit=k, now=now), user, filters, now)


def test_each_user_finds_only_their_own_secret(world):
    memory, _ = world
    for i, user in enumerate(USERS):
        for j in range(len(USERS)):
            hits = memory.search(f"what is {secret(j)}?", user, k=50, recipe="bm25")
            assert bool(hits) == (i == j)  # their own secret is found; nobody else's ever
        live = memory.store.list_records(user, now=memory.clock())
        assert len(live) == 6 and {r.session_id for r in live} == {"s1", "s2"}  # s3 expired
