"""Integration layer (issue 24 item 4): a retried LlamaIndex agent run stores each message once. A real
``FunctionAgent`` with ``CbMemoryChatMemory``, LlamaIndex's scripted LLM made to fail once then answer (the
LLM is not under test), over a real SQLite memory with the offline embedder."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms.mock import MockFunctionCallingLLM

from llamaindex_cbmemory import CbMemoryChatMemory


def test_a_run_retried_after_the_llm_failed_stores_the_user_message_once(memory):
    calls = []

    def flaky(messages, **_):
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("the model provider timed out")
        return ChatMessage(role="assistant", content="Her name is Biscuit.")

    agent = FunctionAgent(llm=MockFunctionCallingLLM(response_generator=flaky), tools=[])
    chat_memory = CbMemoryChatMemory(memory=memory, user_id="alice", session_id="s1", session_date="2023-05-20")

    async def run():
        return await agent.run("My puppy is called Biscuit.", memory=chat_memory)

    with pytest.raises(Exception, match="timed out"):
        asyncio.run(run())
    assert [r.text for r in memory.session_records("alice", "s1")] == ["My puppy is called Biscuit."]
    assert str(asyncio.run(run())) == "Her name is Biscuit."  # the same message, re-sent
    stored = [(r.role, r.text) for r in memory.session_records("alice", "s1")]
    assert stored == [("user", "My puppy is called Biscuit."), ("assistant", "Her name is Biscuit.")]
