"""Integration layer: notebooks/langchain_agent.ipynb runs top to bottom in a fresh kernel, offline with its
scripted model (its own asserts check the cross-session recall and the relative-date answer), and shows
the outputs committed with it."""

import pytest
from tests.support.notebooks import assert_committed_outputs, run_notebook


@pytest.mark.process
def test_notebook_runs_offline(tmp_path, monkeypatch):
    nb, outputs = run_notebook("langchain_agent.ipynb", tmp_path, monkeypatch, env={"CBMEMORY_LLM": "scripted"})
    assert "Model: ScriptedChatModel" in outputs
    assert "agent: On Sunday, 7 May 2023 you told me: I adopted a puppy yesterday [Saturday, 6 May 2023]! Her name is Biscuit.\n" in outputs
    assert "agent: On Saturday, 6 May 2023: on Sunday, 7 May 2023 you told me it was the day before." in outputs
    assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023]! Her name is Biscuit. [said Sunday, 7 May 2023]\n" in outputs
    assert "Today is Thursday, 1 June 2023." in outputs
    assert_committed_outputs(nb, "langchain_agent.ipynb")
