"""Integration layer (issue 24 item 2): in a real agent loop, the agent's own questions and echoes never crowd
out what the user said. ``CbMemoryMiddleware`` in a real ``create_agent`` over a real SQLite memory and the
offline embedder; the chat model is scripted (not under test) and restates the first memory it was shown, as
an agent that uses its memory does. The agent's own commitments stay findable."""

from __future__ import annotations

import re

from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, SystemMessage

from langchain_cbmemory import CbMemoryMiddleware
from notebooks.scripted_chat_model import ScriptedChatModel

PUPPY = "I adopted a puppy yesterday, her name is Biscuit."
# a memory line starts with its session date or, when it has a relative date (the default layout), ends with it
_DATED = re.compile(r"^\[\w+, \d{1,2} \w+ \d{4}\] | \[said \w+, \d{1,2} \w+ \d{4}\]")


def is_memory_line(line: str) -> bool:
    return bool(_DATED.search(line))


def restating(messages):
    """Replies with the first memory line of its system message, as it read it."""
    system = next((m.content for m in messages if isinstance(m, SystemMessage)), "")
    first = next((line for line in system.split("\n") if is_memory_line(line)), "I don't know.")
    return f"You told me: {first}"


def memory_lines(model, call: int = -1) -> list[str]:
    system = next(m.content for m in model.seen[call] if isinstance(m, SystemMessage))
    return [line for line in system.split("\n") if is_memory_line(line)]


def ask(agent, text: str, session: str):
    return agent.invoke({"messages": [HumanMessage(text)]}, context={"user_id": "alice", "session_id": session})


def test_a_question_asked_again_finds_the_fact_not_the_earlier_question_or_its_echo(memory, clock):
    memory.add_session("alice", "s1", [{"role": "user", "content": PUPPY},
                                       {"role": "assistant", "content": "Congratulations!"}], date=clock.now)
    model = ScriptedChatModel(script=[], respond=restating)
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory, k=3)])
    for day in range(1, 4):  # the same question, asked on three later days
        clock.advance(days=day)
        ask(agent, "When did I adopt my puppy?", f"s{day + 1}")
        lines = memory_lines(model)
        assert "I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit." in lines[0]
        assert not any("When did I adopt my puppy?" in line or "You told me" in line for line in lines)
    stored = [r for r in memory.session_records("alice") if r.session_id != "s1"]
    assert len(stored) == 6 and all(r.source_ids for r in stored)  # every echo stored, linked to the fact
    assert {s for r in stored for s in r.source_ids} >= {memory.session_records("alice", "s1")[0].record_id}


def test_the_agents_own_commitment_stays_findable(memory, clock):
    memory.add_session("alice", "s1", [{"role": "user", "content": PUPPY}], date=clock.now)
    model = ScriptedChatModel(script=["I will remind you on Friday to book the vet for Biscuit's vaccination."],
                              respond="Noted.")
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)])
    ask(agent, "Please remind me on Friday to book the vet for her vaccination.", "s2")
    clock.advance(days=2)
    ask(agent, "What did you promise to remind me about?", "s3")
    lines = memory_lines(model)
    assert any("I will remind you on Friday" in line for line in lines)
    promise = [r for r in memory.session_records("alice", "s2") if r.role == "assistant"]
    assert promise and not promise[0].source_ids  # a commitment restates nothing it was shown
