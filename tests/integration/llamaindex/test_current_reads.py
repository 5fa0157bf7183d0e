"""Integration layer (offline; real SQLite memory with write-time links, MiniLM): the reads ``current_only``
and ``as_of`` reach the search from the LlamaIndex entry points: ``CbMemoryRetriever`` and ``CbMemoryBlock``
(constructor options), a bad value refused when built."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from llama_index.core.base.llms.types import ChatMessage

from cbmemory import AgentMemory, InvalidInputError, get_recipe
from llamaindex_cbmemory import CbMemoryBlock, CbMemoryRetriever

LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
QUESTION = "Which city do I live in?"


@pytest.fixture
def moved(tmp_path, embedder):
    with AgentMemory.open(tmp_path / "moved.db", embedder=embedder, ingest=LINKING) as memory:
        memory.add_session("ana", "s1", [{"role": "user", "content": "I live in Paris, I love it."}], date="2023-05-07")
        memory.add_session("ana", "s2", [{"role": "user", "content": "Big news: I moved to Porto last week."}],
                           date="2023-06-06")
        yield memory


def test_the_retriever_takes_the_reads(moved):
    def text(**kw):
        return " ".join(n.node.get_content() for n in CbMemoryRetriever(moved, "ana", **kw).retrieve(QUESTION))

    assert "Paris" in text() and "Porto" in text()  # history
    assert "Paris" not in text(current_only=True) and "Porto" in text(current_only=True)
    assert "Paris" in text(as_of="2023-05-20") and "Porto" not in text(as_of="2023-05-20")
    with pytest.raises(InvalidInputError, match="current_only"):
        CbMemoryRetriever(moved, "ana", current_only="no")


def test_the_memory_block_takes_the_reads(moved):
    block = CbMemoryBlock(memory=moved, user_id="ana", as_of="2023-05-20", current_only=True)
    text = asyncio.run(block.aget([ChatMessage(role="user", content=QUESTION)]))
    assert "Paris" in text and "Porto" not in text and "Today is Saturday, 20 May 2023." in text
    with pytest.raises(InvalidInputError, match="as_of"):
        CbMemoryBlock(memory=moved, user_id="ana", as_of=12)
