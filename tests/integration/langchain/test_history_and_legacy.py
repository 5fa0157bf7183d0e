"""Integration layer (offline; real SQLite memory): ``CbMemoryChatMessageHistory`` and the classic
``CbMemoryLegacyMemory`` (which needs the langchain-classic extra; that it says so when it is missing:
tests/unit/langchain/test_legacy.py)."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from langchain_cbmemory import CbMemoryChatMessageHistory


def test_history_round_trip_and_clear(memory):
    history = CbMemoryChatMessageHistory(memory, "alice", "s1")
    sent = [SystemMessage("Be brief.", id="m0"), HumanMessage("I moved to Lyon.", id="m1", name="Alice"),
            AIMessage("", id="m2", tool_calls=[{"name": "x", "args": {}, "id": "c1"}]),
            ToolMessage("done", tool_call_id="c1", id="m3"), AIMessage("Nice!", id="m4")]
    history.add_messages(sent)
    history.add_messages(sent[:2])  # same ids: stored once

    got = history.messages
    assert [(type(m), m.text, m.id) for m in got] == [
        (SystemMessage, "Be brief.", "m0"), (HumanMessage, "I moved to Lyon.", "m1"),
        (ToolMessage, "done", "m3"), (AIMessage, "Nice!", "m4")]  # the tool-call-only message has no text
    assert got[1].name == "Alice" and got[2].tool_call_id == "c1"
    assert CbMemoryChatMessageHistory(memory, "bob", "s1").messages == []

    history.clear()
    assert history.messages == []


def test_history_async(memory):
    history = CbMemoryChatMessageHistory(memory, "alice", "s1")

    async def scenario():
        await history.aadd_messages([HumanMessage("Hi"), AIMessage("Hello")])
        first = await history.aget_messages()
        await history.aclear()
        return first, await history.aget_messages()

    first, after = asyncio.run(scenario())
    assert [m.text for m in first] == ["Hi", "Hello"] and after == []


def test_history_turns_are_searchable_memories(memory):
    CbMemoryChatMessageHistory(memory, "alice", "s1").add_user_message("My sister Maya lives in Oslo.")
    assert memory.search("Where does Maya live?", "alice")[0].record.text == "My sister Maya lives in Oslo."


def test_legacy_memory_loads_dated_context_and_saves_turns(memory, clock):
    from langchain_cbmemory import CbMemoryLegacyMemory

    memory.add_session("alice", "s1", [{"role": "user", "content": "I adopted a puppy yesterday."}], date=clock.now)
    clock.advance(days=25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # classic BaseMemory is deprecated upstream
        legacy = CbMemoryLegacyMemory(memory=memory, user_id="alice", session_id="s2")
    assert legacy.memory_variables == ["history"]
    loaded = legacy.load_memory_variables({"input": "When did I adopt my puppy?"})["history"]
    assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023]. [said Sunday, 7 May 2023]" in loaded
    assert loaded.endswith("Today is Thursday, 1 June 2023.")
    assert asyncio.run(legacy.aload_memory_variables({"input": "When did I adopt my puppy?"}))["history"] == loaded

    legacy.save_context({"input": "When did I adopt my puppy?"}, {"output": "On 6 May 2023."})
    asyncio.run(legacy.asave_context({"input": "Thanks"}, {"output": "You're welcome."}))
    assert [(r.role, r.text) for r in memory.session_records("alice", "s2")] == [
        ("user", "When did I adopt my puppy?"), ("assistant", "On 6 May 2023."),
        ("user", "Thanks"), ("assistant", "You're welcome.")]
    with pytest.raises(ValueError, match="input_key"):
        legacy.save_context({"a": "1", "b": "2"}, {"output": "x"})
    legacy.clear()
    assert memory.session_records("alice", "s2") == []
