"""Unit layer (retrieval): the core's ``RECIPES`` are the product's eight, each with one line on when to choose
it; recipes of installed packages (entry-point group ``cbmemory.recipes``, the study's rows from
``cbmemory-eval``) are found by name through ``get_recipe`` and listed by ``all_recipes``, never taking a
core name; a package whose entry point is broken is left out with a warning, and without any the unknown
name says where the study's come from."""

from __future__ import annotations

import importlib.metadata
from types import MappingProxyType, SimpleNamespace

import pytest

from cbmemory import InvalidInputError
from cbmemory.recipes import RECIPES, Recipe, all_recipes, get_recipe, plugin_recipes
from cbmemory.recipes import named as recipes_module

PRODUCT = ["default", "default_sparse", "default_no_window", "default_no_floor", "vector", "bm25", "hybrid", "recency", "events_raw"]


class FakeEntryPoint:
    def __init__(self, name: str, found: object, dist: str = "pkg"):
        self.name, self.value, self.found, self.dist = name, f"{dist}.module:THING", found, SimpleNamespace(name=dist)

    def load(self):
        if isinstance(self.found, Exception):
            raise self.found
        return self.found


@pytest.fixture
def installed(monkeypatch):
    """Replace the installed entry points of ``cbmemory.recipes`` with the ones a test gives."""
    eps: list[FakeEntryPoint] = []
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        return list(eps) if kw.get("group") == recipes_module.ENTRY_POINTS else real(**kw)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    plugin_recipes.cache_clear()
    yield eps
    plugin_recipes.cache_clear()


def test_the_core_names_the_product_recipes_each_saying_when_to_choose_it():
    assert list(RECIPES) == PRODUCT
    for name, recipe in RECIPES.items():
        assert recipe.name == name and recipe.description.count("\n") == 0
        assert "Choose it" in recipe.description or "Start here" in recipe.description, name
        # standalone: a description never defines a recipe by another one's name
        assert not any(f"{other}," in recipe.description or recipe.description.startswith(other)
                       for other in all_recipes() if other != name), name
    assert "FTS5" not in RECIPES["bm25"].description


def test_the_study_s_rows_are_found_by_name_when_it_is_installed():
    study = plugin_recipes()["cbmemory-eval"]
    assert {"vector_no_dates", "hybrid_scaled", "question_dates", "default_v1", "default_v2_scale"} <= set(study)
    assert not set(study) & set(RECIPES)
    assert get_recipe("question_dates") is study["question_dates"] is all_recipes()["question_dates"]
    assert list(all_recipes())[: len(PRODUCT)] == PRODUCT  # the core's first
    assert not study["question_dates"].description.startswith("default_v1")  # item 7: standalone


def test_a_package_adds_recipes_without_taking_a_core_name(installed):
    mine = Recipe("mine", "Mine.")
    installed += [FakeEntryPoint("a", MappingProxyType({"mine": mine, "default": Recipe("default", "Not it.")}))]
    assert get_recipe("mine") is mine and get_recipe("default") is RECIPES["default"]
    assert plugin_recipes() == {"pkg": {"mine": mine}}


def test_a_broken_package_is_left_out_with_a_warning(installed):
    installed += [FakeEntryPoint("a", ImportError("no module named x"), dist="broken"),
                  FakeEntryPoint("b", {"ok": Recipe("other", "Misnamed.")}, dist="misnamed"),
                  FakeEntryPoint("c", {"good": Recipe("good", "Good.")}, dist="fine")]
    with pytest.warns(RuntimeWarning) as caught:
        assert get_recipe("good").name == "good"
    assert sorted(str(w.message).split(" ")[2] for w in caught) == ["broken", "misnamed"]


def test_without_the_study_an_unknown_name_says_where_the_study_s_come_from(installed):
    with pytest.raises(InvalidInputError, match=r"unknown recipe 'hybrid_scaled'.*pip install cbmemory-eval"):
        get_recipe("hybrid_scaled")
    assert dict(all_recipes()) == dict(RECIPES)
