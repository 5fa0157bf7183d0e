"""Integration layer (issue 24 item 5): one context, everywhere. What every adapter adds for the model — the
LangChain middleware's system block, its memory tool, the legacy memory's history, the LlamaIndex chat
memory's system message and memory block — is exactly ``AgentMemory.recall(...).text`` for the same query,
user, day and what the prompt already shows; ``memory.context()`` is that text's memories part. Real SQLite
file and offline embedder; scripted models (not under test)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from types import SimpleNamespace

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, SystemMessage
from llama_index.core.base.llms.types import ChatMessage

from cbmemory import AgentMemory, Message
from langchain_cbmemory import CbMemoryMiddleware, memory_search_tool
from llamaindex_cbmemory import CbMemoryBlock, CbMemoryChatMemory
from notebooks.scripted_chat_model import ScriptedChatModel

TODAY = datetime(2023, 6, 1, tzinfo=timezone.utc)
QUESTION = "What is my puppy called and when did I adopt her?"


@pytest.fixture
def memory(tmp_path, minilm):
    mem = AgentMemory.open(tmp_path / "m.db", embedder=minilm, clock=lambda: TODAY)
    mem.add_session("alice", "s1", [{"role": "user", "content": "I adopted a puppy yesterday, her name is Biscuit."},
                                    {"role": "assistant", "content": "Congratulations!"}], date="2023-05-07")
    mem.add_session("alice", "s2", [{"role": "user", "content": "Biscuit chewed my shoes last night."}],
                    date="2023-05-20")
    yield mem
    mem.close()


def test_the_middleware_adds_exactly_what_recall_gives(memory):
    model = ScriptedChatModel(script=[], respond="Biscuit.")
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory, save=False)])
    agent.invoke({"messages": [HumanMessage(QUESTION, id="q1")]}, context={"user_id": "alice"})
    [system] = [m for m in model.seen[0] if isinstance(m, SystemMessage)]
    expected = memory.recall(QUESTION, "alice", shown=[Message("user", QUESTION, turn_id="q1")], today=TODAY)
    assert "Biscuit" in expected.text and system.content == expected.text


def test_the_memory_tool_and_the_legacy_memory_give_recalls_text(memory):
    tool = memory_search_tool(memory)
    assert tool.func(QUESTION, SimpleNamespace(context={"user_id": "alice"})) == memory.recall(QUESTION, "alice").text
    legacy = pytest.importorskip("langchain_cbmemory.legacy")
    history = legacy.CbMemoryLegacyMemory(memory=memory, user_id="alice", session_id="s3")
    assert history.load_memory_variables({"input": QUESTION})["history"] == memory.recall(QUESTION, "alice").text


def test_the_llamaindex_chat_memory_and_block_give_recalls_text(memory):
    chat = CbMemoryChatMemory(memory=memory, user_id="alice", session_id="s3", session_date=TODAY)
    [system] = chat.get(QUESTION)
    assert system.content == memory.recall(QUESTION, "alice", today=TODAY).text
    block = CbMemoryBlock(memory=memory, user_id="alice", today=TODAY)
    shown = [ChatMessage(role="user", content=QUESTION)]
    text = asyncio.run(block._aget(shown))
    assert text == memory.recall(QUESTION, "alice", shown=[Message("user", QUESTION)], today=TODAY).text


def test_context_is_the_memories_part_of_what_the_model_reads(memory):
    found = memory.recall(QUESTION, "alice", today=TODAY)
    ctx = memory.context(QUESTION, "alice", reference_date=TODAY)
    assert ctx.text == found.context.text and found.text.startswith(ctx.text)
    assert found.text.endswith("Today is Thursday, 1 June 2023.")
