"""Integration layer (offline; real SQLite memory and MiniLM embedder): recipe windows through the LlamaIndex
adapter. A hit of the ``default`` recipe (window 1) reaches the LLM with the turn before and the turn after
it, each once; ``default_no_window`` shows the hit alone; a neighbour already in the short-term buffer or
the recent window is not repeated; two users with the same session id never see each other's neighbours.
Covers CbMemoryBlock inside LlamaIndex's Memory, CbMemoryChatMemory and CbMemoryRetriever's nodes."""

from __future__ import annotations

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory
from llama_index.core.schema import MetadataMode

from llamaindex_cbmemory import CbMemoryBlock, CbMemoryChatMemory, CbMemoryRetriever
from tests.support.llama_loop import run_closed
from tests.support.window_turns import AFTER, ALICE, ALICE_Q, BEFORE, BOB, BOB_Q, DAY, HIT, line

LAST = f"user: Next month [June 2023] I start pottery classes downtown. [said {DAY}]"  # its relative date resolved


@pytest.fixture
def two_users(memory):
    """alice and bob, each with a five-turn session named ``s1``."""
    for user, turns in (("alice", ALICE), ("bob", BOB)):
        memory.add_session(user, "s1", [{"role": r, "content": t} for r, t in turns], date="2023-05-07")
    return memory


def ids(memory, user: str, positions) -> list[str]:
    records = memory.session_records(user, "s1")
    return [records[i].record_id for i in positions]


def block_system(memory, buffer: list[tuple[str, str]], user: str = "alice", **block_kwargs) -> list[ChatMessage]:
    """What LlamaIndex's Memory hands the LLM with a CbMemoryBlock of ``user``, after ``buffer`` was put."""
    block = CbMemoryBlock(memory=memory, user_id=user, today="2023-05-20", **block_kwargs)
    mem = Memory.from_defaults(session_id="now", token_limit=5_000, memory_blocks=[block])

    async def run():
        for role, text in buffer:
            await mem.aput(ChatMessage(role=role, content=text))
        return await mem.aget()

    return run_closed(mem, run)


def test_block_shows_the_hit_with_the_turn_before_and_after_it_each_once(two_users):
    messages = block_system(two_users, [("user", ALICE_Q)], recipe="default", k=1)
    assert messages[0].role == MessageRole.SYSTEM
    system = messages[0].content
    assert f"{BEFORE}\n{HIT}\n{AFTER}\n" in system  # one passage, in session order
    assert [system.count(x) for x in (BEFORE, HIT, AFTER)] == [1, 1, 1]
    assert "hiking in the Alps" not in system and "pottery" not in system  # window 1: no further
    assert "ladder" not in system and "roof" not in system  # bob's session s1 is not alice's


def test_block_without_a_window_shows_the_hit_alone(two_users):
    system = block_system(two_users, [("user", ALICE_Q)], recipe="default_no_window", k=1)[0].content
    assert f"{HIT}\n" in system
    assert "How was the weather up there?" not in system and "That must have been unforgettable." not in system


def test_block_leaves_out_a_neighbour_in_the_short_term_buffer(two_users):
    messages = block_system(two_users, [("assistant", ALICE[3][1]), ("user", ALICE_Q)], recipe="default", k=1)
    system = messages[0].content
    assert f"{BEFORE}\n{HIT}\n" in system and system.count(BEFORE) == system.count(HIT) == 1
    assert ALICE[3][1] not in system
    assert [m.content for m in messages[1:]] == [ALICE[3][1], ALICE_Q]  # shown once: in the buffer


def test_chat_memory_leaves_out_a_neighbour_in_its_recent_window(two_users):
    cm = CbMemoryChatMemory(memory=two_users, user_id="alice", session_id="s1", session_date="2023-05-20",
                            recipe="default", k=1, window=2)
    messages = cm.get(input=ALICE_Q)
    system = messages[0].content
    assert messages[0].role == MessageRole.SYSTEM
    assert f"{BEFORE}\n{HIT}\n" in system and system.count(BEFORE) == system.count(HIT) == 1
    assert ALICE[3][1] not in system  # a-3 is in the recent window below
    assert [m.content for m in messages[1:]] == [ALICE[3][1], ALICE[4][1]]

    alone = CbMemoryChatMemory(memory=two_users, user_id="alice", session_id="other", recipe="default", k=1,
                               session_date="2023-05-20").get(input=ALICE_Q)
    assert f"{BEFORE}\n{HIT}\n{AFTER}\n" in alone[0].content  # nothing in that window: the whole passage


