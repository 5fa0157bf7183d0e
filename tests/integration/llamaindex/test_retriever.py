"""Integration layer (LlamaIndex's interface contract): CbMemoryRetriever against LlamaIndex's retriever
interface (sync and async), its tool, and a query engine built on it, over a real SQLite memory with the
offline embedder. No network."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore

from cbmemory import InvalidInputError
from llamaindex_cbmemory import CbMemoryRetriever, make_retriever_tool

from .conftest import ticks_during


def test_nodes_carry_text_dates_ids_and_scores(seeded):
    # hits alone (the default's passages, a hit with its window: test_windows.py)
    nodes = CbMemoryRetriever(seeded, "alice", k=3, recipe="default_no_window").retrieve("Which city did I move to?")
    assert 1 <= len(nodes) <= 3 and all(isinstance(n, NodeWithScore) for n in nodes)
    said = "I moved to Lyon yesterday, the flat is near the river."
    top = next(n for n in nodes if n.node.metadata["verbatim"] == said)  # the stored text, verbatim
    assert top.node.get_content() == "I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river."
    md = top.node.metadata
    assert md["session_id"] == "a1"
    assert md["session_date"] == "2023-05-07T00:00:00+00:00"
    assert md["date"] == "Sunday, 7 May 2023"
    assert md["score"] == top.score and md["recipe"] == "default_no_window"
    assert md["turn_id"] is None  # add_session without turn ids; the record id is always there
    assert top.node.node_id == md["record_id"]
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)
    # the LLM sees the date and speaker, not ids or scores
    shown = top.node.get_content(MetadataMode.LLM)
    assert "date: Sunday, 7 May 2023" in shown and "speaker: user" in shown
    assert "record_id" not in shown and "score" not in shown and "verbatim" not in shown


def test_nodes_follow_the_recipes_reading(seeded):
    from cbmemory.context import ContextConfig
    from cbmemory.recipes import RECIPES

    undated = ContextConfig(dates=False, resolve_dates=False)
    alone = RECIPES["default_no_window"].with_(name="undated", context=undated)
    [node] = CbMemoryRetriever(seeded, "alice", k=1, recipe=alone).retrieve("Which city did I move to?")
    shown = node.node.get_content(MetadataMode.LLM)
    assert "date:" not in shown and "May 2023" not in shown and "speaker:" in shown, shown
    windowed = RECIPES["default"].with_(name="undated_window", context=undated)
    [node] = CbMemoryRetriever(seeded, "alice", k=1, recipe=windowed).retrieve("Which city did I move to?")
    shown = node.node.get_content(MetadataMode.LLM)  # one line per turn, each with its speaker, none dated
    assert len(shown.splitlines()) > 1 and "May 2023" not in shown and "date:" not in shown, shown


def test_user_isolation(seeded):
    alice = CbMemoryRetriever(seeded, "alice", k=10).retrieve("moved to Berlin with a dog named Rex")
    bob = CbMemoryRetriever(seeded, "bob", k=10).retrieve("moved to Lyon near the river")
    assert alice and all(n.node.metadata["session_id"].startswith("a") for n in alice)
    assert not any("Rex" in n.node.get_content() for n in alice)
    assert bob and all(n.node.metadata["session_id"] == "b1" for n in bob)


def test_session_scope_and_time_range(seeded):
    only_a2 = CbMemoryRetriever(seeded, "alice", session_ids="a2", k=10).retrieve("Lyon move")
    assert only_a2 and {n.node.metadata["session_id"] for n in only_a2} == {"a2"}
    after = CbMemoryRetriever(seeded, "alice", occurred_after="2023-05-10", k=10).retrieve("Lyon move")
    assert after and all(n.node.metadata["session_date"] >= "2023-05-10" for n in after)
    before = CbMemoryRetriever(seeded, "alice", occurred_before="2023-05-08", k=10).retrieve("cello")
    assert before and {n.node.metadata["session_id"] for n in before} == {"a1"}


def test_recipe_is_used_and_recorded(seeded):
    nodes = CbMemoryRetriever(seeded, "alice", recipe="bm25", k=2).retrieve("cello")
    assert nodes[0].node.get_content() == "I started learning the cello on Tuesday."
    assert {n.node.metadata["recipe"] for n in nodes} == {"bm25"}


def test_async_matches_sync(seeded):
    r = CbMemoryRetriever(seeded, "alice", k=4)
    sync = [(n.node.node_id, n.score) for n in r.retrieve("Emma visiting")]
    asyn = [(n.node.node_id, n.score) for n in asyncio.run(r.aretrieve("Emma visiting"))]
    assert sync == asyn and sync


def test_aretrieve_does_not_block_the_event_loop(slow_memory):
    r = CbMemoryRetriever(slow_memory, "alice", k=3)

    async def main():
        nodes, ticks = await ticks_during(lambda: r.aretrieve("sister visiting"))
        # control: the synchronous path, called on the loop, starves the ticker
        async def on_loop():
            return r.retrieve("learning an instrument")
        _, blocked_ticks = await ticks_during(on_loop)
        return nodes, ticks, blocked_ticks

    nodes, ticks, blocked = asyncio.run(main())
    assert any("Emma" in n.node.get_content() for n in nodes)
    assert ticks >= 10, f"the loop made only {ticks} steps during a 0.25 s retrieval"
    assert blocked <= 2


def test_retriever_tool_shows_dates(seeded):
    tool = make_retriever_tool(CbMemoryRetriever(seeded, "alice", k=2))
    assert tool.metadata.name == "search_memory" and "date" in tool.metadata.description
    out = asyncio.run(tool.acall(input="Where did I move?"))
    assert "Sunday, 7 May 2023" in out.content and "Lyon" in out.content  # a hit's date, or each line's
    assert out.raw_output and isinstance(out.raw_output[0], NodeWithScore)


def test_query_engine_prompt_holds_dated_memories(seeded):
    engine = RetrieverQueryEngine.from_args(CbMemoryRetriever(seeded, "alice", k=2), llm=MockLLM())
    response = engine.query("When did I move to Lyon?")
    # MockLLM answers with the prompt it was given: the dated memories are in it
    assert "Sunday, 7 May 2023" in str(response) and "I moved to Lyon yesterday" in str(response)
    assert any(n.node.metadata["session_id"] == "a1" for n in response.source_nodes)


@pytest.mark.parametrize("kwargs", [{"user_id": ""}, {"user_id": "alice", "k": 0},
                                    {"user_id": "alice", "recipe": "nope"},
                                    {"user_id": "alice", "occurred_after": "not a date"}])
def test_bad_arguments_raise_typed_errors(seeded, kwargs):
    user_id = kwargs.pop("user_id")
    with pytest.raises(InvalidInputError):
        CbMemoryRetriever(seeded, user_id, **kwargs)


def test_similarity_top_k_is_k_under_llamaindex_name(seeded):
    by_k = CbMemoryRetriever(seeded, "alice", k=2).retrieve("Lyon move")
    aliased = CbMemoryRetriever(seeded, "alice", similarity_top_k=2)
    nodes = aliased.retrieve("Lyon move")
    assert len(nodes) == 2 and [n.node.node_id for n in nodes] == [n.node.node_id for n in by_k]
    assert aliased.k == aliased.similarity_top_k == 2
    aliased.similarity_top_k = 1  # set as on LlamaIndex's own retrievers
    assert aliased.k == 1 and len(aliased.retrieve("Lyon move")) == 1
    assert CbMemoryRetriever(seeded, "alice", k=3, similarity_top_k=3).k == 3  # the same value twice is fine
    with pytest.raises(InvalidInputError, match="similarity_top_k=4 disagree"):
        CbMemoryRetriever(seeded, "alice", k=2, similarity_top_k=4)
    with pytest.raises(InvalidInputError):
        CbMemoryRetriever(seeded, "alice", similarity_top_k=0)
