"""Integration layer (offline; real SQLite memory and MiniLM embedder): ``CbMemoryRetriever`` and the memory
tool."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from langchain_cbmemory import CbMemoryRetriever, create_memory_tool


@pytest.fixture
def seeded(memory, clock):
    memory.add_session("alice", "s1", [
        {"role": "user", "content": "I adopted a puppy yesterday, her name is Biscuit.", "turn_id": "t1"},
        {"role": "assistant", "content": "What breed is Biscuit?", "turn_id": "t2"},
    ], date=clock.now)
    memory.add_session("alice", "s2", [
        {"role": "user", "content": "Biscuit chewed my shoes today.", "turn_id": "t3"},
    ], date=clock.now + timedelta(days=30))
    memory.add_session("bob", "b1", [{"role": "user", "content": "My puppy Rex loves Biscuit treats."}],
                       date=clock.now)
    return memory


def shown(docs):
    """The turns the documents give a reader: each hit and the turns of its window (``memory``); with the
    default, a turn a better hit's window shows is no document of its own."""
    return {d.metadata["turn_id"] for d in docs} | {t for d in docs for t in d.metadata.get("context_turn_ids", ())}


def invoke(retriever, mode, query, **kw):
    if mode == "invoke":
        return retriever.invoke(query, **kw)
    return asyncio.run(retriever.ainvoke(query, **kw))


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_documents_carry_turn_session_date_and_score(seeded, mode):
    docs = invoke(CbMemoryRetriever(memory=seeded, user_id="alice", k=3), mode, "What is the puppy's name?")
    assert shown(docs) == {"t1", "t2", "t3"}  # alice's only: never bob's
    first = next(d for d in docs if d.metadata["turn_id"] == "t1")
    assert first.page_content == "I adopted a puppy yesterday, her name is Biscuit."
    assert first.metadata["session_id"] == "s1"
    assert first.metadata["session_date"] == "2023-05-07T13:56:00+00:00"
    assert first.metadata["date_label"] == "Sunday, 7 May 2023"
    assert first.metadata["recipe"] == "default_no_floor" and first.metadata["user_id"] == "alice"
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[-1]  # higher is better


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_per_call_keywords_scope_the_search_identically_sync_and_async(seeded, clock, mode):
    r = CbMemoryRetriever(memory=seeded, user_id="alice")
    assert len(invoke(r, mode, "Biscuit", k=1)) == 1
    assert {d.metadata["session_id"] for d in invoke(r, mode, "Biscuit", session_ids=["s2"])} == {"s2"}
    later = invoke(r, mode, "Biscuit", occurred_after=clock.now + timedelta(days=1))
    assert [d.metadata["turn_id"] for d in later] == ["t3"]
    earlier = invoke(r, mode, "Biscuit", occurred_before="2023-05-08")
    assert shown(earlier) == {"t1", "t2"}
    assert {d.metadata["user_id"] for d in invoke(r, mode, "Biscuit", user_id="bob")} == {"bob"}
    assert {d.metadata["recipe"] for d in invoke(r, mode, "Biscuit", recipe="bm25")} == {"bm25"}


def test_unknown_keyword_is_refused(seeded):
    with pytest.raises(TypeError):
        CbMemoryRetriever(memory=seeded, user_id="alice").invoke("x", top_k=2)


def test_memory_tool_shows_each_memory_with_its_date(seeded):
    tool = create_memory_tool(CbMemoryRetriever(memory=seeded, user_id="alice", k=2, session_ids=("s1",)))
    assert tool.name == "search_memory"
    out = tool.invoke({"query": "puppy name"})
    assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit. [said Sunday, 7 May 2023]" in out
    assert asyncio.run(tool.ainvoke({"query": "puppy name"})) == out
