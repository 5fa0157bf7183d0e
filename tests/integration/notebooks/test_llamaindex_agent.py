"""Integration layer: notebooks/llamaindex_agent.ipynb runs top to bottom in a fresh kernel, offline with
its scripted LLM (its own asserts check the cross-session, relative-date answer)."""

from tests.support.notebooks import run_notebook


def test_notebook_runs_offline(tmp_path, monkeypatch):
    _, outputs = run_notebook("llamaindex_agent.ipynb", tmp_path, monkeypatch, env={"CBMEMORY_LLM": "scripted"})
    assert "You moved on Saturday, 6 May 2023" in outputs
    assert "Today is Saturday, 20 May 2023." in outputs
    assert "[Sunday, 7 May 2023] user: I moved to Lyon yesterday!" in outputs
