"""Integration layer (offline; real SQLite memory with write-time links, MiniLM): the reads ``current_only``
and ``as_of`` reach the search from each LangChain entry point: ``CbMemoryRetriever`` (fields and per call),
``memory_search_tool`` and ``CbMemoryMiddleware`` (constructor options), a bad value refused when built."""

from __future__ import annotations

import dataclasses

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cbmemory import AgentMemory, InvalidInputError, get_recipe
from langchain_cbmemory import CbMemoryMiddleware, CbMemoryRetriever, memory_search_tool
from notebooks.scripted_chat_model import ScriptedChatModel

LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
QUESTION = "Which city do I live in?"


@pytest.fixture
def moved(tmp_path, minilm, clock):
    with AgentMemory.open(tmp_path / "moved.db", embedder=minilm, clock=clock, ingest=LINKING) as memory:
        memory.add_session("ana", "s1", [{"role": "user", "content": "I live in Paris, I love it."}], date="2023-05-07")
        memory.add_session("ana", "s2", [{"role": "user", "content": "Big news: I moved to Porto last week."}],
                           date="2023-06-06")
        yield memory


def test_the_retriever_takes_the_reads_as_fields_and_per_call(moved):
    texts = lambda docs: " ".join(d.page_content for d in docs)  # noqa: E731
    assert "Paris" in texts(CbMemoryRetriever(memory=moved, user_id="ana").invoke(QUESTION))  # history
    current = CbMemoryRetriever(memory=moved, user_id="ana", current_only=True)
    assert "Paris" not in texts(current.invoke(QUESTION)) and "Porto" in texts(current.invoke(QUESTION))
    then = current.invoke(QUESTION, as_of="2023-05-20")  # per call, with the field's current_only
    assert "Paris" in texts(then) and "Porto" not in texts(then)


def test_the_memory_tool_takes_the_reads(moved):
    call = AIMessage("", tool_calls=[{"name": "search_memory", "args": {"query": QUESTION}, "id": "c1"}])
    agent = create_agent(ScriptedChatModel(script=[call, "Ok."]),
                         [memory_search_tool(moved, as_of="2023-05-20", current_only=True)])
    state = agent.invoke({"messages": [HumanMessage(QUESTION)]}, context={"user_id": "ana"})
    [result] = [m.content for m in state["messages"] if isinstance(m, ToolMessage)]
    assert "Paris" in result and "Porto" not in result and result.endswith("Today is Saturday, 20 May 2023.")
    with pytest.raises(InvalidInputError, match="as_of"):
        memory_search_tool(moved, as_of="someday")


def test_the_middleware_takes_the_reads(moved):
    model = ScriptedChatModel(script=["Porto."])
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(moved, current_only=True, save=False)])
    agent.invoke({"messages": [HumanMessage(QUESTION)]}, context={"user_id": "ana", "session_date": "2023-07-01"})
    system = model.seen[-1][0].content
    assert "Porto" in system and "Paris" not in system and "Today is Saturday, 1 July 2023." in system
    with pytest.raises(InvalidInputError, match="current_only"):
        CbMemoryMiddleware(moved, current_only="yes")
