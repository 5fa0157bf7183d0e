"""Unit layer: ``RetrievalConfig`` grouped by stage. Every recipe (the core's and the study's) holds the same
values as the flat config it was before the groups (tests/data/recipes_flat_v1.json, written by that code),
and the recipes stamped in that flat form read back to equal recipes; ``with_`` takes the flat names
(``<signal>_pool`` for every signal); the groups are frozen, checked and round-trip; a signal is one
``Signal`` member, its default pool and its search."""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory import InvalidInputError
from cbmemory.recipes import RELEVANCE_FLOOR, Recipe, all_recipes
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
from cbmemory.retrieval.config import DEFAULT_POOLS, GROUPS, KINDS, SHORTHANDS
from cbmemory.retrieval.engine import SEARCHES

FLAT = json.loads((Path(__file__).parents[2] / "data" / "recipes_flat_v1.json").read_text(encoding="utf-8"))
FLAT_POOLS = {"vector_pool": Signal.VECTOR, "text_pool": Signal.BM25, "entity_pool": Signal.ENTITY,
              "sparse_pool": Signal.SPARSE}


def as_flat(recipe: Recipe) -> dict:
    """The flat fields of ``recipe``'s retrieval, written out by hand (independent of the code under test),
    with the token budget, which was among them before it moved to the recipe's context. A signal that
    does not run has no pool any more, and every weight is explicit: pools of the running signals and the
    effective weights are what the flat form meant."""
    cfg = recipe.retrieval
    return {
        "signals": [s.name.value for s in cfg.signals],
        **{f: cfg.spec(s).pool for f, s in FLAT_POOLS.items() if cfg.uses(s)},
        "weights": {s.name.value: s.weight for s in cfg.signals},
        "fusion": cfg.fusion.method.value, "rrf_k": cfg.fusion.rrf_k,
        "rerank": cfg.rerank.method.value, "rerank_pool": cfg.rerank.pool,
        "order": cfg.order.by.value, "recency_pool": cfg.order.pool,
        "future_filter": cfg.filters.drop_future,
        "kinds": list(cfg.filters.kinds) if cfg.filters.kinds is not None else None,
        "speaker_weight": cfg.boosts.speaker_weight, "date_weight": cfg.boosts.date_weight,
        "neighbour_weight": cfg.context_boost.neighbour_weight, "session_weight": cfg.context_boost.session_weight,
        "k": cfg.k, "window": cfg.window, "token_budget": recipe.context.token_budget,
    }


def meant(flat: dict) -> dict:
    """What a flat stamp meant: pools of the running signals only, a weight of 1 where none was given."""
    out = {k: v for k, v in flat.items() if k not in FLAT_POOLS or FLAT_POOLS[k].value in flat["signals"]}
    out["weights"] = {s: 1.0 for s in flat["signals"]} | {s: w for s, w in flat["weights"]}
    return out


# ---------------------------------------------------------------------------- the same recipes as before
# Since the fixture was written (issue 23), issue 25 added ``default_v2`` (the default before it), gave the
# default (and the recipes made from it) ``skip_shown`` and the default's vector list the weight 0.75: their
# old stamps read back as they were.
# Issue 30 added ``default_no_floor`` (the default before its relevance floor) and gave the default (and
# default_sparse, made from it) the floor.
ADDED_SINCE = {"default_v2", "default_no_floor"}
FLOOR_SINCE = {"default", "default_sparse"}
SKIP_SHOWN_SINCE = {"default", "default_sparse", "default_v2_scale"}
VECTOR_075_SINCE = {"default", "default_sparse", "default_no_window"}
# Issue 31 gave the extraction prompt slot keys (enrich-v2): the enriched recipes' old stamps name enrich-v1;
# and the default (and recipes made from it) the current-value stage.
PROMPT_SINCE = "enrich-v1"
CURRENT_VALUE_SINCE = {n for n, r in all_recipes().items() if r.retrieval.current_value}


