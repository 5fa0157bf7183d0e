"""Unit layer: recipes as data: frozen, copied with ``with_``, serialised to JSON and read back exactly
(every named recipe, and Hypothesis-generated ones); unknown fields and values raise InvalidInputError."""

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory import InvalidInputError
from cbmemory.context import ContextConfig
from cbmemory.ingest import DATE_RULES, MODES, EnrichConfig, IngestConfig
from cbmemory.recipes import Recipe, all_recipes, get_recipe
from cbmemory.retrieval import (
    BoostConfig,
    ContextBoostConfig,
    FilterConfig,
    Fusion,
    FusionConfig,
    Order,
    OrderConfig,
    Rerank,
    RerankConfig,
    RetrievalConfig,
    Signal,
    SignalSpec,
)
from cbmemory.retrieval.config import KINDS

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

# ---------------------------------------------------------------------------- strategies
counts = st.integers(1, 10_000)
weights = st.floats(0, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def retrieval_configs(draw) -> RetrievalConfig:
    signals = draw(st.lists(st.sampled_from(list(Signal)), min_size=1, max_size=3, unique=True))
    return RetrievalConfig(
        signals=tuple(SignalSpec(s, draw(st.none() | counts), draw(weights)) for s in signals),
        filters=FilterConfig(draw(st.none() | st.lists(st.sampled_from(KINDS), min_size=1, unique=True).map(tuple)),
                             draw(st.booleans())),
        fusion=FusionConfig(draw(st.sampled_from(list(Fusion))), draw(counts)),
        boosts=BoostConfig(draw(weights), draw(weights)),
        context_boost=ContextBoostConfig(draw(weights), draw(weights)),
        rerank=RerankConfig(draw(st.sampled_from(list(Rerank))), draw(counts)),
        order=OrderConfig(draw(st.sampled_from(list(Order))), draw(counts)),
        k=draw(st.none() | counts), window=draw(st.integers(0, 50)),
    )


enrich_configs = st.builds(
    EnrichConfig, modes=st.lists(st.sampled_from(MODES), min_size=1, unique=True).map(tuple),
    summary_unit=st.sampled_from(("session", "round")), turns_per_call=counts, rounds_per_call=counts,
    summary_max_turns=counts, summary_sentences=counts, context_turns=st.integers(0, 50),
    prompt_version=st.text(st.characters(codec="utf-8"), min_size=1, max_size=12),
)
ingest_configs = st.builds(
    IngestConfig, anchor_dates=st.booleans(), unit=st.sampled_from(("turn", "round")),
    index_annotation_keys=st.lists(st.text(st.characters(codec="utf-8"), max_size=8), max_size=3).map(tuple),
    with_previous_turn=st.booleans(), date_rules=st.sampled_from((None, *sorted(DATE_RULES))),
    enrich=st.none() | enrich_configs,
)
context_configs = st.builds(
    lambda dates, resolve, today, order, rules, budget: ContextConfig(dates, dates and resolve, today, order, rules,
                                                                      token_budget=budget),
    st.booleans(), st.booleans(), st.booleans(), st.sampled_from(("chronological", "rank")),
    st.sampled_from(sorted(DATE_RULES)), st.none() | counts,
)
recipes = st.builds(
    Recipe, name=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}", fullmatch=True),
    description=st.text(st.characters(codec="utf-8"), max_size=80), ingest=ingest_configs,
    retrieval=retrieval_configs(), context=context_configs,
)


# ---------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_every_named_recipe_round_trips_exactly(name):
    recipe = RECIPES[name]
    text = recipe.to_json()
    assert Recipe.from_json(text) == recipe
    assert Recipe.from_dict(json.loads(text)) == recipe == Recipe.from_dict(recipe.to_dict())
    assert Recipe.from_json(text).to_json() == text  # the JSON itself is stable
    assert Recipe.from_json(recipe.to_json(indent=2)) == recipe


@pytest.mark.heavy
@settings(max_examples=300, deadline=None)
@given(recipes)
def test_any_recipe_round_trips_exactly(recipe):
    assert Recipe.from_json(recipe.to_json()) == recipe
    assert RetrievalConfig.from_dict(recipe.retrieval.to_dict()) == recipe.retrieval
    assert ContextConfig.from_dict(recipe.context.to_dict()) == recipe.context


