"""Unit layer: the question-date signal. ``RetrievalConfig.boosts.date_weight`` is checked and serialised like the
other weights and is 0 (off) in every recipe but ``question_dates``; in ``retrieve`` the candidates dated
inside the period the question names join the fusion as the ``date`` list (weighted: + the weight; RRF:
one more ranked list), resolved against ``reference_date`` or else ``now``, and nothing changes when the
question names no period or every candidate falls inside it. Checked on a store that returns preset lists."""

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory import InvalidInputError
from cbmemory.models import Hit, MemoryRecord
from cbmemory.recipes import Recipe, all_recipes
from cbmemory.retrieval import BoostConfig, RetrievalConfig, retrieve
from cbmemory.retrieval.config import DATE
from cbmemory.retrieval.engine import candidates, date_rows
from cbmemory.retrieval.fusion import rrf
from tests.support.list_store import ListStore

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

MAY_7 = datetime(2023, 5, 7, 12, tzinfo=timezone.utc)
REF = datetime(2023, 7, 1, tzinfo=timezone.utc)


def rec(rid, when, speaker="Melanie"):
    return MemoryRecord(rid, "u", "s", "turn", 0, "user", rid, rid, when, when, "h", speaker=speaker)


def search(store, recipe, query, **kw):
    return retrieve(store, lambda q: None, recipe, "u", query, **kw)


def ids(hits):
    return [h.record.record_id for h in hits]


def _lists():
    """a and b in April, x on 7 May 2023: x is last in both lists."""
    a, b, x = rec("a", MAY_7 - timedelta(days=30)), rec("b", MAY_7 - timedelta(days=20)), rec("x", MAY_7)
    return [Hit(a, .9), Hit(b, .5), Hit(x, .1)], [Hit(a, 10.0), Hit(b, 5.0), Hit(x, 1.0)]


# ---------------------------------------------------------------------------- the config field
def test_the_date_weight_is_off_by_default_and_in_every_recipe_but_its_own():
    assert RetrievalConfig().boosts.date_weight == 0.0
    assert {n for n, r in RECIPES.items() if r.retrieval.boosts.date_weight > 0} == {"question_dates"}
    qd = RECIPES["question_dates"]
    assert qd.retrieval == RECIPES["default_v1"].retrieval.with_(date_weight=qd.retrieval.boosts.date_weight)
    assert qd.ingest == RECIPES["default_v1"].ingest


def test_the_date_weight_round_trips_and_copies():
    cfg = RetrievalConfig().with_(signals=("vector", "bm25"), fusion="weighted", date_weight=1.5)
    assert cfg.to_dict()["boosts"]["date_weight"] == 1.5
    assert RetrievalConfig.from_dict(cfg.to_dict()) == cfg
    assert RetrievalConfig.from_dict({"date_weight": 2}).boosts.date_weight == 2.0  # an int is read as a float
    assert RetrievalConfig().to_dict()["boosts"]["date_weight"] == 0.0
    assert cfg.with_(date_weight=0).boosts.date_weight == 0.0 and cfg.boosts.date_weight == 1.5
    recipe = Recipe.from_json(RECIPES["question_dates"].to_json())
    assert recipe == RECIPES["question_dates"]


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), -0.5, None, True, "1.0", [1.0]])
def test_a_bad_date_weight_is_refused(bad):
    with pytest.raises(InvalidInputError, match="date_weight"):
        BoostConfig(date_weight=bad)
    with pytest.raises(InvalidInputError, match="date_weight"):
        RetrievalConfig.from_dict({"date_weight": bad})
    with pytest.raises(InvalidInputError, match="date_weight"):
        RetrievalConfig().with_(date_weight=bad)


def test_one_signal_with_the_date_boost_fetches_its_pool():
    cfg = RetrievalConfig().with_(vector_pool=40, k=5)
    assert candidates(cfg, 5, 40) == 5
    assert candidates(cfg.with_(date_weight=1.0), 5, 40) == 40


# ---------------------------------------------------------------------------- in retrieve
def test_weighted_fusion_adds_the_date_weight_to_in_span_candidates():
    # weighted: a = 2; b = .5 + 4/9 = .944; x = 0, + the weight for 7 May 2023 inside "May 2023"
    store = ListStore(*_lists())
    plain = search(store, RECIPES["default_v1"], "What did she cook in May 2023?", reference_date=REF)
    assert ids(plain) == ["a", "b", "x"]
    hits = search(store, RECIPES["default_v1"].with_(date_weight=1.5), "What did she cook in May 2023?",
                  reference_date=REF)
    assert ids(hits) == ["a", "x", "b"]
    assert {h.record.record_id: h.score for h in hits} == pytest.approx({"a": 2.0, "x": 1.5, "b": 0.5 + 4 / 9})
    assert hits[1].ranks[DATE] == 1 and hits[1].signals[DATE] == 1.0 and DATE not in hits[0].ranks
    # above the sum of the signal weights (2), every in-span candidate comes first
    first = search(store, RECIPES["default_v1"].with_(date_weight=2.5), "What did she cook on 7 May 2023?")
    assert ids(first)[0] == "x"


