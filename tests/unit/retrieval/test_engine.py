"""Unit layer: ``retrieve`` does only what the recipe's config states, checked on a store that returns
preset ranked lists (cut to the limit asked for) and records what it was asked: candidate pools (also for
one signal alone), and the speaker boost fused the way the config's fusion says."""

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory.models import Hit, MemoryRecord
from cbmemory.recipes import Recipe, all_recipes
from cbmemory.retrieval import RetrievalConfig, retrieve
from cbmemory.retrieval.fusion import rrf
from tests.support.list_store import ListStore

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

D = datetime(2023, 5, 7, tzinfo=timezone.utc)


def rec(rid, speaker=None, day=0):
    return MemoryRecord(rid, "u", "s", "turn", int(rid[1:]) if rid[1:].isdigit() else 0, "user", rid, rid,
                        D + timedelta(days=day), D, "h", speaker=speaker)


def search(store, recipe, query="what happened?", **kw):
    return retrieve(store, lambda q: None, recipe, "u", query, **kw)


def ranked(n, named=(), prefix="h"):
    """``n`` hits scored n..1; the positions in ``named`` are Caroline's, the others Melanie's."""
    return [Hit(rec(f"{prefix}{i}", "Caroline" if i in named else "Melanie"), float(n - i)) for i in range(n)]


def ids(hits):
    return [h.record.record_id for h in hits]


# ---------------------------------------------------------------------------- pools
@pytest.mark.parametrize("changes, asked", [
    ({"vector_pool": 40, "k": 5}, [("vector", 5)]),  # one signal alone, nothing after it: its top k is all
    ({"vector_pool": 40, "k": 5, "speaker_weight": 1.0}, [("vector", 40)]),  # the speaker boost uses the pool
    ({"vector_pool": 3, "k": 5}, [("vector", 5)]),  # never fewer than k
    ({"vector_pool": 20, "k": 5, "rerank": "bm25", "rerank_pool": 100}, [("vector", 100)]),  # a re-rank pool
    ({"vector_pool": 20, "k": 5, "order": "recency", "recency_pool": 30}, [("vector", 30)]),
    ({"signals": ("bm25",), "text_pool": 7, "k": 5}, [("bm25", 5)]),
    ({"signals": ("vector", "bm25"), "vector_pool": 9, "text_pool": 8, "k": 5}, [("vector", 9), ("bm25", 8)]),
])
def test_each_signal_fetches_its_pool_where_a_later_stage_uses_it(changes, asked):
    store = ListStore(ranked(200), ranked(200))
    search(store, RECIPES["vector"].with_(**changes))
    assert store.calls == asked


def test_named_recipes_fetch_what_their_pools_and_stages_say():
    store = ListStore(ranked(200), ranked(200))
    for name, want in [("vector", 10), ("bm25", 10), ("vector_bm25_rerank_100", 100), ("recency", 30),
                       ("default_v1", 50), ("default", 100)]:
        store.calls.clear()
        hits = search(store, RECIPES[name])
        assert {k for s, k in store.calls if s != "list"} == {want} and len(hits) == 10 and {h.recipe for h in hits} == {name}


def test_the_pool_of_one_signal_feeds_the_speaker_boost():
    # Caroline's turn is 20th by vector: outside k=5, inside the pool of 50, and the boost lifts it.
    store = ListStore(ranked(60, named=(19,)))
    recipe = RECIPES["vector"].with_(name="boosted", k=5, speaker_weight=1.0)
    hits = search(store, recipe, "What did Caroline paint?")
    assert store.calls == [("vector", 50)]
    assert ids(hits)[0] == "h19" and hits[0].ranks["speaker"] == 1 and len(hits) == 5
    # RRF over the vector list and the one-hit speaker list: 1/(60+20) + 1/(60+1) beats 1/(60+1)
    assert hits[0].score == pytest.approx(1 / 80 + 1 / 61)
    assert hits[1].score == pytest.approx(1 / 61) and ids(hits)[1] == "h0"


def test_the_pool_of_one_signal_feeds_the_recency_order():
    newest = [Hit(rec(f"h{i}", day=i), float(100 - i)) for i in range(40)]  # the least relevant is the newest
    store = ListStore(newest)
    hits = search(store, RECIPES["recency"].with_(k=3, recency_pool=25))
    assert ids(hits) == ["h24", "h23", "h22"] and store.calls == [("vector", 25)]  # what the stage reads


# ---------------------------------------------------------------------------- speaker boost
def _two_lists():
    a, b, x = rec("a", "Melanie"), rec("b", "Melanie"), rec("x", "Caroline")
    vector = [Hit(a, .9), Hit(b, .5), Hit(x, .1)]
    bm25 = [Hit(a, 10.0), Hit(b, 5.0), Hit(x, 1.0)]
    return vector, bm25


