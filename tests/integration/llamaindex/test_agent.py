"""Integration layer: LlamaIndex agents (FunctionAgent) with CbMemoryChatMemory as memory=, driven by
LlamaIndex's own scripted LLMs (MockFunctionCallingLLM and ...WithChatMemoryOfLastCall), over a real SQLite
memory with the offline embedder. Asserts what the LLM saw, what was stored, and recall across sessions."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from datetime import datetime, timedelta

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM, MockFunctionCallingLLMWithChatMemoryOfLastCall

from cbmemory import AgentMemory
from llamaindex_cbmemory import CbMemoryChatMemory, CbMemoryRetriever, make_retriever_tool

from .conftest import ticks_during

# a memory line: its session date first, or, for a memory with a relative date (the default layout), last
_MEMORY_LINE = re.compile(r"^(?:\[\w+, (\d{1,2} \w+ \d{4})\] )?(\w+): (.*?)(?: \[said \w+, (\d{1,2} \w+ \d{4})\])?$",
                          re.M)


def resolve_yesterday(messages, **_) -> ChatMessage:
    """A scripted LLM: answers a 'when' question from the dated memory that says 'yesterday'."""
    text = "\n".join(m.content or "" for m in messages if m.role in (MessageRole.SYSTEM, MessageRole.TOOL))
    for first, who, said, last in _MEMORY_LINE.findall(text):
        day = first or last
        if day and who == "user" and "yesterday" in said:
            when = datetime.strptime(day, "%d %B %Y") - timedelta(days=1)
            return ChatMessage(role="assistant", content=f"You said it on {day}, so it was {when:%-d %B %Y}.")
    return ChatMessage(role="assistant", content="I don't know.")


def run(agent: FunctionAgent, msg: str, memory: CbMemoryChatMemory, **kwargs):
    return asyncio.run(_run(agent, msg, memory, **kwargs))


async def _run(agent, msg, memory, **kwargs):
    return await agent.run(msg, memory=memory, **kwargs)


def session(memory: AgentMemory, sid: str, date: str, user_id: str = "alice") -> CbMemoryChatMemory:
    return CbMemoryChatMemory(memory=memory, user_id=user_id, session_id=sid, session_date=date)


def test_the_llm_sees_the_users_memories_with_dates_and_today(seeded):
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(response_generator=resolve_yesterday)
    agent = FunctionAgent(llm=llm, tools=[], system_prompt="You are Alice's assistant.")
    answer = run(agent, "When did I move to Lyon?", session(seeded, "a3", "2023-05-20"))
    seen = llm.last_chat_messages
    assert [m.role for m in seen] == [MessageRole.SYSTEM, MessageRole.SYSTEM, MessageRole.USER]
    assert seen[0].content == "You are Alice's assistant."
    memories = seen[1].content
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in memories
    assert "user: My sister Emma is visiting me next weekend [weekend of 20–21 May 2023]. [said Sunday, 14 May 2023]" in memories
    assert "Today is Saturday, 20 May 2023." in memories
    assert "Berlin" not in memories and "Rex" not in memories  # Bob's memory stays Bob's
    assert seen[2].content == "When did I move to Lyon?"
    assert "6 May 2023" in str(answer)


def test_each_message_is_stored_exactly_once(seeded):
    llm = MockFunctionCallingLLM(response_generator=lambda messages, **_: ChatMessage(
        role="assistant", content=f"Noted: {messages[-1].content}"))
    agent = FunctionAgent(llm=llm, tools=[])
    cm = session(seeded, "a3", "2023-05-20")
    run(agent, "I booked a trip to Porto.", cm)
    run(agent, "It is in July.", cm)
    # a caller that also passes the history it keeps: the memory is set with turns it already holds
    history = [ChatMessage(role=r, content=t) for r, t in
               [(r.role, r.text) for r in seeded.session_records("alice", "a3")]]
    run(agent, "With my sister.", cm, chat_history=history)
    texts = [r.text for r in seeded.session_records("alice", "a3")]
    assert texts == ["I booked a trip to Porto.", "Noted: I booked a trip to Porto.", "It is in July.",
                     "Noted: It is in July.", "With my sister.", "Noted: With my sister."]
    assert max(Counter(r.turn_id for r in seeded.session_records("alice", "a3")).values()) == 1


def test_tool_steps_are_not_stored_and_the_tool_shows_dates(seeded):
    def generator(messages, **kwargs) -> ChatMessage:
        if kwargs.get("tools") and not any(m.role == MessageRole.TOOL for m in messages):
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(
                tool_call_id="call-1", tool_name="search_memory", tool_kwargs={"input": "moved to Lyon"})])
        return resolve_yesterday(messages)

    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(response_generator=generator)
    tool = make_retriever_tool(CbMemoryRetriever(seeded, "alice", k=3))
    agent = FunctionAgent(llm=llm, tools=[tool])
    answer = run(agent, "When did I move?", session(seeded, "a3", "2023-05-20"))
    tool_msgs = [m for m in llm.last_chat_messages if m.role == MessageRole.TOOL]
    assert len(tool_msgs) == 1 and "Sunday, 7 May 2023" in tool_msgs[0].content  # a hit's date, or each line's
    assert "6 May 2023" in str(answer)
    assert [(r.role, r.text) for r in seeded.session_records("alice", "a3")] == [
        ("user", "When did I move?"), ("assistant", str(answer))]


def test_recall_across_sessions_and_processes(memory, tmp_path, embedder):
    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(response_generator=resolve_yesterday)
    agent = FunctionAgent(llm=llm, tools=[])
    run(agent, "I adopted a cat called Miso yesterday.", session(memory, "s1", "2023-03-04"))
    memory.close()
    # a later session, in a "new process": a fresh AgentMemory on the same file
    reopened = AgentMemory.open(tmp_path / "m.db", embedder=embedder)
    try:
        answer = run(agent, "When did I adopt my cat?", session(reopened, "s2", "2023-04-01"))
        memories = llm.last_chat_messages[0].content
        assert "user: I adopted a cat called Miso yesterday [Friday, 3 March 2023]. [said Saturday, 4 March 2023]" in memories
        assert "Today is Saturday, 1 April 2023." in memories
        assert "3 March 2023" in str(answer)
        # another user of the same store recalls nothing of it
        run(agent, "When did I adopt my cat?", session(reopened, "s1", "2023-04-01", user_id="bob"))
        assert "Miso" not in "".join(m.content or "" for m in llm.last_chat_messages)
    finally:
        reopened.close()


def test_an_agent_run_does_not_block_the_event_loop(slow_memory):
    llm = MockFunctionCallingLLM(response_generator=resolve_yesterday)
    agent = FunctionAgent(llm=llm, tools=[])
    cm = session(slow_memory, "a3", "2023-05-20")

    async def main():
        return await ticks_during(lambda: agent.run("When did I move to Lyon?", memory=cm))

    answer, ticks = asyncio.run(main())
    assert "6 May 2023" in str(answer)
    assert ticks >= 10, f"the loop made only {ticks} steps during a run with a 0.25 s retrieval"