def as_it_was(name: str) -> Recipe:
    recipe = all_recipes()[name]
    if name in SKIP_SHOWN_SINCE:
        recipe = recipe.with_(skip_shown=False, description=FLAT[name]["description"])
    if name in VECTOR_075_SINCE:
        weights = {spec.name.value: spec.weight for spec in recipe.retrieval.signals} | {"vector": 1.0}
        recipe = recipe.with_(weights=weights, description=FLAT[name]["description"])
    if name in FLOOR_SINCE:
        recipe = recipe.with_(floor=None, description=FLAT[name]["description"])
    if name in CURRENT_VALUE_SINCE:
        recipe = recipe.with_(current_value=False, description=FLAT[name]["description"])
    if recipe.ingest.enrich is not None:  # issue 31 bumped the extraction prompt (enrich-v2: slot keys)
        enrich = dataclasses.replace(recipe.ingest.enrich, prompt_version=PROMPT_SINCE)
        recipe = dataclasses.replace(recipe, ingest=dataclasses.replace(recipe.ingest, enrich=enrich))
    return recipe


def test_the_fixture_holds_every_recipe():
    assert set(FLAT) == set(all_recipes()) - ADDED_SINCE and len(FLAT) >= 24
    assert all(all_recipes()[n].retrieval.skip_shown for n in SKIP_SHOWN_SINCE)
    assert all(all_recipes()[n].retrieval.spec("vector").weight == 0.75 for n in VECTOR_075_SINCE)
    assert {"default", "default_sparse"} <= CURRENT_VALUE_SINCE


@pytest.mark.parametrize("name", sorted(FLAT))
def test_every_recipe_holds_the_values_of_its_flat_config(name):
    recipe = as_it_was(name)
    assert as_flat(recipe) == meant(FLAT[name]["retrieval"])


@pytest.mark.parametrize("name", sorted(FLAT))
def test_a_recipe_stamped_in_the_flat_form_reads_back_to_the_equal_recipe(name):
    stamped = FLAT[name]
    assert "vector_pool" in stamped["retrieval"] and "token_budget" in stamped["retrieval"]  # the old form
    budget = stamped["retrieval"]["token_budget"]
    retrieval = {k: v for k, v in stamped["retrieval"].items() if k != "token_budget" or budget is None}
    assert RetrievalConfig.from_dict(retrieval) == as_it_was(name).retrieval
    assert as_it_was(name).context.token_budget == budget  # the budget read from the retrieval, into the context
    assert Recipe.from_dict(stamped) == as_it_was(name) == Recipe.from_json(json.dumps(stamped))
    assert Recipe.from_json(Recipe.from_json(json.dumps(stamped)).to_json()) == as_it_was(name)


def test_the_grouped_json_has_one_object_per_stage():
    d = all_recipes()["default_sparse"].retrieval.to_dict()
    assert set(d) == {"signals", *GROUPS, "k", "window", "skip_shown", "current_value"}
    assert all_recipes()["default_sparse"].context.to_dict()["token_budget"] == 2048
    assert d["signals"][-1] == {"name": "sparse", "pool": 100, "weight": 0.75}
    assert d["context_boost"] == {"neighbour_weight": 0.5, "session_weight": 0.5}
    assert d["order"] == {"by": "relevance", "pool": 30}
    assert d["filters"] == {"kinds": None, "drop_future": False, "echoes": False, "floor": RELEVANCE_FLOOR}


# ---------------------------------------------------------------------------- flat names
flat_kwargs = st.fixed_dictionaries({}, optional={
    "signals": st.lists(st.sampled_from(list(Signal)), min_size=1, unique=True),
    "fusion": st.sampled_from(list(Fusion)), "rrf_k": st.integers(1, 500),
    "rerank": st.sampled_from(["none", "bm25"]), "rerank_pool": st.integers(1, 500),
    "order": st.sampled_from(list(Order)), "recency_pool": st.integers(1, 500),
    "future_filter": st.booleans(), "kinds": st.none() | st.lists(st.sampled_from(KINDS), min_size=1, unique=True),
    "speaker_weight": st.floats(0, 5), "date_weight": st.floats(0, 5), "neighbour_weight": st.floats(0, 5),
    "session_weight": st.floats(0, 5), "k": st.none() | st.integers(1, 50), "window": st.integers(0, 3),
})


