"""Unit layer (issue 32): the token budget has one owner, the context stage (``ContextConfig.token_budget``),
and recipes sit above the three stages they bundle (``cbmemory.recipes``). The old places say where things
went (for one release), and recipes stamped before the move read back to equal recipes."""

from __future__ import annotations

import ast
import importlib
import json
from pathlib import Path

import pytest

from cbmemory import ContextConfig, InvalidInputError, RetrievalConfig
from cbmemory.recipes import RECIPES, Recipe

RETRIEVAL = Path(__file__).resolve().parents[3] / "shared" / "cbmemory" / "retrieval"


def test_the_budget_is_a_context_setting_and_recipe_with_still_sets_it():
    default = RECIPES["default"]
    assert default.context.token_budget == 2048 and RECIPES["default_no_window"].context.token_budget is None
    tight = default.with_(name="tight", token_budget=60, k=5)
    assert tight.context == default.context.with_(token_budget=60) and tight.retrieval == default.retrieval.with_(k=5)
    assert default.with_(context=ContextConfig(order="rank"), token_budget=99).context == ContextConfig(
        order="rank", token_budget=99)  # a context given, then its budget changed
    for bad in (0, -1, 2.5, True, "2048"):
        with pytest.raises(InvalidInputError):
            ContextConfig(token_budget=bad)
        with pytest.raises(InvalidInputError):
            default.with_(token_budget=bad)


def test_the_retrieval_config_has_no_budget_and_says_where_it_went():
    with pytest.raises(AttributeError, match="ContextConfig"):
        _ = RECIPES["default"].retrieval.token_budget
    with pytest.raises(InvalidInputError, match="ContextConfig"):
        RetrievalConfig().with_(token_budget=512)
    with pytest.raises(InvalidInputError, match="ContextConfig"):
        RetrievalConfig.from_dict({"k": 5, "token_budget": 512})
    assert RetrievalConfig.from_dict({"k": 5, "token_budget": None}) == RetrievalConfig(k=5)  # an old null stamp
    assert "token_budget" not in RetrievalConfig().to_dict()


def test_a_recipe_stamped_with_the_budget_in_its_retrieval_reads_back_equal():
    default = RECIPES["default"]
    old = default.to_dict()
    old["retrieval"]["token_budget"] = old["context"].pop("token_budget")  # how it was stamped before
    assert Recipe.from_dict(old) == default == Recipe.from_json(json.dumps(old))
    del old["context"]  # a stamp from before recipes had a context
    assert Recipe.from_dict(old).context == ContextConfig(token_budget=2048)
    both = default.to_dict()
    both["retrieval"]["token_budget"] = 512  # and 2048 in its context: which one is meant is unknown
    with pytest.raises(InvalidInputError, match="token_budget"):
        Recipe.from_dict(both)


def test_recipes_moved_out_of_retrieval_with_an_error_that_says_where():
    with pytest.raises(ImportError, match="cbmemory.recipes"):
        importlib.import_module("cbmemory.retrieval.recipes")
    for name in ("Recipe", "RECIPES", "get_recipe", "all_recipes", "plugin_recipes"):
        with pytest.raises(ImportError, match=f"from cbmemory.recipes import {name}"):
            exec(f"from cbmemory.retrieval import {name}", {})
    assert importlib.import_module("cbmemory").Recipe is Recipe  # the root's names are unchanged


def test_retrieval_imports_no_recipe_ingest_or_context():
    """Retrieval is below the recipes that bundle it: none of its modules imports recipes, or the ingest and
    context settings a recipe bundles (it imported all three through ``retrieval/recipes.py``)."""
    seen = []
    for path in sorted(RETRIEVAL.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = ("." * node.level) + (node.module or "")
                if node.level == 2 or target.startswith("cbmemory."):
                    seen.append((path.name, target.lstrip(".").removeprefix("cbmemory.").split(".")[0]))
    assert seen and not [(f, t) for f, t in seen if t in {"recipes", "ingest", "context"}]
