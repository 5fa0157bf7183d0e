"""Integration layer (offline; real SQLite memory and MiniLM embedder): ``memory_search_tool`` inside a real
``create_agent`` driven by a scripted tool-calling chat model: the user comes from the runtime context on
every call, so one agent serves many users, each reading only their own memories, under ``invoke`` and
``ainvoke``; and ``CbMemoryMiddleware(search_tool=True)`` registering the same tool."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from cbmemory.errors import InvalidInputError
from langchain_cbmemory import CbMemoryContext, CbMemoryMiddleware, create_memory_tool, memory_search_tool
from langchain_cbmemory.retriever import CbMemoryRetriever
from langchain_cbmemory.tools import NOTHING_FOUND
from notebooks.scripted_chat_model import ScriptedChatModel

MODES = ["invoke", "ainvoke"]
ALICE_PET = "user: I adopted a puppy yesterday [Saturday, 6 May 2023], her name is Biscuit. [said Sunday, 7 May 2023]"
BOB_PET = "[Sunday, 7 May 2023] user: My cat is called Tom."


def search_call(query: str, call_id: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "search_memory", "args": {"query": query}, "id": call_id}])


def run(agent, mode: str, text: str, **kwargs):
    payload = {"messages": [HumanMessage(text)]}
    if mode == "invoke":
        return agent.invoke(payload, **kwargs)
    return asyncio.run(agent.ainvoke(payload, **kwargs))


def tool_results(state) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


@pytest.fixture
def two_users(memory, clock):
    memory.add_session("alice", "a1", [{"role": "user", "content": "I adopted a puppy yesterday, her name is Biscuit."},
                                       {"role": "assistant", "content": "Congratulations!"}], date=clock.now)
    memory.add_session("bob", "b1", [{"role": "user", "content": "My cat is called Tom."}], date=clock.now)
    clock.advance(days=25)  # Thursday, 1 June 2023
    return memory


@pytest.mark.parametrize("mode", MODES)
def test_one_agent_serves_each_user_their_own_memories(two_users, mode):
    model = ScriptedChatModel(script=[search_call("What is my pet called?"), "Biscuit.",
                                      search_call("What is my pet called?"), "Tom."])
    agent = create_agent(model, [memory_search_tool(two_users, k=3)], context_schema=CbMemoryContext)

    alice = tool_results(run(agent, mode, "What is my pet called?", context=CbMemoryContext(user_id="alice")))
    bob = tool_results(run(agent, mode, "What is my pet called?", context={"user_id": "bob"}))

    assert [t.name for t in model.tools] == ["search_memory"]  # bound at the model call
    assert set(model.tools[0].tool_call_schema.model_json_schema()["properties"]) == {"query"}  # runtime hidden

    assert len(alice) == len(bob) == 1
    assert ALICE_PET in alice[0].content and "Tom" not in alice[0].content
    assert BOB_PET in bob[0].content and "Biscuit" not in bob[0].content
    for result in (alice[0], bob[0]):  # the context stage's text: header, dated lines, how to read them, today
        assert result.content.startswith("Relevant memories from earlier conversations")
        assert result.content.endswith("Today is Thursday, 1 June 2023.")
    assert model.seen[1][-1].content == alice[0].content  # what the model read after its call


@pytest.mark.parametrize("mode", MODES)
def test_session_date_in_the_context_is_today(two_users, mode):
    model = ScriptedChatModel(script=[search_call("puppy"), "Ok."])
    agent = create_agent(model, [memory_search_tool(two_users)], context_schema=CbMemoryContext)
    state = run(agent, mode, "puppy?", context=CbMemoryContext(user_id="alice", session_date="2023-05-10"))
    assert tool_results(state)[0].content.endswith("Today is Wednesday, 10 May 2023.")


def test_no_user_in_the_context_is_a_clear_error_never_someone_elses_memory(two_users):
    agent = create_agent(ScriptedChatModel(script=[search_call("pet")] * 2), [memory_search_tool(two_users)])
    with pytest.raises(InvalidInputError, match="search_memory needs a user id: invoke the agent with context="):
        run(agent, "invoke", "pet?", context={"session_id": "s1"})
    with pytest.raises(InvalidInputError, match="needs a user id"):
        run(agent, "invoke", "pet?")  # no context at all

    fallback = create_agent(ScriptedChatModel(script=[search_call("pet"), "Ok."]),
                            [memory_search_tool(two_users, user_id="bob", user_key="uid")])
    assert BOB_PET in tool_results(run(fallback, "invoke", "pet?"))[0].content
    model = ScriptedChatModel(script=[search_call("pet"), "Ok."])
    keyed = create_agent(model, [memory_search_tool(two_users, user_id="bob", user_key="uid")])
    assert ALICE_PET in tool_results(run(keyed, "invoke", "pet?", context={"uid": "alice"}))[0].content


def test_nothing_found_and_artifacts(memory, two_users):
    model = ScriptedChatModel(script=[search_call("pet"), "Ok.", search_call("pet"), "Ok."])
    tool = memory_search_tool(two_users, response_format="content_and_artifact", order="rank", say_today=False)
    agent = create_agent(model, [tool])
    result = tool_results(run(agent, "invoke", "pet?", context={"user_id": "alice"}))[0]
    assert ALICE_PET in result.content and "Today is" not in result.content
    assert {d.metadata["user_id"] for d in result.artifact} == {"alice"}
    # each artifact's memory is what a model reads of it: its line, between its neighbours' (the window)
    assert any(ALICE_PET in d.metadata["memory"].splitlines() for d in result.artifact)

    stranger = tool_results(run(agent, "invoke", "pet?", context={"user_id": "carol"}))[0]
    assert stranger.content == NOTHING_FOUND and stranger.artifact == []
    with pytest.raises(InvalidInputError, match="order"):
        memory_search_tool(memory, order="sideways")


@pytest.mark.parametrize("mode", MODES)
def test_middleware_registers_the_tool_for_the_same_user(two_users, mode):
    middleware = CbMemoryMiddleware(two_users, search_tool=True, save=False, k=2)
    assert [t.name for t in middleware.tools] == ["search_memory"]
    assert CbMemoryMiddleware(two_users).tools == []
    model = ScriptedChatModel(script=[search_call("Which animal do I have?"), "A cat.",
                                      search_call("Which animal do I have?"), "A dog."])
    agent = create_agent(model, [], middleware=[middleware], context_schema=CbMemoryContext)

    bob = tool_results(run(agent, mode, "Which animal do I have?", context=CbMemoryContext(user_id="bob")))
    alice = tool_results(run(agent, mode, "Which animal do I have?", context=CbMemoryContext(user_id="alice")))
    assert [t.name for t in model.tools] == ["search_memory"]
    assert BOB_PET in bob[0].content and "Biscuit" not in bob[0].content
    assert ALICE_PET in alice[0].content and "Tom" not in alice[0].content
    assert BOB_PET in model.seen[0][0].content  # the middleware's recall names the same user


def test_the_fixed_user_retriever_tool_still_works(two_users):
    tool = create_memory_tool(CbMemoryRetriever(memory=two_users, user_id="bob", k=1))
    assert tool.invoke({"query": "pet"}) == BOB_PET