def grouped(flat: dict, pools: dict[Signal, int], weights: dict[Signal, float]) -> RetrievalConfig:
    """The grouped config that flat names mean, built by hand from the default."""
    d = RetrievalConfig()
    signals = flat.get("signals", [Signal.VECTOR])
    return RetrievalConfig(
        signals=tuple(SignalSpec(s, pools.get(s), weights.get(s, 1.0)) for s in signals),
        filters=FilterConfig(flat.get("kinds", d.filters.kinds), flat.get("future_filter", d.filters.drop_future)),
        fusion=FusionConfig(flat.get("fusion", d.fusion.method), flat.get("rrf_k", d.fusion.rrf_k)),
        boosts=BoostConfig(flat.get("speaker_weight", 0.0), flat.get("date_weight", 0.0)),
        context_boost=ContextBoostConfig(flat.get("neighbour_weight", 0.0), flat.get("session_weight", 0.0)),
        rerank=RerankConfig(flat.get("rerank", d.rerank.method), flat.get("rerank_pool", d.rerank.pool)),
        order=OrderConfig(flat.get("order", d.order.by), flat.get("recency_pool", d.order.pool)),
        k=flat.get("k", d.k), window=flat.get("window", d.window),
    )


@pytest.mark.heavy
@settings(max_examples=200, deadline=None)
@given(flat_kwargs, st.data())
def test_flat_names_mean_the_grouped_config(flat, data):
    signals = flat.get("signals", [Signal.VECTOR])
    pools = {s: data.draw(st.integers(1, 500)) for s in signals if data.draw(st.booleans())}
    weights = {s: data.draw(st.floats(0, 5)) for s in signals if data.draw(st.booleans())}
    names = {f"{s.value}_pool": p for s, p in pools.items()}
    expected = grouped(flat, pools, weights)
    made = RetrievalConfig().with_(**flat, **names, **({"weights": list(weights.items())} if weights else {}))
    assert made == expected
    stamped = json.loads(json.dumps({**flat, **names, "weights": [[s, w] for s, w in weights.items()]}))
    assert RetrievalConfig.from_dict(stamped) == expected  # the flat JSON form
    assert RetrievalConfig.from_dict(expected.to_dict()) == expected  # the grouped one


def test_every_signal_has_its_pool_shorthand_and_text_pool_is_bm25_s():
    assert {f"{s.value}_pool" for s in Signal} | {"text_pool"} <= set(SHORTHANDS)
    cfg = RetrievalConfig().with_(signals=list(Signal), **{f"{s.value}_pool": i + 7 for i, s in enumerate(Signal)})
    assert [s.pool for s in cfg.signals] == [i + 7 for i in range(len(Signal))]
    assert cfg.with_(text_pool=3).spec("bm25").pool == 3 == cfg.with_(bm25_pool=3).spec(Signal.BM25).pool
    with pytest.raises(InvalidInputError, match="twice"):
        cfg.with_(text_pool=3, bm25_pool=4)


def test_a_pool_or_a_weight_for_a_signal_that_does_not_run_is_refused_by_with_():
    bm25 = all_recipes()["bm25"]
    with pytest.raises(InvalidInputError, match="vector_pool: vector is not among the signals"):
        bm25.with_(vector_pool=100)
    with pytest.raises(InvalidInputError, match="not among"):
        bm25.retrieval.with_(weights={"vector": 2.0})
    assert bm25.with_(signals=("vector", "bm25"), vector_pool=100).retrieval.spec("vector").pool == 100


def test_the_flat_form_held_every_pool_so_one_of_a_signal_that_does_not_run_is_checked_then_left_out():
    assert RetrievalConfig.from_dict({"signals": ["bm25"], "vector_pool": 70}) == RetrievalConfig(signals=("bm25",))
    with pytest.raises(InvalidInputError, match="vector"):
        RetrievalConfig.from_dict({"signals": ["bm25"], "vector_pool": 0})


