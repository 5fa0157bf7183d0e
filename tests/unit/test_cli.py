"""Unit layer (cli): ``cbmemory recipes`` lists the named recipes and prints one, or all, as JSON; no store."""

import json

from cbmemory.cli import main
from cbmemory.retrieval import RECIPES, Recipe


def test_recipes_lists_and_prints_json(capsys):
    assert main(["recipes"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in RECIPES) and RECIPES["default"].description in listing
    assert main(["recipes", "hybrid_scaled"]) == 0
    assert Recipe.from_json(capsys.readouterr().out) == RECIPES["hybrid_scaled"]
    assert main(["recipes", "--json"]) == 0
    everything = json.loads(capsys.readouterr().out)
    assert {n: Recipe.from_dict(d) for n, d in everything.items()} == dict(RECIPES)
    assert main(["recipes", "nope"]) == 2 and "unknown recipe 'nope'" in capsys.readouterr().err
