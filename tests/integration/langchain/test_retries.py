"""Integration layer (issue 24 item 4): a retried agent step stores each message once. ``CbMemoryMiddleware``
in a real ``create_agent`` with a checkpointer (the thread keeps the first attempt's message), a scripted
chat model that fails once then answers (the model is not under test), over a real SQLite memory."""

from __future__ import annotations

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from langchain_cbmemory import CbMemoryMiddleware
from notebooks.scripted_chat_model import ScriptedChatModel


class Flaky:
    """A reply function that fails the first time it is asked, then answers."""

    def __init__(self, answer: str):
        self.answer, self.calls = answer, 0

    def __call__(self, messages):
        self.calls += 1
        if self.calls == 1:
            raise ConnectionError("the model provider timed out")
        return self.answer


def test_a_step_retried_after_the_model_failed_stores_the_user_message_once(memory):
    model = ScriptedChatModel(script=[], respond=Flaky("Her name is Biscuit."))
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    def ask():  # a client re-sending builds the message again: a new message id each time
        return {"messages": [HumanMessage("My puppy is called Biscuit.")]}

    with pytest.raises(ConnectionError):
        agent.invoke(ask(), context={"user_id": "alice"}, config=config)
    out = agent.invoke(ask(), context={"user_id": "alice"}, config=config)
    assert [m.type for m in out["messages"]] == ["human", "human", "ai"]  # the thread holds both attempts
    stored = [(r.role, r.text) for r in memory.session_records("alice", "t1")]
    assert stored == [("user", "My puppy is called Biscuit."), ("assistant", "Her name is Biscuit.")]


def test_a_message_said_again_after_a_reply_is_a_new_turn(memory):
    model = ScriptedChatModel(script=["Noted.", "Noted again."])
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t2"}}
    for _ in range(2):
        agent.invoke({"messages": [HumanMessage("ok")]}, context={"user_id": "alice"}, config=config)
    stored = [(r.role, r.text) for r in memory.session_records("alice", "t2")]
    assert stored == [("user", "ok"), ("assistant", "Noted."), ("user", "ok"), ("assistant", "Noted again.")]
