"""Integration layer: ``llamaindex_cbmemory.add_messages`` stores LlamaIndex chat messages (real SQLite
file, MiniLM) that ``AgentMemory.add_messages`` refuses, with the turn ids ``CbMemoryChatMemory`` gives."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatMessage

from cbmemory import InvalidInputError
from llamaindex_cbmemory import CbMemoryChatMemory, add_messages

THREAD = [
    ChatMessage(role="system", content="You are helpful."),
    ChatMessage(role="user", content="I moved to Lyon yesterday."),
    ChatMessage(role="assistant", content="How exciting!"),
]


def test_core_refuses_a_llamaindex_message_and_names_the_adapter_function(memory):
    with pytest.raises(InvalidInputError, match=r"llamaindex_cbmemory\.add_messages"):
        memory.add_messages("sam", "s1", [ChatMessage(role="user", content="hi")])
    assert memory.session_records("sam", "s1") == []


def test_add_messages_appends_the_conversation_turns_as_the_chat_memory_does(memory):
    result = add_messages(memory, "sam", "s1", THREAD, date="2023-05-08T13:56:00")
    records = memory.session_records("sam", "s1")
    assert result.inserted == 2 and [(r.role, r.text) for r in records] == [
        ("user", "I moved to Lyon yesterday."), ("assistant", "How exciting!")]  # the system message is not a turn
    assert "Sunday, 7 May 2023" in memory.recall("Where did I move?", "sam").text  # "yesterday" worked out
    chat = CbMemoryChatMemory(memory=memory, user_id="sam", session_id="s2")
    chat.put_messages(THREAD[1:])
    assert [r.turn_id for r in memory.session_records("sam", "s2")] == [r.turn_id for r in records]
    add_messages(memory, "sam", "s1", THREAD[1:2])  # appended again: said twice, kept twice
    assert [r.text for r in memory.session_records("sam", "s1")][-1] == "I moved to Lyon yesterday."