def test_weighted_fusion_adds_the_speaker_weight_itself():
    # weighted: a = 1 + 1 = 2; b = (.5-.1)/.8 + (5-1)/9 = .944; x = 0, + the weight 1.0 as the named speaker
    # (the old boost re-scored by RRF and put x first: 1/63 + 1/61 > 1/61)
    store = ListStore(*_two_lists())
    recipe = RECIPES["default_v1"].with_(name="default_speaker", speaker_weight=1.0)
    hits = search(store, recipe, "What did Caroline paint?")
    assert ids(hits) == ["a", "x", "b"]
    scores = {h.record.record_id: h.score for h in hits}
    assert scores == pytest.approx({"a": 2.0, "x": 1.0, "b": 0.5 + 4 / 9})
    x = hits[1]
    assert x.signals["speaker"] == 1.0 and x.ranks["speaker"] == 1 and "speaker" not in hits[0].ranks
    half = search(store, recipe.with_(speaker_weight=0.4), "What did Caroline paint?")
    assert ids(half) == ["a", "b", "x"] and half[2].score == pytest.approx(0.4)


def test_rrf_fusion_gets_the_speaker_list_as_one_more_ranked_list():
    vector, bm25 = _two_lists()
    store = ListStore(vector, bm25)
    recipe = Recipe("rrf_speaker", retrieval=RetrievalConfig().with_(signals=("vector", "bm25"), speaker_weight=2.0))
    hits = search(store, recipe, "What did Caroline paint?")
    expected = rrf({"vector": vector, "bm25": bm25, "speaker": [Hit(rec("x", "Caroline"), 0.0)]}, c=60,
                   weights={"speaker": 2.0})
    assert ids(hits) == ids(expected) == ["x", "a", "b"]
    assert [h.score for h in hits] == pytest.approx([h.score for h in expected])


@pytest.mark.parametrize("query", ["What did they paint?", "What did Caroline and Melanie paint?"])
def test_no_boost_when_the_query_names_no_speaker_or_every_candidate_s(query):
    store = ListStore(*_two_lists())
    plain = search(store, RECIPES["default_v1"])
    boosted = search(store, RECIPES["default_v1"].with_(speaker_weight=5.0), query)
    assert ids(plain) == ids(boosted) and [h.score for h in plain] == [h.score for h in boosted]
    assert all("speaker" not in h.ranks for h in boosted)


def test_one_signal_without_a_boost_keeps_its_own_scores():
    store = ListStore(ranked(30))
    hits = search(store, RECIPES["vector"].with_(k=3))
    assert [h.score for h in hits] == [30.0, 29.0, 28.0]
    assert [dict(h.ranks) for h in hits] == [{"vector": 1}, {"vector": 2}, {"vector": 3}]  # as a store ranks them


# ---------------------------------------------------------------------------- k
@pytest.mark.parametrize("sessions, k", [(3, 5), (50, 10), (500, 20)])
def test_a_recipe_without_k_picks_it_from_the_number_of_sessions(sessions, k):
    store = ListStore(ranked(100), ranked(100), sessions=sessions)
    assert len(search(store, RECIPES["hybrid_scaled"])) == k
    assert len(search(store, RECIPES["hybrid_scaled"], k=7)) == 7


# ---------------------------------------------------------------------------- the sparse signal
def test_the_sparse_signal_fetches_its_pool_with_the_encoded_query_and_joins_the_fusion():
    from cbmemory.embedding.sparse import SparseVector

    # the sparse list's own best (s0) is in neither other list: only the sparse signal can bring it, and
    # weighted above the two others together it comes first
    store = ListStore(ranked(200), ranked(200), sparse=ranked(200, prefix="s"))
    # (the neighbour and session terms off: these preset hits share one session and their positions collide)
    recipe = RECIPES["default_sparse"].with_(weights=(("vector", 1.0), ("bm25", 1.0), ("sparse", 3.0)),
                                             neighbour_weight=0.0, session_weight=0.0, window=0)
    encoded = []

    def encode(text):
        encoded.append(text)
        return SparseVector([3, 9], [0.5, 1.0])

    hits = search(store, recipe, query="corgi?", encode_sparse=encode)
    assert ("sparse", 100) in store.calls and encoded == ["corgi?"]
    assert store.sparse_queries == [SparseVector([3, 9], [0.5, 1.0])]
    assert ids(hits)[0] == "s0" and hits[0].ranks == {"sparse": 1}


def test_a_sparse_recipe_without_a_query_encoder_is_refused_before_any_search():
    from cbmemory.errors import InvalidInputError

    store = ListStore(ranked(20), ranked(20), sparse=ranked(20, prefix="s"))
    with pytest.raises(InvalidInputError, match="sparse"):
        search(store, RECIPES["default_sparse"])
    assert store.calls == []


def test_recipes_without_the_sparse_signal_never_call_the_sparse_search_or_encoder():
    store = ListStore(ranked(50), ranked(50), sparse=ranked(50, prefix="s"))

    def encode(text):
        raise AssertionError("not asked for")

    search(store, RECIPES["default"], encode_sparse=encode)
    assert "sparse" not in {s for s, _ in store.calls}
