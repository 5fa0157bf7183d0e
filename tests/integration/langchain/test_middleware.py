"""Integration layer (offline; real SQLite memory and MiniLM embedder): ``CbMemoryMiddleware`` inside a real
``create_agent`` driven by a scripted tool-calling chat model, under both ``invoke`` and ``ainvoke``."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from cbmemory.errors import InvalidInputError
from langchain_cbmemory import CbMemoryMiddleware
from notebooks.scripted_chat_model import ScriptedChatModel

MODES = ["invoke", "ainvoke"]


@tool
def lookup(topic: str) -> str:
    """Look a topic up."""
    return f"nothing about {topic}"


def call_tool(text: str = "") -> AIMessage:
    return AIMessage(text, tool_calls=[{"name": "lookup", "args": {"topic": "dogs"}, "id": "call-1"}])


def run(agent, mode: str, text: str, **kwargs):
    payload = {"messages": [HumanMessage(text)]}
    if mode == "invoke":
        return agent.invoke(payload, **kwargs)
    return asyncio.run(agent.ainvoke(payload, **kwargs))


def make_agent(memory, script, **middleware_kwargs):
    model = ScriptedChatModel(script=script)
    middleware = CbMemoryMiddleware(memory, **middleware_kwargs)
    return create_agent(model, [lookup], system_prompt="You are a helpful assistant.",
                        middleware=[middleware]), model, middleware


def turns(memory, user, session=None):
    return [(r.role, r.text) for r in memory.session_records(user, session)]


@pytest.mark.parametrize("mode", MODES)
def test_model_sees_dated_memories_of_its_own_user_on_every_call(memory, clock, mode):
    memory.add_session("alice", "s1", [{"role": "user", "content": "I adopted a puppy yesterday, her name is Biscuit."},
                                       {"role": "assistant", "content": "Congratulations!"}], date=clock.now)
    memory.add_session("bob", "b1", [{"role": "user", "content": "My puppy is called Rex."}], date=clock.now)
    clock.advance(days=25)  # Thursday, 1 June 2023
    agent, model, _ = make_agent(memory, [call_tool(), "Her name is Biscuit."])

    run(agent, mode, "What is my puppy called?", context={"user_id": "alice", "session_id": "s2"})

    assert len(model.seen) == 2  # one model call before the tool, one after: both get the memories
    for prompt in model.seen:
        system = prompt[0]
        assert isinstance(system, SystemMessage)
        assert system.content.startswith("You are a helpful assistant.\n\n")
        assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit. [said Sunday, 7 May 2023]" in system.content
        assert system.content.endswith("Today is Thursday, 1 June 2023.")
        assert "Rex" not in system.content  # bob's memory never reaches alice's agent
        assert sum(isinstance(m, SystemMessage) for m in prompt) == 1


@pytest.mark.parametrize("mode", MODES)
def test_turns_are_saved_once_per_agent_turn(memory, mode):
    agent, _, middleware = make_agent(memory, [call_tool("Let me check."), "Dogs are great.", "Sure."])
    ctx = {"user_id": "alice", "session_id": "s1"}

    state = run(agent, mode, "Tell me about dogs.", context=ctx)
    expected = [("user", "Tell me about dogs."), ("assistant", "Let me check."), ("assistant", "Dogs are great.")]
    assert turns(memory, "alice", "s1") == expected  # not after each step; tool results and calls are not turns

    class Runtime:  # a retried after_agent (same messages, same ids) stores nothing new
        context = ctx
    middleware.after_agent(state, Runtime())
    assert turns(memory, "alice", "s1") == expected

    run(agent, mode, "Thanks!", context=ctx)
    assert turns(memory, "alice", "s1") == expected + [("user", "Thanks!"), ("assistant", "Sure.")]


@pytest.mark.parametrize("mode", MODES)
def test_second_session_recalls_the_first_with_its_date(memory, clock, mode):
    agent, model, _ = make_agent(memory, ["Noted.", "It was Saturday, 6 May 2023."])
    run(agent, mode, "I adopted a puppy yesterday, her name is Biscuit.",
        context={"user_id": "alice", "session_id": "s1"})
    assert "Relevant memories" not in model.seen[0][0].content  # nothing stored before the first turn
    clock.advance(days=25)

    run(agent, mode, "When did I adopt my puppy?", context={"user_id": "alice", "session_id": "s2"})

    system = model.seen[1][0].content
    assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit. [said Sunday, 7 May 2023]" in system
    assert "Today is Thursday, 1 June 2023." in system
    assert [s.session_id for s in memory.sessions("alice")] == ["s1", "s2"]
    assert memory.sessions("alice")[1].occurred_at == clock.now


@pytest.mark.parametrize("mode", MODES)
def test_thread_id_is_the_session_and_checkpointed_history_is_not_saved_twice(memory, mode):
    model = ScriptedChatModel(script=["Hello Alice.", "You said hi."])
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)], checkpointer=InMemorySaver())

    @dataclass
    class Context:
        user_id: str

    config = {"configurable": {"thread_id": "thread-7"}}
    run(agent, mode, "Hi, I'm Alice.", context=Context("alice"), config=config)
    run(agent, mode, "What did I say?", context=Context("alice"), config=config)

    assert turns(memory, "alice", "thread-7") == [
        ("user", "Hi, I'm Alice."), ("assistant", "Hello Alice."),
        ("user", "What did I say?"), ("assistant", "You said hi.")]


def test_session_defaults_to_the_day_without_context_or_thread(memory):
    agent, _, _ = make_agent(memory, ["Hi."], user_id="alice")
    run(agent, "invoke", "Hello")
    assert [s.session_id for s in memory.sessions("alice")] == ["2023-05-07"]


def test_missing_user_id_is_a_clear_error(memory):
    agent, _, _ = make_agent(memory, ["Hi."])
    with pytest.raises(InvalidInputError, match="needs a user id"):
        run(agent, "invoke", "Hello", context={"session_id": "s1"})


def test_read_only_and_recipe_options(memory, clock):
    memory.add_session("alice", "s1", [{"role": "user", "content": "I live in Lyon."}], date=clock.now)
    agent, model, _ = make_agent(memory, ["Lyon."], save=False, recipe="bm25", k=1, say_today=False)
    run(agent, "invoke", "Where do I live? Lyon?", context={"user_id": "alice", "session_id": "s2"})
    system = model.seen[0][0].content
    assert "[Sunday, 7 May 2023] user: I live in Lyon." in system and "Today is" not in system
    assert [s.session_id for s in memory.sessions("alice")] == ["s1"]  # save=False stored nothing


# ---------------------------------------------------------------- the context stage inside an agent (issue 15)
@pytest.mark.parametrize("mode", MODES)
def test_session_date_from_the_runtime_context_sets_today_and_the_stored_date(memory, mode):
    from langchain_cbmemory import CbMemoryContext

    agent, model, _ = make_agent(memory, ["Noted.", "You adopted Biscuit yesterday."])
    ctx = CbMemoryContext(user_id="alice", session_id="s1", session_date="2023-05-07T10:00:00Z")
    run(agent, mode, "I adopted a puppy yesterday, her name is Biscuit.", context=ctx)
    assert [s.occurred_at.date().isoformat() for s in memory.sessions("alice")] == ["2023-05-07"]  # not the clock's day

    later = CbMemoryContext(user_id="alice", session_id="s2", session_date="2023-06-01")
    run(agent, mode, "When did I adopt my dog?", context=later)
    system = model.seen[-1][0].content
    assert "user: I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit. [said Sunday, 7 May 2023]" in system
    assert ("ends with it ('said ...'); the date a relative date ('yesterday', 'last week') means follows it in "
            "brackets." in system)  # the same date guidance LlamaIndex gives
    assert system.endswith("Today is Thursday, 1 June 2023.")


@pytest.mark.parametrize("mode", MODES)
def test_memories_already_in_the_thread_are_not_repeated(memory, mode):
    model = ScriptedChatModel(script=["Noted.", "Biscuit."])
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    ctx = {"user_id": "alice", "session_id": "s1"}
    memory.add_session("alice", "s0", [{"role": "user", "content": "My cat is called Miso."}])
    run(agent, mode, "My puppy is called Biscuit.", context=ctx, config=config)
    run(agent, mode, "What are my puppy and my cat called?", context=ctx, config=config)
    prompt = model.seen[-1]
    system = prompt[0].content
    assert "My puppy is called Biscuit." in [m.content for m in prompt[1:]]  # the thread shows it ...
    assert "Biscuit" not in system  # ... so the system message does not repeat it
    assert "user: My cat is called Miso." in system  # while memories from elsewhere still come


@pytest.mark.parametrize("mode", MODES)
def test_save_roles_keeps_the_agents_own_answers_out_of_memory(memory, mode):
    agent, _, _ = make_agent(memory, ["Your dog is called Rex."], save_roles=("user",))
    run(agent, mode, "What is my dog called?", context={"user_id": "alice", "session_id": "s1"})
    assert turns(memory, "alice", "s1") == [("user", "What is my dog called?")]
    with pytest.raises(InvalidInputError, match="save_roles"):
        CbMemoryMiddleware(memory, save_roles=("tool",))
    with pytest.raises(InvalidInputError, match="order"):
        CbMemoryMiddleware(memory, order="newest")


def test_what_the_model_reads_follows_the_recipe(memory, clock):
    from cbmemory.context import ContextConfig
    from cbmemory.recipes import RECIPES

    memory.add_session("alice", "s1", [{"role": "user", "content": "I adopted a puppy yesterday."}], date=clock.now)
    undated = RECIPES["default"].with_(name="undated", context=ContextConfig(dates=False, resolve_dates=False))
    agent, model, _ = make_agent(memory, ["ok"], recipe=undated, save=False)
    run(agent, "invoke", "When did I adopt my puppy?", context={"user_id": "alice"})
    system = model.seen[-1][0].content
    assert "user: I adopted a puppy yesterday." in system and "May 2023]" not in system
    assert "relative to that date" not in system
