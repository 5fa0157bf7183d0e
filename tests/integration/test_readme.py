"""Integration layer: the README's Python snippets run as written (offline, in a temporary folder): the
quickstart, the LlamaIndex snippet, and the LangChain snippet with a fake model in place of OpenAI's."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.heavy
def test_readme_quickstart_runs(tmp_path, monkeypatch, capsys):
    text = README.read_text()
    quickstart = text.split("## Quickstart", 1)[1]
    code = re.search(r"```python\n(.*?)```", quickstart, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README quickstart", "exec"), {})
    out = capsys.readouterr().out
    assert "Caroline: I went to the LGBTQ support group yesterday [Sunday, 7 May 2023]. [said Monday, 8 May 2023]" in out
    for comment in re.findall(r'# \.\.\. "(.*?)"$', code, re.M):  # the printed-output comments say what it prints
        assert comment in out
    assert (tmp_path / "memory.db").exists()
    exec(compile(code, "README quickstart", "exec"), {})  # run twice: nothing is stored twice
    from cbmemory import AgentMemory

    with AgentMemory.open(tmp_path / "memory.db") as memory:
        assert [r.text for r in memory.session_records("caroline")] == [
            "I went to the LGBTQ support group yesterday.", "That sounds powerful!", "It really was."]


def _snippet(heading: str) -> str:
    section = README.read_text().split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.mark.heavy
def test_readme_llamaindex_snippet_runs_as_written_offline(tmp_path, monkeypatch, capsys):
    code = _snippet("LlamaIndex in one line")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README LlamaIndex", "exec"), {})
    assert "I moved to Lyon yesterday!" in capsys.readouterr().out  # the stand-in LLM echoes the user
    from cbmemory import AgentMemory

    with AgentMemory.open(tmp_path / "memory.db") as memory:
        records = memory.session_records("alice", "s1")
        assert [r.role for r in records] == ["user", "assistant"]
        assert records[0].occurred_at.date().isoformat() == "2023-05-08"  # the session_date
        assert "Sunday, 7 May 2023" in memory.recall("Where did I move?", "alice").text  # "yesterday" worked out


def test_readme_langchain_snippet_runs_with_a_fake_model_in_place_of_openai(tmp_path, monkeypatch):
    """The snippet as written but for its model: "openai:gpt-4o-mini" needs a key and the network, so a
    LangChain fake chat model stands in (create_agent takes either)."""
    from langchain_core.language_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    code = _snippet("LangChain in one line")
    assert '"openai:gpt-4o-mini"' in code
    code = code.replace('"openai:gpt-4o-mini"', "fake_model")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README LangChain", "exec"),
         {"fake_model": GenericFakeChatModel(messages=iter([AIMessage("Congratulations on Biscuit!")]))})
    from cbmemory import AgentMemory

    with AgentMemory.open(tmp_path / "memory.db") as memory:
        records = memory.session_records("alice", "s1")
        assert [r.text for r in records] == ["I adopted a puppy yesterday, her name is Biscuit.",
                                             "Congratulations on Biscuit!"]
        assert records[0].occurred_at.date().isoformat() == "2025-02-22"  # the session_date


def test_readme_what_is_true_now_snippet_runs_and_prints_what_it_says(tmp_path, monkeypatch, capsys):
    code = _snippet("What is true now")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README What is true now", "exec"), {})
    current, then, history = capsys.readouterr().out.split("Relevant memories")[1:]
    assert "Porto" in current and "Paris" not in current
    assert "Paris" in then and "Porto" not in then and "changed on" not in then
    assert "I live in Paris. [changed on Tuesday, 6 June 2023: no longer current]" in history and "Porto" in history
