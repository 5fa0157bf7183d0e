"""Integration layer: notebooks/llamaindex_agent.ipynb runs top to bottom in a fresh kernel, offline with
its scripted LLM (its own asserts check the cross-session, relative-date answer), and shows the outputs
committed with it."""

import pytest
import json

from cbmemory.recipes import RECIPES
from tests.support.notebooks import ROOT, assert_committed_outputs, run_notebook


@pytest.mark.process
def test_notebook_runs_offline(tmp_path, monkeypatch):
    nb, outputs = run_notebook("llamaindex_agent.ipynb", tmp_path, monkeypatch, env={"CBMEMORY_LLM": "scripted"})
    assert "You moved on Saturday, 6 May 2023" in outputs
    assert "Today is Saturday, 20 May 2023." in outputs
    assert ("user: I moved to Lyon yesterday [Saturday, 6 May 2023]! The new flat is right by the Saône. "
            "[said Sunday, 7 May 2023]\n") in outputs
    default = RECIPES["default"]
    assert f"recipe default: {default.description}" in outputs  # what the retriever ran with
    assert_committed_outputs(nb, "llamaindex_agent.ipynb")


def test_notebook_describes_the_default_recipe_as_it_is():
    """The prose names the signals and fusion the default recipe has (not an older recipe's)."""
    nb = json.loads((ROOT / "notebooks" / "llamaindex_agent.ipynb").read_text())
    prose = " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown").replace("\n", " ")
    retrieval = RECIPES["default"].retrieval
    assert "the default, vector + BM25" in prose and "weighted score" in prose and "entity" not in prose
    assert {s.name for s in retrieval.signals} == {"vector", "bm25"} and retrieval.fusion.method == "weighted"
