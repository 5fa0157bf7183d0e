"""Eval layer: notebooks/evaluate_memory.ipynb runs top to bottom in a fresh kernel, offline (a small LoCoMo
evaluation, the heatmap, a drill-down into a missed temporal question; its own asserts check them). The
kernel talks to the test over unix-domain sockets (ZMQ ipc), so no TCP port is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import LOCOMO_DEV

nbformat = pytest.importorskip("nbformat", reason="executing notebooks needs nbformat (dev extra)")
nbclient = pytest.importorskip("nbclient", reason="executing notebooks needs nbclient (dev extra)")
pytest.importorskip("ipykernel", reason="executing notebooks needs ipykernel (dev extra)")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "evaluate_memory.ipynb"


@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason=f"LoCoMo dev file not at {LOCOMO_DEV}")
def test_evaluation_notebook_runs_offline(tmp_path, monkeypatch):
    from jupyter_client.manager import KernelManager

    monkeypatch.setenv("CBMEMORY_LOCOMO", str(LOCOMO_DEV))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    client = nbclient.NotebookClient(nb, km=km, timeout=300, resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "conv-26: Caroline and Melanie" in outputs
    assert "**recall@10**" in outputs and "| default |" in outputs
    assert "best recipe per category:" in outputs
    assert "retrieved by default (rank, turn, date, signals, text):" in outputs
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 1
