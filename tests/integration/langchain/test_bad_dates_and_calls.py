"""Integration layer (issue 29 items 7 and 8, issue 30): a LangChain agent with ``CbMemoryMiddleware`` in a real
``create_agent`` (scripted chat model: the model is not under test), a real SQLite memory and the offline
embedder. A runtime context's ``session_date`` is parsed as ``add_session`` parses dates; one that does not
parse is reported and the clock used, and the model still answers; the memory tool and the retriever too.
A call of the memory that is wrong as written (a list as the query, a number as the user, a message in the
user id's place) raises at once instead of failing open."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, SystemMessage

from cbmemory import InvalidInputError, Message
from langchain_cbmemory import CbMemoryMiddleware, CbMemoryRetriever
from notebooks.scripted_chat_model import ScriptedChatModel

PUPPY = "I adopted a puppy yesterday, her name is Biscuit."


def seed(memory, clock):
    memory.add_session("alice", "s1", [{"role": "user", "content": PUPPY}], date=clock.now)
    clock.advance(days=25)


def test_a_runtime_session_date_that_does_not_parse_is_reported_and_the_model_still_answers(memory, clock):
    seed(memory, clock)
    faults = []
    model = ScriptedChatModel(script=[], respond="Her name is Biscuit.")
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory, on_error=faults.append)])
    out = agent.invoke({"messages": [HumanMessage("What is my puppy called?")]},
                       context={"user_id": "alice", "session_id": "s2", "session_date": "31/12/2024"})
    assert out["messages"][-1].content == "Her name is Biscuit."  # old: InvalidDateError, model never called
    system = model.seen[0][0]
    assert isinstance(system, SystemMessage) and "Biscuit" in system.content
    assert "Today is Thursday, 1 June 2023" in system.content  # the memory's clock
    assert {f.stage for f in faults} == {"recall", "save"} and all("31/12/2024" in f.detail for f in faults)
    assert [r.text for r in memory.session_records("alice", "s2")][0] == "What is my puppy called?"  # stored
    assert memory.sessions("alice")[-1].occurred_at == clock.now


def test_an_iso_session_date_in_the_runtime_context_is_today(memory, clock):
    seed(memory, clock)
    model = ScriptedChatModel(script=[], respond="ok")
    agent = create_agent(model, [], middleware=[CbMemoryMiddleware(memory)])
    agent.invoke({"messages": [HumanMessage("What is my puppy called?")]},
                 context={"user_id": "alice", "session_id": "s2", "session_date": "1:56 pm on 8 May, 2023"})
    assert "Today is Monday, 8 May 2023" in model.seen[0][0].content  # LoCoMo's form, as add_session takes it


def test_the_retriever_takes_a_bad_reference_date_as_the_clock(memory, clock):
    seed(memory, clock)
    faults = []
    docs = CbMemoryRetriever(memory=memory, user_id="alice", on_error=faults.append).invoke(
        "puppy", reference_date="next Tuesday-ish")
    assert [d.page_content for d in docs] == [PUPPY] and len(faults) == 1 and faults[0].stage == "recall"


@pytest.mark.parametrize("call", [
    lambda m: m.recall(["What is my puppy called?"], "alice"),  # a list as the query
    lambda m: m.recall("What is my puppy called?", 42),  # a number as the user
    lambda m: m.recall("alice", "What is my puppy called? " * 12),  # swapped: a message is no user id
    lambda m: m.recall("What is my puppy called?", "alice", k="5"),
    lambda m: m.recall("What is my puppy called?", "alice", today=20230601),
    lambda m: m.recall("What is my puppy called?", "alice", recipe="no_such_recipe"),
    lambda m: m.save("alice", [Message("user", "hi")], "s2"),  # swapped: messages in the session's place
    lambda m: m.save("alice", "s2", "hi"),  # a string, not a list of messages
    lambda m: m.save("alice", "s2", [{"role": "user", "content": "hi"}]),  # dicts, not Messages
    lambda m: m.save("alice", "s2", [Message("user", "hi")], on_error="log"),
], ids=["list-query", "int-user", "swapped-recall", "str-k", "int-today", "unknown-recipe", "swapped-save",
        "str-messages", "dict-messages", "bad-hook"])
def test_a_call_wrong_as_written_raises_at_once_instead_of_failing_open(memory, clock, call, caplog):
    seed(memory, clock)
    with pytest.raises(InvalidInputError):
        call(memory)  # old: an empty recall (or nothing stored) and a log line
    assert memory.session_records("alice", "s2") == []


def test_hostile_content_still_fails_open(memory, clock):
    seed(memory, clock)
    found = memory.recall("\ud800 what is my puppy called?\x00", "alice", today=datetime(2023, 6, 1, tzinfo=timezone.utc))
    assert found.fault is None and found.hits[0].record.text == PUPPY
