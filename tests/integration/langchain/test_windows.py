"""Integration layer (offline; real SQLite memory and MiniLM embedder): recipe windows through the LangChain
adapter. A hit of the ``default`` recipe (window 1) reaches the model with the turn before and the turn after
it, each once; ``default_no_window`` shows the hit alone; a neighbour the thread already holds is not
repeated; two users with the same session id never see each other's neighbours. Covers
``CbMemoryMiddleware`` in a real ``create_agent`` and the documents' ``memory`` metadata."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage

from langchain_cbmemory import CbMemoryMiddleware, CbMemoryRetriever
from langchain_cbmemory._convert import hit_metadata
from notebooks.scripted_chat_model import ScriptedChatModel
from tests.support.window_turns import AFTER, ALICE, ALICE_Q, BEFORE, BOB, BOB_Q, HIT, line


@pytest.fixture
def two_users(memory):
    """alice and bob, each with a five-turn session named ``s1`` (turn ids ``a-0``... and ``b-0``...)."""
    for user, turns in (("alice", ALICE), ("bob", BOB)):
        memory.add_session(user, "s1", [{"role": r, "content": t, "turn_id": f"{user[0]}-{i}"}
                                        for i, (r, t) in enumerate(turns)], date="2023-05-07")
    return memory


def system_text(memory, messages, mode="invoke", user="alice", **middleware_kwargs) -> str:
    """The system message the model got on its one call, with the middleware searching ``user``'s memory."""
    model = ScriptedChatModel(script=["Ok."])
    middleware = CbMemoryMiddleware(memory, save=False, **middleware_kwargs)
    agent = create_agent(model, [], system_prompt="You are a helpful assistant.", middleware=[middleware])
    payload, ctx = {"messages": messages}, {"user_id": user, "session_id": "now"}
    if mode == "invoke":
        agent.invoke(payload, context=ctx)
    else:
        asyncio.run(agent.ainvoke(payload, context=ctx))
    [prompt] = model.seen
    return prompt[0].content


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_the_hit_comes_with_the_turn_before_and_after_it_each_once(two_users, mode):
    system = system_text(two_users, [HumanMessage(ALICE_Q)], mode, recipe="default", k=1)
    assert f"{BEFORE}\n{HIT}\n{AFTER}\n" in system  # one passage, in session order
    assert [system.count(x) for x in (BEFORE, HIT, AFTER)] == [1, 1, 1]
    assert "hiking in the Alps" not in system and "pottery" not in system  # window 1: no further
    assert "ladder" not in system and "roof" not in system  # bob's session s1 is not alice's


@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_without_a_window_the_hit_is_alone(two_users, mode):
    system = system_text(two_users, [HumanMessage(ALICE_Q)], mode, recipe="default_no_window", k=1)
    assert f"{HIT}\n" in system
    assert "How was the weather up there?" not in system and "That must have been unforgettable." not in system


def test_a_neighbour_in_the_thread_is_not_repeated(two_users):
    thread = [HumanMessage("Hello again."), AIMessage(ALICE[3][1]), HumanMessage(ALICE_Q)]  # a-3's text, no id
    system = system_text(two_users, thread, recipe="default", k=1)
    assert f"{BEFORE}\n{HIT}\n" in system and system.count(BEFORE) == system.count(HIT) == 1
    assert ALICE[3][1] not in system  # the thread shows it already


def test_neighbours_in_the_thread_are_matched_by_message_id_too(two_users):
    [hit] = two_users.search(ALICE_Q, "alice", k=1, recipe="default")
    assert [r.turn_id for r in hit.context] == ["a-1", "a-3"]
    system = system_text(two_users, [AIMessage("(edited)", id="a-1"), HumanMessage(ALICE_Q)], recipe="default", k=1)
    assert f"{HIT}\n{AFTER}\n" in system and BEFORE not in system  # a-1 is in the thread (by id, edited)
    gone = system_text(two_users, [HumanMessage(ALICE[2][1]), HumanMessage(ALICE_Q)], recipe="default", k=1)
    assert ALICE[2][1] not in gone  # the hit itself in the thread: not shown again, as a hit or a neighbour


@pytest.mark.parametrize("user, question, own, other", [("alice", ALICE_Q, ALICE, BOB), ("bob", BOB_Q, BOB, ALICE)])
def test_users_with_the_same_session_id_never_see_each_others_neighbours(two_users, user, question, own, other):
    system = system_text(two_users, [HumanMessage(question)], user=user, recipe="default", k=1)
    assert f"{line(own, 1)}\n{line(own, 2)}\n{line(own, 3)}\n" in system
    assert not any(text in system for _, text in other)
    [hit] = two_users.search(question, user, k=1, recipe="default")
    assert hit_metadata(hit)["context_turn_ids"] == [f"{user[0]}-1", f"{user[0]}-3"]


def test_documents_keep_the_verbatim_turn_and_carry_the_passage_as_memory(two_users):
    [doc] = CbMemoryRetriever(memory=two_users, user_id="alice", k=1, recipe="default").invoke(ALICE_Q)
    assert doc.page_content == ALICE[2][1]
    assert doc.metadata["memory"] == f"{BEFORE}\n{HIT}\n{AFTER}"
    assert doc.metadata["context_turn_ids"] == ["a-1", "a-3"] and doc.metadata["turn_id"] == "a-2"

    [alone] = CbMemoryRetriever(memory=two_users, user_id="alice", k=1, recipe="default_no_window").invoke(ALICE_Q)
    assert alone.page_content == ALICE[2][1] and alone.metadata["memory"] == HIT
    assert "context_turn_ids" not in alone.metadata
