"""Eval layer: notebooks/evaluate_memory.ipynb runs top to bottom in a fresh kernel, offline (a small LoCoMo
evaluation, the heatmap, a drill-down into a question the default missed; its own asserts check them), and
shows the outputs committed with it."""

import pytest

from tests.support.notebooks import assert_committed_outputs, run_notebook

from .conftest import LOCOMO_DEV


@pytest.mark.process
@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason=f"LoCoMo dev file not at {LOCOMO_DEV}")
def test_evaluation_notebook_runs_offline(tmp_path, monkeypatch):
    nb, outputs = run_notebook("evaluate_memory.ipynb", tmp_path, monkeypatch, timeout=300,
                               env={"CBMEMORY_LOCOMO": str(LOCOMO_DEV)})
    assert "conv-26: Caroline and Melanie" in outputs
    assert "**recall@10**" in outputs and "| default |" in outputs
    assert "best recipe per category:" in outputs
    assert "retrieved by default (vector+bm25, weighted fusion, each hit shown with its neighbours;" in outputs
    assert "miss evidence at k=10" in outputs
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1
    assert_committed_outputs(nb, "evaluate_memory.ipynb")
