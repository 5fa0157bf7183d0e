"""Unit layer: retrieval metrics (pure functions) on hand-worked cases."""

import math

import pytest

from cbmemory_eval.metrics import (
    aggregate,
    mean,
    ndcg,
    percentile,
    recall,
    recall_all,
    recall_any,
    retrieval_metrics,
    session_units,
)

GOLD = {"a", "b"}
RANKED = [{"x"}, {"a"}, {"y"}, {"b"}]


@pytest.mark.parametrize("k, r, r_all, r_any", [(1, 0.0, 0.0, 0.0), (2, 0.5, 0.0, 1.0), (3, 0.5, 0.0, 1.0),
                                                (4, 1.0, 1.0, 1.0), (50, 1.0, 1.0, 1.0)])
def test_recall_family_by_hand(k, r, r_all, r_any):
    assert recall(GOLD, RANKED, k) == r
    assert recall_all(GOLD, RANKED, k) == r_all
    assert recall_any(GOLD, RANKED, k) == r_any


def test_ndcg_by_hand():
    # relevant at ranks 2 and 4: DCG = 1/log2(3) + 1/log2(5); ideal puts both first: 1 + 1/log2(3)
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    assert ndcg(GOLD, RANKED, 4) == pytest.approx(dcg / (1 + 1 / math.log2(3)))
    assert ndcg(GOLD, RANKED, 4) == pytest.approx(0.650921, abs=1e-6)
    assert ndcg(GOLD, RANKED, 2) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert ndcg(GOLD, RANKED, 1) == 0.0
    assert ndcg({"a"}, [{"a"}, {"b"}], 2) == 1.0  # ideal DCG uses min(|E|, k) relevant slots


def test_session_level_counts_a_session_once():
    sessions = session_units(["s1", "s2", "s1", "s3"])
    assert recall({"s1"}, sessions, 1) == 1.0
    assert ndcg({"s1"}, sessions, 3) == 1.0  # the second s1 hit adds nothing, and takes nothing away
    assert ndcg({"s1", "s3"}, sessions, 4) == pytest.approx((1 + 1 / math.log2(5)) / (1 + 1 / math.log2(3)))
    assert recall_all({"s1", "s3"}, sessions, 3) == 0.0 and recall_all({"s1", "s3"}, sessions, 4) == 1.0


def test_a_round_covering_two_gold_turns():
    assert recall(GOLD, [{"a", "b"}], 1) == 1.0
    assert recall_all(GOLD, [{"a", "b"}], 1) == 1.0
    assert ndcg(GOLD, [{"a", "b"}], 1) == 1.0


def test_questions_without_evidence_are_skipped():
    for fn in (recall, recall_all, recall_any, ndcg):
        assert fn(set(), RANKED, 10) is None
    m = retrieval_metrics([], RANKED, [1, 10])
    assert set(m) == {"recall@1", "recall_all@1", "recall_any@1", "ndcg@1", "recall@10", "recall_all@10",
                      "recall_any@10", "ndcg@10"}
    assert all(v is None for v in m.values())


def test_retrieval_metrics_names_and_prefix():
    m = retrieval_metrics(GOLD, RANKED, [2], prefix="session_")
    assert m == {"session_recall@2": 0.5, "session_recall_all@2": 0.0, "session_recall_any@2": 1.0,
                 "session_ndcg@2": pytest.approx(0.386853, abs=1e-6)}


def test_empty_ranking_scores_zero():
    assert recall(GOLD, [], 10) == 0.0 and ndcg(GOLD, [], 10) == 0.0


def test_mean_percentile_aggregate():
    assert mean([1.0, None, 0.0]) == 0.5 and mean([None]) is None
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert percentile([None], 50) is None
    assert aggregate([{"r": 1.0, "t": 10}, {"r": None, "t": 20}, {"r": 0.0}]) == {"r": 0.5, "t": 15.0}
