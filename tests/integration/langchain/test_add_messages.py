"""Integration layer: ``langchain_cbmemory.add_messages`` stores LangChain messages (real SQLite file,
MiniLM) that ``AgentMemory.add_messages`` refuses, and the refusal names it."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cbmemory import InvalidInputError
from langchain_cbmemory import aadd_messages, add_messages

THREAD = [
    HumanMessage("We adopted a puppy yesterday, her name is Biscuit.", id="m1", name="Sam"),
    AIMessage("", id="m2", tool_calls=[{"name": "search_memory", "args": {"query": "puppy"}, "id": "c1"}]),
    ToolMessage("nothing found", tool_call_id="c1", id="m3"),
    AIMessage("Congratulations on Biscuit!", id="m4"),
]


def test_core_refuses_a_langchain_message_and_names_the_adapter_function(memory):
    with pytest.raises(InvalidInputError, match=r"langchain_cbmemory\.add_messages"):
        memory.add_messages("sam", "s1", [HumanMessage("hi")])
    assert memory.session_records("sam", "s1") == []


def test_add_messages_stores_each_message_with_text_once_dated_and_findable(memory):
    result = add_messages(memory, "sam", "s1", THREAD, date="2025-02-22T10:30:00")
    records = memory.session_records("sam", "s1")
    assert [(r.role, r.text, r.turn_id) for r in records] == [
        ("user", "We adopted a puppy yesterday, her name is Biscuit.", "m1"),
        ("tool", "nothing found", "m3"),
        ("assistant", "Congratulations on Biscuit!", "m4"),
    ]  # the tool-call-only AI message has no text: left out
    assert records[0].speaker == "Sam" and records[0].occurred_at.date().isoformat() == "2025-02-22"
    assert result.inserted == 3
    again = add_messages(memory, "sam", "s1", THREAD)  # the same ids: nothing stored twice
    assert again.inserted == 0 and len(memory.session_records("sam", "s1")) == 3
    found = memory.recall("What is the puppy called?", "sam")
    assert "Friday, 21 February 2025" in found.text  # "yesterday" worked out from the session's date


def test_aadd_messages_is_the_async_twin(memory):
    result = asyncio.run(aadd_messages(memory, "sam", "s2", THREAD[:1], date="2025-03-01"))
    assert result.inserted == 1 and memory.session_records("sam", "s2")[0].turn_id == "m1"