def test_a_name_in_signals_keeps_the_spec_of_a_running_signal_a_spec_replaces_it():
    cfg = all_recipes()["default_sparse"].retrieval
    assert cfg.with_(signals=("sparse", "vector")).signals == (cfg.spec("vector"), cfg.spec("sparse"))
    assert cfg.with_(signals=(SignalSpec("sparse"),), floor=None).signals == (SignalSpec(Signal.SPARSE, pool=50,
                                                                                          weight=1.0),)
    assert cfg.with_(weights={"sparse": 2.0}).spec("vector").weight == 1.0  # weights name them all, else 1
    assert cfg.with_(signals=("vector",)).spec("vector") == cfg.spec("vector")


def test_a_whole_group_and_its_flat_names_together():
    cfg = RetrievalConfig().with_(fusion=FusionConfig("weighted", 30), rrf_k=40, rerank="bm25", rerank_pool=20)
    assert cfg.fusion == FusionConfig(Fusion.WEIGHTED, 40) and cfg.rerank == RerankConfig(Rerank.BM25, 20)
    assert cfg.with_(order=OrderConfig("recency")).order.pool == 30  # a group replaces the group


# ---------------------------------------------------------------------------- the groups themselves
GROUP_VALUES = [SignalSpec("entity", 5, 0.5), FilterConfig(("turn",), True), FusionConfig("weighted", 9),
                BoostConfig(1.0, 2.0), ContextBoostConfig(0.5, 0.25), RerankConfig("bm25", 5), OrderConfig("recency", 4)]


@pytest.mark.parametrize("group", GROUP_VALUES, ids=lambda g: type(g).__name__)
def test_each_group_is_frozen_and_round_trips(group):
    assert type(group).from_dict(json.loads(json.dumps(group.to_dict()))) == group
    assert pickle.loads(pickle.dumps(group)) == group and hash(group) == hash(dataclasses.replace(group))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(group, dataclasses.fields(group)[0].name, None)
    with pytest.raises(InvalidInputError):
        type(group).from_dict({**group.to_dict(), "colour": 1})


@pytest.mark.parametrize("make", [
    lambda: SignalSpec("telepathy"), lambda: SignalSpec("vector", 0), lambda: SignalSpec("vector", True),
    lambda: SignalSpec("vector", weight=float("nan")), lambda: FilterConfig(kinds=()), lambda: FilterConfig(drop_future=1),
    lambda: FusionConfig("average"), lambda: FusionConfig(rrf_k=0), lambda: BoostConfig(speaker_weight=-1),
    lambda: ContextBoostConfig(session_weight=float("inf")), lambda: RerankConfig("okapi"), lambda: RerankConfig(pool=0),
    lambda: OrderConfig("random"), lambda: OrderConfig(pool=None),
    lambda: RetrievalConfig(fusion="weighted"), lambda: RetrievalConfig(signals=()),
    lambda: RetrievalConfig(signals=(SignalSpec("bm25"), "bm25")), lambda: RetrievalConfig(signals=(3,)),
    lambda: RetrievalConfig(boosts={"speaker_weight": 1.0}), lambda: RetrievalConfig(window=-1),
])
def test_groups_are_checked_on_construction(make):
    with pytest.raises(InvalidInputError):
        make()


def test_uses_and_spec():
    cfg = all_recipes()["hybrid"].retrieval
    assert cfg.uses("entity") and cfg.uses(Signal.BM25) and not cfg.uses(Signal.SPARSE)
    assert cfg.spec(Signal.ENTITY) == SignalSpec(Signal.ENTITY, pool=30)
    with pytest.raises(InvalidInputError, match="sparse is not among the signals"):
        cfg.spec("sparse")


def test_a_signal_is_a_member_its_default_pool_and_its_search():
    assert set(DEFAULT_POOLS) == set(Signal) == set(SEARCHES)
    assert all(SignalSpec(s).pool == DEFAULT_POOLS[s] for s in Signal)