def test_rrf_fusion_gets_the_date_list_as_one_more_ranked_list():
    vector, bm25 = _lists()
    store = ListStore(vector, bm25)
    recipe = Recipe("rrf_dates", retrieval=RetrievalConfig().with_(signals=("vector", "bm25"), date_weight=2.0))
    hits = search(store, recipe, "What did she cook in May 2023?")
    expected = rrf({"vector": vector, "bm25": bm25, "date": [vector[2]]}, c=60, weights={"date": 2.0})
    assert ids(hits) == ids(expected) == ["x", "a", "b"]
    assert [h.score for h in hits] == pytest.approx([h.score for h in expected])


def test_relative_periods_resolve_against_the_reference_date_else_now():
    store = ListStore(*_lists())
    recipe = RECIPES["default_v1"].with_(date_weight=1.5)
    query = "What did she cook last month?"
    assert ids(search(store, recipe, query, reference_date=datetime(2023, 6, 2, tzinfo=timezone.utc)))[1] == "x"
    assert ids(search(store, recipe, query, now=datetime(2023, 6, 2, tzinfo=timezone.utc)))[1] == "x"
    # the reference date wins over now; April holds a and b, which rank first already
    assert ids(search(store, recipe, query, reference_date=datetime(2023, 5, 20, tzinfo=timezone.utc),
                      now=datetime(2023, 6, 2, tzinfo=timezone.utc))) == ["a", "b", "x"]
    assert ids(search(store, recipe, query)) == ["a", "b", "x"]  # no reference: no relative period


@pytest.mark.parametrize("query", [
    "What did she cook?",  # no period
    "What did she cook before her birthday?",  # an event, not a period
    "What did she cook in 2023?",  # every candidate inside: the date tells nothing apart
    "What did she cook in 2021?",  # no candidate inside
])
def test_no_boost_when_no_period_or_it_tells_nothing_apart(query):
    store = ListStore(*_lists())
    plain = search(store, RECIPES["default_v1"], query, reference_date=REF)
    boosted = search(store, RECIPES["default_v1"].with_(date_weight=5.0), query, reference_date=REF)
    assert ids(plain) == ids(boosted) and [h.score for h in plain] == [h.score for h in boosted]
    assert all(DATE not in h.ranks for h in boosted)


def test_speaker_and_date_lists_join_one_fusion():
    # x: in May and Caroline's; b: Caroline's only
    a, b, x = rec("a", MAY_7 - timedelta(days=30)), rec("b", MAY_7 - timedelta(days=20), "Caroline"), rec(
        "x", MAY_7, "Caroline")
    store = ListStore([Hit(a, .9), Hit(b, .5), Hit(x, .1)], [Hit(a, 10.0), Hit(b, 5.0), Hit(x, 1.0)])
    recipe = RECIPES["default_v1"].with_(speaker_weight=1.0, date_weight=1.0)
    hits = search(store, recipe, "What did Caroline cook in May 2023?")
    scores = {h.record.record_id: h.score for h in hits}
    assert scores == pytest.approx({"a": 2.0, "b": 0.5 + 4 / 9 + 1.0, "x": 2.0})
    assert ids(hits) == ["a", "x", "b"]  # a tie (2.0) breaks on the best rank in any list (1 and 1), then the id
    x = hits[1]
    assert x.ranks["speaker"] == 2 and x.ranks[DATE] == 1


def test_date_rows_mark_the_candidates_inside_the_period_by_their_utc_day():
    vector, _ = _lists()
    june = rec("j", datetime(2023, 5, 31, 23, 59, tzinfo=timezone.utc))
    june_1 = rec("k", datetime(2023, 6, 1, 0, 0, tzinfo=timezone.utc))
    occurred = np.array([r.occurred_at.timestamp() for r in (vector[2].record, vector[0].record, june, june_1)])
    assert date_rows("What happened in May 2023?", None, occurred).tolist() == [True, False, True, False]
    assert not date_rows("What happened in May 2023?", None, occurred[:1]).any()  # all inside
    assert not date_rows("What happened?", None, occurred).any()  # no period named
