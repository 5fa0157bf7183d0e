"""Eval layer: the agent demo (``make demo``: ``python -m langchain_cbmemory.demo``; ``cbmemory demo`` without
``--data``), end to end and offline.

The package's own conversation (no LoCoMo file, no ``../shared``), the real MiniLM embedder and a real
SQLite file; sockets are off (pytest-socket), so a run that reached for the network would fail here. The
model is the demo's scripted one; a real model's run is the ``llm`` test below.
"""

import os

import pytest

from cbmemory.cli import main
from langchain_cbmemory.demo import load_conversation, run_agent_demo, scripted_answer
from langchain_cbmemory.demo import main as demo_main


@pytest.fixture
def no_llm(monkeypatch, tmp_path):
    for name in ("CBMEMORY_LLM_BASE_URL", "CBMEMORY_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # nothing beside it: no ../shared/data


def _steps(out: str) -> dict[str, str]:
    """Each question's printed step, by question."""
    steps = {}
    for block in out.split("\n[")[1:]:
        question = block.split(": ", 1)[1].split("\n", 1)[0]
        steps[question] = block
    return steps


@pytest.mark.heavy
def test_make_demo_runs_the_agent_on_the_package_conversation_offline(no_llm, tmp_path, capsys):
    assert main(["demo"]) == 0  # what `make demo` runs, in a folder with nothing beside it
    out = capsys.readouterr().out
    assert (tmp_path / "out" / "demo" / "agent_demo.db").is_file()
    steps = _steps(out)
    assert list(steps) == [q["question"] for q in load_conversation()["today"]["questions"]]
    adopt = steps["When did we adopt Biscuit?"]
    # what the model reads: the memory, dated, "yesterday" worked out, and today's date
    reads, answer = adopt.split("the model answers:")
    line = next(x for x in reads.splitlines() if "we adopted a puppy yesterday" in x)
    assert "Friday, 21 February 2025" in line and "| Today is Monday, 7 April 2025." in reads
    assert answer.startswith(" From memory: ") and "we adopted a puppy yesterday" in answer
    # the changed fact: the newer statement is what the scripted reader quotes
    assert "I work at the city library now" in steps["Where do I work now?"].split("the model answers:")[1]
    assert "[weekend of 1–2 March 2025]" in steps["Which weekend did Lena visit?"].split("the model answers:")[1]
    assert "the model answers: I have no memory of that." in steps["What is the capital of France?"]
    assert "3. Saved: the 10 turns of this session are in memory now" in out


@pytest.mark.heavy
def test_a_second_run_starts_from_the_same_memory_and_prints_the_same(no_llm, tmp_path, capsys):
    out = tmp_path / "d"
    assert demo_main(["--out", str(out)]) == 0  # `make demo`: python -m langchain_cbmemory.demo
    first = capsys.readouterr().out
    assert run_agent_demo(out) == 0  # the first run's saved session is not in the second's memory
    assert capsys.readouterr().out.split("Done in")[0] == first.split("Done in")[0]


def test_the_scripted_reader_quotes_the_user_line_sharing_most_words_newest_first():
    system = ("Relevant memories ...\n"
              "[Monday, 3 February 2025] user: My sister Lena says she will visit next month [March 2025].\n"
              "[Saturday, 8 March 2025] assistant: A lovely weekend visit with Lena!\n"
              "[Saturday, 8 March 2025] user: Lena came last weekend [weekend of 1–2 March 2025].\n"
              "Today is Monday, 7 April 2025.")
    assert scripted_answer("Which weekend did Lena visit?", system).endswith("Lena came last weekend "
                                                                            "[weekend of 1–2 March 2025].")
    assert scripted_answer("What is the capital of France?", system) == "I have no memory of that."
    assert scripted_answer("When did Lena visit?", "no memories") == "I have no memory of that."
    undated_first = "user: Lena came last weekend [weekend of 1–2 March 2025; said Saturday, 8 March 2025]."
    assert scripted_answer("Which weekend did Lena visit?", undated_first) == f"From memory: {undated_first}"
    said_last = "user: Lena came last weekend [weekend of 1–2 March 2025]. [said Saturday, 8 March 2025]"  # the default
    assert scripted_answer("Which weekend did Lena visit?", f"[Monday, 3 February 2025] user: Hi.\n{said_last}"
                           ) == f"From memory: {said_last}"


@pytest.mark.llm
@pytest.mark.enable_socket
@pytest.mark.skipif(not os.environ.get("CBMEMORY_TEST_LLM_BASE_URL"),
                    reason="needs a real LLM: set CBMEMORY_TEST_LLM_BASE_URL (../shared/tools/local-llm)")
def test_the_same_loop_with_a_real_model(no_llm, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CBMEMORY_LLM_BASE_URL", os.environ["CBMEMORY_TEST_LLM_BASE_URL"])
    monkeypatch.setenv("CBMEMORY_LLM_MODEL", os.environ.get("CBMEMORY_TEST_LLM_MODEL", "local-gguf"))
    assert run_agent_demo(tmp_path / "d") == 0
    out = capsys.readouterr().out
    assert "The model: " in out and " at http" in out and "scripted" not in out
    answers = [step.split("the model answers: ")[1].split("\n")[0] for step in _steps(out).values()]
    assert len(answers) == 5 and all(a.strip() for a in answers)
