"""Integration layer: notebooks/langchain_agent.ipynb runs top to bottom in a fresh kernel, offline with its
scripted model (its own asserts check the cross-session recall and the relative-date answer). The kernel
talks to the test over unix-domain sockets (ZMQ ipc), so no TCP port is opened."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="executing notebooks needs nbformat (dev extra)")
nbclient = pytest.importorskip("nbclient", reason="executing notebooks needs nbclient (dev extra)")
pytest.importorskip("ipykernel", reason="executing notebooks needs ipykernel (dev extra)")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "langchain_agent.ipynb"


def test_notebook_runs_offline(tmp_path, monkeypatch):
    from jupyter_client.manager import KernelManager

    monkeypatch.setenv("CBMEMORY_LLM", "scripted")  # never a real LLM in the test suite
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    client = nbclient.NotebookClient(nb, km=km, timeout=120, resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "Model: ScriptedChatModel" in outputs
    assert "agent: On Sunday, 7 May 2023 you told me: I adopted a puppy yesterday! Her name is Biscuit.\n" in outputs
    assert "agent: On Saturday, 6 May 2023: on Sunday, 7 May 2023 you told me it was the day before." in outputs
    assert "[Sunday, 7 May 2023] user: I adopted a puppy yesterday! Her name is Biscuit." in outputs
    assert "Today is Thursday, 1 June 2023." in outputs