def test_json_is_plain_data_with_enum_strings():
    d = json.loads(RECIPES["default"].to_json())
    assert set(d) == {"name", "description", "ingest", "retrieval", "context"}
    assert d["context"] == {"dates": True, "resolve_dates": True, "say_today": True, "order": "chronological",
                            "date_rules": RECIPES["default"].context.date_rules, "layout": "session_last",
                            "token_budget": 2048}
    assert "token_budget" not in d["retrieval"]  # the context stage's setting
    assert json.loads(RECIPES["vector_no_dates"].to_json())["context"]["dates"] is False
    r = d["retrieval"]
    assert r["signals"] == [{"name": "vector", "pool": 100, "weight": 0.75}, {"name": "bm25", "pool": 100, "weight": 1.0}]
    assert r["fusion"] == {"method": "weighted", "rrf_k": 60} and r["rerank"] == {"method": "none", "pool": 10}
    assert d["ingest"]["with_previous_turn"] is True
    assert json.loads(RECIPES["hybrid_dates"].to_json())["ingest"]["date_rules"] == "rules-v2"
    assert json.loads(RECIPES["events"].to_json())["ingest"]["enrich"]["modes"] == ["summary", "events"]


def test_missing_fields_take_their_defaults():
    assert Recipe.from_dict({"name": "bare"}) == Recipe("bare")
    r = Recipe.from_json('{"name": "few", "retrieval": {"signals": ["bm25"], "k": 3}}')
    assert r.retrieval == RetrievalConfig(signals=(Signal.BM25,), k=3) and r.ingest == IngestConfig()


# ---------------------------------------------------------------------------- enums
def test_enum_fields_accept_their_strings_and_compare_equal_to_them():
    cfg = RetrievalConfig().with_(signals=["bm25", "vector"], fusion="weighted", rerank="bm25", order="recency",
                                  weights=[["bm25", 2], ("vector", 0.5)])
    assert [s.name for s in cfg.signals] == [Signal.VECTOR, Signal.BM25]  # one canonical order
    assert [(s.name, s.weight) for s in cfg.signals] == [(Signal.VECTOR, 0.5), (Signal.BM25, 2.0)]
    method = cfg.fusion.method
    assert method is Fusion.WEIGHTED and method == "weighted" and f"{method}" == "weighted"
    assert cfg.rerank.method is Rerank.BM25 and cfg.order.by is Order.RECENCY
    assert cfg == RetrievalConfig(signals=(SignalSpec(Signal.BM25, weight=2.0), SignalSpec("vector", weight=0.5)),
                                  fusion=FusionConfig(Fusion.WEIGHTED), rerank=RerankConfig("bm25"),
                                  order=OrderConfig(Order.RECENCY))


# ---------------------------------------------------------------------------- bad input
BAD_RETRIEVAL = [
    {"signals": []}, {"signals": ["telepathy"]}, {"signals": "vector"}, {"signals": ["vector", "vector"]},
    {"fusion": "average"}, {"fusion": 1}, {"fusion": ["rrf"]}, {"rerank": "okapi"}, {"rerank": None},
    {"order": "random"}, {"k": 0}, {"k": "10"}, {"k": True}, {"k": 2.5}, {"token_budget": 0},
    {"vector_pool": 0}, {"rrf_k": -1}, {"rerank_pool": None}, {"future_filter": "yes"},
    {"weights": [["bm25", 1.0]]},  # not among the signals
    {"weights": [["vector", -1.0]]}, {"weights": [["vector", float("nan")]]}, {"weights": [["vector", "1"]]},
    {"weights": [["vector", 1.0], ["vector", 2.0]]}, {"weights": [["vector"]]}, {"weights": "vector"},
    {"kinds": []}, {"kinds": ["thought"]}, {"kinds": "turn"}, {"kinds": ["turn", "turn"]},
    {"speaker_weight": float("inf")}, {"speaker_weight": -0.5}, {"speaker_weight": None},
    {"window": -1}, {"window": 1.5}, {"window": "1"}, {"window": None}, {"window": True},
    {"colour": "blue"},
    # the grouped form
    {"signals": [{"name": "telepathy"}]}, {"signals": [{"pool": 3}]}, {"signals": [{"name": "bm25", "pool": 0}]},
    {"signals": [{"name": "bm25", "weight": -1}]}, {"signals": [{"name": "bm25", "colour": 1}]},
    {"signals": [{"name": "bm25"}, "bm25"]}, {"fusion": {"method": "average"}}, {"fusion": {"rrf_k": 0}},
    {"fusion": {"colour": 1}}, {"filters": "turn"}, {"filters": {"kinds": ["thought"]}},
    {"filters": {"drop_future": 1}}, {"boosts": {"speaker_weight": -1}}, {"boosts": 1.0},
    {"context_boost": {"session_weight": "1"}}, {"rerank": {"method": "okapi"}}, {"rerank": {"pool": None}},
    {"order": {"by": "random"}}, {"order": {"pool": 0}},
]


