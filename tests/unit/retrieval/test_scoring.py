"""Unit layer: retrieval maths on hand-worked cases (fusion, BM25 re-rank, entities, k, budget, filters)."""

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.models import Hit, MemoryRecord
from cbmemory.retrieval import extract_entities, scale_k
from cbmemory.retrieval.fusion import rrf, weighted
from cbmemory.retrieval.rerank import bm25_rerank, bm25_scores
from cbmemory.store import lexical

D = datetime(2023, 5, 7, tzinfo=timezone.utc)


def rec(rid, text="x", day=0, pos=0, speaker=None):
    return MemoryRecord(rid, "u", "s", "turn", pos, "user", text, text, D + timedelta(days=day), D, "h",
                        speaker=speaker)


def hits(*pairs):
    return [Hit(rec(rid), score) for rid, score in pairs]


def test_rrf_hand_worked():
    # a: ranks 1 and 3 -> 1/61 + 1/63; b: rank 2 only -> 1/62; c: rank 1 (bm25) + 2... see below
    out = rrf({"vector": hits(("a", .9), ("b", .8)), "bm25": hits(("c", 5.0), ("d", 4.0), ("a", 1.0))}, c=60)
    scores = {h.record.record_id: h.score for h in out}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["c"] == pytest.approx(1 / 61) and scores["b"] == pytest.approx(1 / 62)
    assert [h.record.record_id for h in out] == ["a", "c", "b", "d"]
    assert dict(out[0].ranks) == {"vector": 1, "bm25": 3}


def test_rrf_weights_scale_each_list():
    out = rrf({"vector": hits(("a", 1)), "bm25": hits(("b", 1))}, c=60, weights={"bm25": 2.0})
    assert [h.record.record_id for h in out] == ["b", "a"]


def test_weighted_fusion_min_max_normalises_each_list():
    # vector: a=.9 -> 1, b=.5 -> 0 ; bm25: b=10 -> 1, c=2 -> 0 ; so b=1, a=1, c=0; tie broken by best rank
    out = weighted({"vector": hits(("a", .9), ("b", .5)), "bm25": hits(("b", 10.0), ("c", 2.0))})
    scores = {h.record.record_id: h.score for h in out}
    assert scores == pytest.approx({"a": 1.0, "b": 1.0, "c": 0.0})


def test_okapi_flattens_a_tiny_pool_and_bm25_plus_does_not():
    # "pottery" is in exactly half of a 10-document pool: Okapi's idf log((10-5+.5)/(5+.5)) = 0 (the store's
    # variant floors it at 1e-6), so every document scores about 0 and a re-rank would keep an arbitrary
    # order. BM25+ (idf log(11/5) > 0), the re-rank's variant of the same BM25, separates.
    docs = ["pottery class today"] * 5 + ["baked bread at home"] * 5
    index = lexical.LexicalIndex()
    index.append([lexical.encode_one(d) for d in docs])
    okapi = index.bm25([lexical.query_terms(["pottery"])], np.ones(10, bool), lexical.OKAPI)
    assert okapi.max() < 1e-5
    plus = bm25_scores("pottery", docs)
    assert plus[:5].min() > plus[5:].max() + 0.5


def test_the_rerank_reads_words_as_the_store_does():
    # one tokenizer for the core: the re-rank folds and stems as the store's full-text index does, so a
    # question's "paintings" and "Zoë" find a memory's "painted" and "Zoe" (the re-rank's own lower-cased
    # words found neither)
    docs = ["Zoe painted a sunset", "we had lunch", "nothing here either"]
    scores = bm25_scores("Zoë's paintings", docs)
    assert scores[0] > scores[1] + 0.5 and scores[1] == scores[2]
    ids = lexical.query_terms(["paintings"])
    assert ids.tolist() == lexical.query_terms(["painted"]).tolist()


def test_bm25_rerank_keeps_incoming_order_on_ties_and_records_ranks():
    pool = [Hit(rec("a", "nothing relevant"), .9), Hit(rec("b", "the puppy Biscuit"), .8),
            Hit(rec("c", "unrelated too"), .7)]
    out = bm25_rerank("Biscuit the puppy", pool, 3)
    assert [h.record.record_id for h in out] == ["b", "a", "c"]
    assert out[0].ranks["rerank"] == 1 and out[0].signals["rerank"] > 0


@pytest.mark.parametrize("query, expected", [
    ('Did she go to the "tech-for-good convention"?', ["tech-for-good convention"]),
    ("When is the Nordstrom friends and family sale?", ["Nordstrom friends and family sale", "Nordstrom"]),
    ("What did Caroline do on 7 May 2023?", ["7 May 2023", "Caroline", "7", "2023"]),
    ("Where did Melanie and Caroline meet?", ["Melanie", "Caroline"]),
    ("How many kids does Bank of America employee John have?", ["Bank of America", "John"]),
    ("what is my favourite colour", []),
    ("When did I visit New York City in June?", ["New York City", "June"]),
])
def test_entity_extraction_table(query, expected):
    assert extract_entities(query) == expected


@pytest.mark.parametrize("sessions, k", [(0, 5), (5, 5), (50, 10), (500, 20), (5000, 40), (10**6, 50)])
def test_scale_k_follows_the_study_anchors(sessions, k):
    assert scale_k(sessions) == k


def test_the_pools_order_breaks_ties_by_best_rank_then_record_id():
    from cbmemory.retrieval.pool import ranked_order

    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 25))
        scores = rng.integers(0, 3, n) / 2.0  # few distinct values: many ties
        best = rng.choice([1.0, 2.0, np.inf], n)
        ids = np.empty(n, dtype=object)
        ids[:] = [f"r{int(rng.integers(0, 50)):02d}-{i}" for i in range(n)]
        expected = sorted(range(n), key=lambda i: (-scores[i], best[i], ids[i]))
        assert ranked_order(scores, best, ids).tolist() == expected
