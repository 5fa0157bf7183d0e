"""Unit layer (cbmemory.retrieval), issue 30: the relevance floor (``FilterConfig.floor``), its checks, its JSON,
the recipes that have it and those that do not, and the cut it makes on a ranking (``Ranking.above``)."""

import math

import numpy as np
import pytest

from cbmemory import InvalidInputError
from cbmemory.recipes import RECIPES, Recipe
from cbmemory.retrieval import RetrievalConfig
from cbmemory.retrieval.pool import fused, unite
from cbmemory.retrieval.ranking import Ranking
from cbmemory.retrieval.stages import FilterConfig, Fusion
from cbmemory.store.candidates import Candidates


def test_the_default_has_a_floor_and_default_no_floor_is_the_same_recipe_without_it():
    default, bare = RECIPES["default"], RECIPES["default_no_floor"]
    assert default.retrieval.filters.floor is not None and 0 < default.retrieval.filters.floor < 1
    assert bare.retrieval.filters.floor is None
    assert bare.with_(name="default", description=default.description, floor=default.retrieval.filters.floor,
                      current_value=True) == default  # and the current-value stage (issue 31)
    assert RECIPES["default_sparse"].retrieval.filters.floor == default.retrieval.filters.floor


@pytest.mark.parametrize("bad", [1.5, -2, "0.2", True, math.nan, math.inf])
def test_a_floor_is_a_cosine_or_none(bad):
    with pytest.raises(InvalidInputError, match="floor"):
        FilterConfig(floor=bad)
    with pytest.raises(InvalidInputError, match="floor"):
        RetrievalConfig().with_(floor=bad)


def test_a_floor_needs_the_vector_signal():
    with pytest.raises(InvalidInputError, match="vector signal"):
        RECIPES["bm25"].with_(floor=0.2)


def test_the_floor_round_trips_and_old_recipes_read_back_without_one():
    recipe = RECIPES["default"]
    assert Recipe.from_json(recipe.to_json()) == recipe
    assert recipe.retrieval.to_dict()["filters"]["floor"] == recipe.retrieval.filters.floor
    old = recipe.to_dict()
    del old["retrieval"]["filters"]["floor"]  # a recipe stamped before the floor
    assert Recipe.from_dict(old).retrieval.filters.floor is None


def _candidates(ids: list[str], scores: list[float]) -> Candidates:
    n = len(ids)
    return Candidates("u", np.array(ids, dtype=object), np.array(ids, dtype=object), np.array(scores, dtype=float),
                      np.array(["s"] * n, dtype=object), np.array(["turn"] * n, dtype=object),
                      np.arange(n, dtype=np.int64), np.zeros(n), np.array([None] * n, dtype=object),
                      np.zeros(n, dtype=bool))


def test_a_ranking_above_the_floor_keeps_its_order_and_drops_the_rest():
    pool = fused(unite({"vector": _candidates(["a", "b", "c"], [0.6, 0.3, 0.1]),
                        "bm25": _candidates(["d", "c"], [5.0, 4.0])}), {}, Fusion.WEIGHTED, 60)
    ranking = Ranking.of(pool)
    ids = [pool.columns.ids[i] for i in ranking.order]
    sim = pool.signals["vector"]
    above = ranking.above(0.25, sim, unranked=-math.inf)  # "d": no cosine, every record scored: dropped
    assert [pool.columns.ids[i] for i in above.order] == [i for i in ids if i in {"a", "b"}]
    generous = ranking.above(0.25, sim, unranked=0.3)  # the vector list was cut at 0.3: "d" could be above
    assert [pool.columns.ids[i] for i in generous.order] == [i for i in ids if i in {"a", "b", "d"}]
    assert list(ranking.above(-1.0, sim, unranked=-1.0).order) == list(ranking.order)