@pytest.mark.parametrize("fields", BAD_RETRIEVAL, ids=[json.dumps(b) for b in BAD_RETRIEVAL])
def test_bad_retrieval_fields_raise_typed_errors(fields):
    with pytest.raises(InvalidInputError):
        RetrievalConfig.from_dict(fields)
    with pytest.raises(InvalidInputError):
        Recipe.from_dict({"name": "x", "retrieval": fields})


BAD_RECIPES = [
    "not json", "[1, 2]", "null", '{"description": "no name"}', '{"name": ""}', '{"name": "a/b"}',
    '{"name": "x.json"}', '{"name": "x@x10"}', '{"name": 3}', '{"name": "x", "description": 1}',
    '{"name": "x", "extra": 1}', '{"name": "x", "ingest": {"anchors": true}}',
    '{"name": "x", "ingest": {"unit": "paragraph"}}', '{"name": "x", "ingest": {"date_rules": "rules-v0"}}',
    '{"name": "x", "ingest": {"enrich": {"modes": ["poems"]}}}', '{"name": "x", "ingest": []}',
    '{"name": "x", "retrieval": "hybrid"}',
]


@pytest.mark.parametrize("text", BAD_RECIPES)
def test_bad_recipe_json_raises_typed_errors(text):
    with pytest.raises(InvalidInputError):
        Recipe.from_json(text)


def test_recipe_fields_are_checked_on_construction():
    with pytest.raises(InvalidInputError):
        Recipe("x", retrieval={"k": 3})  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        Recipe("x", ingest=None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- copies and look-ups
def test_recipes_are_frozen_and_copies_leave_them_untouched():
    v = RECIPES["vector"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.name = "mine"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.retrieval.k = 3  # type: ignore[misc]
    copy = v.with_(name="vector_3", k=3)
    assert copy.retrieval.k == 3 and copy.name == "vector_3" and copy.ingest is v.ingest
    assert v.retrieval.k == 10 and RECIPES["vector"].retrieval.k == 10 and RECIPES["vector"].name == "vector"
    assert v.retrieval.with_(k=4).k == 4 and v.retrieval.k == 10
    both = v.with_(retrieval=RetrievalConfig(signals=("bm25",)), k=7)  # retrieval given, then changed
    assert both.retrieval.signals == (SignalSpec(Signal.BM25),) and both.retrieval.k == 7
    with pytest.raises(InvalidInputError):
        v.with_(colour="blue")
    with pytest.raises(InvalidInputError):
        v.retrieval.with_(name="x")  # a recipe field, not a retrieval one
    assert set(RECIPES) >= {"vector", "vector_no_dates", "vector_bm25_rerank_10", "vector_bm25_rerank_50",
                            "vector_bm25_rerank_100", "hybrid", "recency", "future_filter", "default"}
    assert RECIPES["vector_no_dates"].ingest.anchor_dates is False
    assert all(name == r.name for name, r in RECIPES.items())


def test_get_recipe_takes_a_name_or_a_recipe():
    mine = RECIPES["bm25"].with_(name="mine")
    assert get_recipe(mine) is mine and get_recipe("bm25") is RECIPES["bm25"]
    with pytest.raises(InvalidInputError, match="unknown recipe 'nope'"):
        get_recipe("nope")
    with pytest.raises(InvalidInputError, match="wrap it"):
        get_recipe(RetrievalConfig())  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        get_recipe(3)  # type: ignore[arg-type]
