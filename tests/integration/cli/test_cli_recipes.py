"""Integration layer (cli): the command line honours recipes (their own k, scale-aware k, recipes read from
JSON files) on a real SQLite file with the offline embedder. ``cbmemory recipes`` alone:
tests/unit/test_cli.py."""

import json

import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main
from cbmemory.recipes import RECIPES, Recipe

TOPICS = ["pottery class", "lasagna dinner", "blue vase", "charity run", "camping trip"]
QUERY = "What did I make at the pottery class?"


@pytest.fixture
def db(tmp_path, minilm):
    path = tmp_path / "m.db"
    with AgentMemory.open(path, embedder=minilm) as m:
        for s in range(3):  # 3 sessions: scale-aware k is 5 here, not the CLI's old fixed 10
            m.add_session("u", f"s{s}", [{"role": "user", "content": f"Session {s}: about the {t}.",
                                          "turn_id": f"s{s}t{i}"} for i, t in enumerate(TOPICS)],
                          date=f"2023-05-0{s + 1}")
    return path


def _cli_hits(capsys, *args):
    assert main(["search", QUERY, "--user", "u", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.heavy
@pytest.mark.filterwarnings("ignore::cbmemory.RecipeMismatchWarning")  # the store is made the default way
def test_search_returns_the_recipe_s_own_k_as_the_api_does(db, capsys, minilm):
    with AgentMemory.open(db, embedder=minilm, read_only=True) as m:
        api = {name: [h.record.turn_id for h in m.search(QUERY, "u", recipe=name)]
               for name in ("hybrid_scaled", "vector", "bm25")}
    assert len(api["hybrid_scaled"]) == 5 and len(api["vector"]) == 10
    for name, turn_ids in api.items():
        cli = _cli_hits(capsys, "--db", str(db), "--recipe", name)
        assert [h["turn_id"] for h in cli] == turn_ids and {h["recipe"] for h in cli} == {name}
    assert len(_cli_hits(capsys, "--db", str(db), "--recipe", "hybrid_scaled", "--k", "2")) == 2


def test_search_reads_a_recipe_from_a_json_file(db, tmp_path, capsys):
    path = tmp_path / "mine.json"
    path.write_text(RECIPES["bm25"].with_(name="bm25_3", k=3).to_json())
    hits = _cli_hits(capsys, "--db", str(db), "--recipe", str(path))
    assert len(hits) == 3 and {h["recipe"] for h in hits} == {"bm25_3"}
    assert main(["recipes", str(path)]) == 0 and Recipe.from_json(capsys.readouterr().out).retrieval.k == 3
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x", "retrieval": {"fusion": "average"}}')
    assert main(["search", QUERY, "--user", "u", "--db", str(db), "--recipe", str(bad)]) == 2
    assert "fusion must be one of" in capsys.readouterr().err
    assert main(["search", QUERY, "--user", "u", "--db", str(db), "--recipe", str(tmp_path / "none.json")]) == 2
    assert "cannot read the recipe file" in capsys.readouterr().err