@pytest.mark.parametrize("user, question, own, other", [("alice", ALICE_Q, ALICE, BOB), ("bob", BOB_Q, BOB, ALICE)])
def test_users_with_the_same_session_id_never_see_each_others_neighbours(two_users, user, question, own, other):
    system = block_system(two_users, [("user", question)], user=user, recipe="default", k=1)[0].content
    assert f"{line(own, 1)}\n{line(own, 2)}\n{line(own, 3)}\n" in system
    assert not any(text in system for _, text in other)
    [node] = CbMemoryRetriever(two_users, user, k=1, recipe="default").retrieve(question)
    assert node.node.metadata["context_record_ids"] == ids(two_users, user, (1, 3))
    assert not any(text in node.node.get_content() for _, text in other)


def test_a_node_with_context_is_the_passage_each_line_dated_once(two_users):
    [with_window] = CbMemoryRetriever(two_users, "alice", k=1, recipe="default").retrieve(ALICE_Q)
    node = with_window.node
    assert node.get_content() == f"{BEFORE}\n{HIT}\n{AFTER}"
    assert node.get_content(MetadataMode.LLM) == node.get_content()  # the lines carry date and speaker
    assert node.metadata["verbatim"] == ALICE[2][1] and node.node_id == ids(two_users, "alice", (2,))[0]
    assert node.metadata["context_record_ids"] == ids(two_users, "alice", (1, 3))
    assert node.metadata["date"] == DAY and node.metadata["speaker"] == "user"  # for code, not the LLM

    [alone] = CbMemoryRetriever(two_users, "alice", k=1, recipe="default_no_window").retrieve(ALICE_Q)
    assert alone.node.get_content() == ALICE[2][1]
    assert alone.node.get_content(MetadataMode.LLM) == f"date: {DAY}\nspeaker: user\n\n{ALICE[2][1]}"
    assert "context_record_ids" not in alone.node.metadata


def test_the_default_s_nodes_are_passages_apart(two_users):
    nodes = CbMemoryRetriever(two_users, "alice", k=2, recipe="default").retrieve(ALICE_Q)
    records = {r.record_id: r.position for r in two_users.session_records("alice", "s1")}
    positions = sorted(records[n.node.node_id] for n in nodes)
    assert len(positions) == 2 and positions[1] - positions[0] > 1  # the second is no turn of the first's window
    shown = "\n".join(n.node.get_content(MetadataMode.LLM) for n in nodes)
    assert all(shown.count(x) <= 1 for x in (BEFORE, HIT, AFTER, LAST))


def test_nodes_show_each_turn_once(two_users):
    # default_v2: a window without skip_shown, so two adjacent turns can both be hits
    nodes = CbMemoryRetriever(two_users, "alice", k=2, recipe="default_v2").retrieve(ALICE_Q)
    assert sorted(n.node.node_id for n in nodes) == sorted(ids(two_users, "alice", (2, 3)))  # adjacent hits
    shown = "\n".join(n.node.get_content(MetadataMode.LLM) for n in nodes)
    assert [shown.count(x) for x in (ALICE[0][1], BEFORE, HIT, AFTER, LAST)] == [0, 1, 1, 1, 1]
    by_id = {n.node.node_id: n.node for n in nodes}
    a2, a3 = (by_id[i] for i in ids(two_users, "alice", (2, 3)))
    assert a2.get_content() == f"{BEFORE}\n{HIT}" and a2.metadata["context_record_ids"] == ids(two_users, "alice", (1,))
    assert a3.get_content() == f"{AFTER}\n{LAST}"
