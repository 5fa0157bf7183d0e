"""Integration layer (issue 22 break 4): nothing a user types stops a LlamaIndex agent. A real ``FunctionAgent``
with LlamaIndex's own scripted LLM (not under test) and ``CbMemoryChatMemory`` or ``Memory`` with a
``CbMemoryBlock``, over a real SQLite memory and the offline embedder: over-long messages, NUL and control
characters, arbitrary text, and a store that fails — the LLM is always called and the agent always answers.
Also the retriever with an over-long query."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
from llama_index.core.memory import Memory

from cbmemory.agent import MemoryFault
from llamaindex_cbmemory import CbMemoryBlock, CbMemoryChatMemory, CbMemoryRetriever
from tests.support.llama_loop import run_closed

ANSWER = "You moved to Lyon."


def llm() -> MockFunctionCallingLLMWithChatMemoryOfLastCall:
    return MockFunctionCallingLLMWithChatMemoryOfLastCall(
        response_generator=lambda messages, **_: ChatMessage(role="assistant", content=ANSWER))


def ask(message: str, memory) -> tuple[str, list[ChatMessage]]:
    model = llm()
    agent = FunctionAgent(llm=model, tools=[], system_prompt="You are Alice's assistant.")
    async def run():  # agent.run needs a running loop
        return await agent.run(message, memory=memory)

    return str(run_closed(memory, run)), model.last_chat_messages


def chat_memory(memory, faults: list[MemoryFault] | None = None) -> CbMemoryChatMemory:
    return CbMemoryChatMemory(memory=memory, user_id="alice", session_id="a9", session_date="2023-05-20",
                              on_error=faults.append if faults is not None else None)


def system_text(seen: list[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in seen if m.role == MessageRole.SYSTEM)


def test_a_message_over_the_query_limit_still_recalls_and_answers(seeded):
    answer, seen = ask("lorem ipsum " * 1_000 + "Where did I move?", chat_memory(seeded))
    assert answer == ANSWER
    assert "Lyon yesterday [Saturday, 6 May 2023]" in system_text(seen)


def test_nul_and_control_characters_are_stored_cleaned(seeded, caplog):
    faults: list[MemoryFault] = []
    with caplog.at_level(logging.WARNING, logger="cbmemory.agent"):
        answer, _ = ask("my cat\x00 is\x07 Tom", chat_memory(seeded, faults))
    assert answer == ANSWER
    assert [r.text for r in seeded.session_records("alice", "a9")] == ["my cat is Tom", ANSWER]
    assert faults and {f.stage for f in faults} == {"save"} and "cbmemory save" in caplog.text


def test_a_store_that_fails_leaves_the_agent_answering(seeded, caplog):
    faults: list[MemoryFault] = []
    memory = chat_memory(seeded, faults)
    seeded.store.close()
    with caplog.at_level(logging.WARNING, logger="cbmemory.agent"):
        answer, seen = ask("Where did I move?", memory)
    assert answer == ANSWER and "Lyon" not in system_text(seen)
    assert {f.stage for f in faults} == {"recall", "save"} and all(f.error is not None for f in faults)


def test_the_memory_block_fails_open(seeded):
    faults: list[MemoryFault] = []
    block = CbMemoryBlock(memory=seeded, user_id="alice", today="2023-05-20", on_error=faults.append)
    answer, seen = ask("lorem " * 3_000 + "Where did I move?", Memory.from_defaults(memory_blocks=[block]))
    assert answer == ANSWER and "Lyon yesterday" in system_text(seen)
    seeded.store.close()
    answer, seen = ask("Where did I move?", Memory.from_defaults(memory_blocks=[block]))
    assert answer == ANSWER and "Lyon" not in system_text(seen)
    assert faults and {f.stage for f in faults} == {"recall"}  # Memory asks its blocks more than once a run


def test_the_retriever_cuts_long_queries_and_fails_open(seeded):
    faults: list[MemoryFault] = []
    retriever = CbMemoryRetriever(seeded, "alice", k=1, on_error=faults.append)
    assert "Lyon" in retriever.retrieve("lorem " * 3_000 + "Where did I move?")[0].node.get_content()
    seeded.store.close()
    assert retriever.retrieve("Where did I move?") == [] and faults[0].stage == "recall"


@pytest.mark.heavy
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(min_size=1, max_size=200), st.text(max_size=30).map(lambda t: t + "\x00x"),
                      st.just("z" * 11_000)))
def test_any_message_reaches_the_llm_and_the_agent_answers(seeded, text):
    answer, seen = ask(text, chat_memory(seeded))
    assert answer == ANSWER and seen
