"""Integration layer (LlamaIndex's interface contract): CbMemoryBlock inside LlamaIndex's composable Memory
(what it stores when Memory flushes, what it returns, how it truncates), over a real SQLite memory with the
offline embedder. No network."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.sql import MessageStatus

from cbmemory import InvalidInputError
from cbmemory.context import count_tokens
from cbmemory.context import memory_line as format_hit
from llamaindex_cbmemory import CbMemoryBlock
from tests.support.llama_loop import run_closed

QUESTION = ChatMessage(role="user", content="Who is visiting me, and where do I live?")


def block(memory, **kwargs) -> CbMemoryBlock:
    kwargs.setdefault("user_id", "alice")
    kwargs.setdefault("today", "2023-05-20")
    return CbMemoryBlock(memory=memory, **kwargs)


def words(text: str) -> list[str]:
    return text.split()


def test_memory_flushes_are_stored_and_nothing_else(memory):
    b = block(memory)
    mem = Memory.from_defaults(session_id="s9", token_limit=40, chat_history_token_ratio=0.5, token_flush_size=8,
                               tokenizer_fn=words, memory_blocks=[b])
    turns = [("user", "I moved to Lyon yesterday with my partner."), ("assistant", "Congratulations on the new home!"),
             ("user", "My cat Miso came along in the van."), ("assistant", "Miso must be curious about it."),
             ("user", "Next week I start a job at the museum."), ("assistant", "Good luck with the new job.")]

    async def run():
        for role, text in turns:
            await mem.aput(ChatMessage(role=role, content=text))
        return await mem.aget_all(status=MessageStatus.ARCHIVED), await mem.aget_all(status=MessageStatus.ACTIVE)

    flushed, active = run_closed(mem, run)
    assert flushed and active  # some left the short-term buffer, some are still in it
    stored = [(r.role, r.text) for r in memory.session_records("alice", "s9")]
    assert stored == [(m.role.value, m.content) for m in flushed]
    assert not set(stored) & {(m.role.value, m.content) for m in active}
    assert memory.sessions("alice")[0].occurred_at.date().isoformat() == "2023-05-20"


def test_block_content_in_the_system_message(seeded):
    mem = Memory.from_defaults(session_id="a3", token_limit=5_000, memory_blocks=[block(seeded)])

    async def run():
        await mem.aput(ChatMessage(role="user", content="My sister Emma is visiting me next weekend."))
        return await mem.aget(input=QUESTION.content)

    messages = run_closed(mem, run)
    assert messages[0].role == MessageRole.SYSTEM
    system = messages[0].content
    assert "<cbmemory>" in system
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in system
    assert "Today is Saturday, 20 May 2023." in system
    assert "Emma is visiting me next weekend" not in system  # that turn is in the short-term buffer
    assert "Rex" not in system and "Berlin" not in system  # Bob's memory stays Bob's
    assert [m.content for m in messages[1:]] == ["My sister Emma is visiting me next weekend."]


def test_no_user_message_no_content(seeded):
    assert asyncio.run(block(seeded).aget([])) == ""


def test_truncation_drops_the_lowest_ranked_memories_first(seeded):
    # hits alone: with a window, the dropped hit's line may still be shown as a better hit's neighbour
    b = block(seeded, k=5, recipe="default_no_window")
    ranked = seeded.search(QUESTION.content, "alice", k=5, recipe="default_no_window")
    assert len(ranked) == 5

    async def run():
        content = await b.aget([QUESTION])
        saved_one = count_tokens(content) - count_tokens(b._render(ranked[:4]))
        return content, await b.atruncate(content, saved_one), await b.atruncate(content, count_tokens(content))

    content, shorter, nothing = asyncio.run(run())
    assert all(format_hit(h) in content for h in ranked)
    assert format_hit(ranked[-1]) not in shorter
    assert all(format_hit(h) in shorter for h in ranked[:4])
    assert shorter.endswith("Today is Saturday, 20 May 2023.")
    assert nothing is None
    assert asyncio.run(b.atruncate("some text this block never made", 3)) is None


def test_memory_truncates_the_block_when_tokens_run_out(seeded):
    b = block(seeded, k=5)
    ranked = seeded.search(QUESTION.content, "alice", k=5)
    full = asyncio.run(b.aget([QUESTION]))
    limit = count_tokens(full) + count_tokens(QUESTION.content) - 25  # about two memory lines too many
    mem = Memory.from_defaults(session_id="t1", token_limit=limit, memory_blocks=[b])

    async def run():
        await mem.aput(QUESTION)
        return await mem.aget()

    system = run_closed(mem, run)[0].content
    assert format_hit(ranked[0]) in system and format_hit(ranked[-1]) not in system


def test_priority_zero_is_never_truncated(seeded):
    b = block(seeded, k=5, priority=0)
    mem = Memory.from_defaults(session_id="t2", token_limit=30, memory_blocks=[b])

    async def run():
        await mem.aput(QUESTION)
        return await mem.aget()

    assert "I moved to Lyon yesterday" in run_closed(mem, run)[0].content


@pytest.mark.parametrize("kwargs", [{"user_id": ""}, {"k": 0}, {"recipe": "nope"}, {"today": "someday"}])
def test_bad_arguments_raise_typed_errors(seeded, kwargs):
    with pytest.raises(InvalidInputError):
        block(seeded, **kwargs)
