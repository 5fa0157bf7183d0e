"""Integration layer (offline; real SQLite memory and MiniLM embedder): ``CbMemoryStore`` as a LangGraph
``BaseStore``: round trips, namespace isolation, searches through a recipe, TTL, agreement with LangGraph's
``InMemoryStore`` on everything that is not ranking, and use from a ``create_agent`` tool."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain.agents import create_agent
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.store.base import InvalidNamespaceError, PutOp
from langgraph.store.memory import InMemoryStore

from cbmemory import AgentMemory, SQLiteStore
from cbmemory.errors import InvalidInputError
from langchain_cbmemory import CbMemoryMiddleware, CbMemoryStore
from notebooks.scripted_chat_model import ScriptedChatModel

from .conftest import Clock


@pytest.fixture
def store(memory):
    return CbMemoryStore(memory)


def test_put_get_round_trip_keeps_value_and_both_dates(store, clock):
    value = {"content": "Ünïcode \"quotes\" 🎉\nand lines", "n": 3, "x": 1.5, "ok": True, "none": None,
             "nested": {"list": [1, "two", {"three": 3}]}}
    store.put(("memories", "alice"), "k1", value)
    item = store.get(("memories", "alice"), "k1")
    assert (item.namespace, item.key, item.value) == (("memories", "alice"), "k1", value)
    assert item.created_at == item.updated_at == clock.now

    clock.advance(days=1)
    store.put(("memories", "alice"), "k1", {"content": "changed"})
    item = store.get(("memories", "alice"), "k1")
    assert item.value == {"content": "changed"}
    assert item.updated_at == clock.now and item.created_at == clock.now.replace(day=7)
    assert len(store.search(("memories", "alice"))) == 1  # updated in place, not duplicated

    store.delete(("memories", "alice"), "k1")
    assert store.get(("memories", "alice"), "k1") is None
    store.delete(("memories", "alice"), "never-there")  # deleting a missing key is not an error
    assert store.list_namespaces() == []


def test_namespaces_keep_users_apart(store, memory):
    store.put(("memories", "alice"), "pet", {"content": "My puppy is called Biscuit."})
    store.put(("memories", "bob"), "pet", {"content": "My cat is called Tom."})
    store.put(("memories", "alice", "work"), "job", {"content": "I am a nurse."})
    store.put(("prefs", "alice"), "pet", {"content": "Prefers dogs."})

    assert store.get(("memories", "alice"), "pet").value == {"content": "My puppy is called Biscuit."}
    assert store.get(("memories", "bob"), "pet").value == {"content": "My cat is called Tom."}
    for query in (None, "What is my pet called?"):
        found = store.search(("memories", "alice"), query=query)
        assert {(i.namespace, i.key) for i in found} == {(("memories", "alice"), "pet"),
                                                        (("memories", "alice", "work"), "job")}
    assert {i.key for i in store.search(("memories",), query="cat")} == {"pet", "job"}
    assert {i.namespace for i in store.search(("memories",))} == {
        ("memories", "alice"), ("memories", "bob"), ("memories", "alice", "work")}
    # the user id is namespace[1]: each user's items are their own cbmemory memory
    assert {r.text for r in memory.session_records("bob")} == {'{"content": "My cat is called Tom."}'}
    assert store.list_namespaces() == [("memories", "alice"), ("memories", "alice", "work"),
                                       ("memories", "bob"), ("prefs", "alice")]
    assert store.list_namespaces(prefix=("memories",), max_depth=2) == [("memories", "alice"), ("memories", "bob")]
    assert store.list_namespaces(suffix=("alice",)) == [("memories", "alice"), ("prefs", "alice")]
    assert store.list_namespaces(prefix=("*", "alice"), limit=1, offset=1) == [("memories", "alice", "work")]


def test_query_search_is_ranked_by_the_recipe_with_scores(memory):
    store = CbMemoryStore(memory, recipe="hybrid")
    facts = {"pet": "Alice's puppy is called Biscuit.", "food": "Alice is a vegetarian and loves lentil soup.",
             "city": "Alice moved to Lyon last spring.", "job": "Alice works night shifts as a nurse."}
    for key, text in facts.items():
        store.put(("memories", "alice"), key, {"content": text})
    found = store.search(("memories", "alice"), query="Which soup does she love?", limit=2)
    assert [i.key for i in found][0] == "food" and len(found) == 2
    assert found[0].score >= found[1].score > 0
    assert [i.key for i in store.search(("memories", "alice"), query="Which city did she move to?")][0] == "city"
    paged = store.search(("memories", "alice"), query="Alice", limit=2, offset=2)
    assert len(paged) == 2 and not {i.key for i in paged} & {i.key for i in
                                                            store.search(("memories", "alice"), query="Alice", limit=2)}


def test_filters_follow_langgraph_semantics(store):
    rows = {"a": {"kind": "fact", "n": 1, "meta": {"src": "chat"}}, "b": {"kind": "fact", "n": 5},
            "c": {"kind": "pref", "n": 9, "meta": {"src": "form"}}}
    for key, value in rows.items():
        store.put(("m", "alice"), key, value)
    keys = lambda **kw: sorted(i.key for i in store.search(("m", "alice"), **kw))  # noqa: E731
    assert keys(filter={"kind": "fact"}) == ["a", "b"]
    assert keys(filter={"n": {"$gt": 1, "$lte": 9}}) == ["b", "c"]
    assert keys(filter={"kind": {"$ne": "fact"}}) == ["c"]
    assert keys(filter={"meta": {"src": "chat"}}) == ["a"]
    assert keys(filter={"kind": "fact"}, query="fact number") == ["a", "b"]
    with pytest.raises(InvalidInputError, match="unsupported filter operator"):
        keys(filter={"n": {"$in": [1]}})


def test_ttl_expires_and_reads_refresh_it(memory, clock):
    store = CbMemoryStore(memory)
    store.put(("m", "alice"), "short", {"v": 1}, ttl=10)
    store.put(("m", "alice"), "keep", {"v": 2})
    clock.advance(minutes=6)
    assert store.get(("m", "alice"), "short").value == {"v": 1}  # read at 6 min: expires at 16 min now
    clock.advance(minutes=6)
    assert store.get(("m", "alice"), "short", refresh_ttl=False) is not None  # 12 min: alive, not refreshed
    clock.advance(minutes=5)
    assert store.get(("m", "alice"), "short") is None  # 17 min
    assert [i.key for i in store.search(("m", "alice"))] == ["keep"]
    assert store.supports_ttl

    defaulted = CbMemoryStore(memory, ttl={"default_ttl": 1.0})
    defaulted.put(("m", "alice"), "brief", {"v": 3})
    clock.advance(minutes=2)
    assert defaulted.get(("m", "alice"), "brief") is None
    with pytest.raises(InvalidInputError, match="positive"):
        store.batch([PutOp(("m", "alice"), "bad", {"v": 1}, ttl=0)])


def test_bad_input_is_refused(store):
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph", "alice"), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b", "alice"), "k", {"v": 1})])
    with pytest.raises(InvalidInputError, match="JSON"):
        store.put(("m", "alice"), "k", {"when": object()})
    assert store.search(("m",), limit=0) == []


def test_user_position_is_configurable(memory):
    store = CbMemoryStore(memory, user_at=0)
    store.put(("alice", "memories"), "k", {"v": 1})
    assert [r.user_id for r in memory.session_records("alice")] == ["alice"]
    assert store.get(("alice", "memories"), "k").value == {"v": 1}


def test_async_api(store):
    async def scenario():
        await store.aput(("m", "alice"), "k", {"content": "Biscuit is a beagle."})
        got = await store.aget(("m", "alice"), "k")
        found = await store.asearch(("m", "alice"), query="dog breed")
        spaces = await store.alist_namespaces()
        await store.adelete(("m", "alice"), "k")
        return got, found, spaces, await store.aget(("m", "alice"), "k")

    got, found, spaces, gone = asyncio.run(scenario())
    assert got.value == {"content": "Biscuit is a beagle."} and found[0].key == "k" and found[0].score > 0
    assert spaces == [("m", "alice")] and gone is None


# ---------------------------------------------------------------- agreement with LangGraph's own store
NAMESPACES = [("m", "alice"), ("m", "bob"), ("m", "alice", "s1"), ("p", "alice"), ("solo",)]
ops = st.lists(st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(["k1", "k2", "k3"]),
                         st.one_of(st.none(), st.fixed_dictionaries(
                             {"kind": st.sampled_from(["a", "b"]), "n": st.integers(0, 3)}))),
               min_size=1, max_size=10)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=ops)
def test_agrees_with_langgraph_in_memory_store(minilm, script):
    memory = AgentMemory(SQLiteStore(":memory:"), minilm, clock=Clock())
    ours, reference = CbMemoryStore(memory), InMemoryStore()
    try:
        for namespace, key, value in script:
            for s in (ours, reference):
                if value is None:
                    s.delete(namespace, key)
                else:
                    s.put(namespace, key, value)
        for namespace in NAMESPACES:
            for key in ("k1", "k2", "k3"):
                a, b = ours.get(namespace, key), reference.get(namespace, key)
                assert (a.value if a else None) == (b.value if b else None)
        for prefix in [(), ("m",), ("m", "alice"), ("solo",), ("p", "bob")]:
            for flt in (None, {"kind": "a"}, {"n": {"$gte": 2}}):
                got = {(i.namespace, i.key) for i in ours.search(prefix, filter=flt, limit=100)}
                want = {(i.namespace, i.key) for i in reference.search(prefix, filter=flt, limit=100)}
                assert got == want
        # InMemoryStore lists a namespace whose items were all deleted (or that a delete named); we do not
        live = sorted({i.namespace for i in reference.search((), limit=100)})
        assert ours.list_namespaces() == live
        assert ours.list_namespaces(prefix=("m",), max_depth=2) == sorted({n[:2] for n in live if n[0] == "m"})
    finally:
        memory.close()


# ---------------------------------------------------------------- inside an agent
@pytest.mark.parametrize("mode", ["invoke", "ainvoke"])
def test_agent_tools_write_the_store_and_the_middleware_recalls_it(memory, clock, mode):
    @tool
    def remember(fact: str, runtime: ToolRuntime[dict]) -> str:  # a bare ToolRuntime types the context None
        """Save a fact about the user."""
        runtime.store.put(("memories", runtime.context["user_id"]), "fact-1", {"content": fact})
        return "saved"

    store = CbMemoryStore(memory)
    save_call = AIMessage("", tool_calls=[{"name": "remember", "args": {"fact": "Alice is allergic to peanuts."},
                                           "id": "c1"}])
    model = ScriptedChatModel(script=[save_call, "Saved.", "You are allergic to peanuts."])
    agent = create_agent(model, [remember], store=store, middleware=[CbMemoryMiddleware(memory, save=False)])

    def run(text, ctx):
        payload = {"messages": [HumanMessage(text)]}
        return agent.invoke(payload, context=ctx) if mode == "invoke" else asyncio.run(agent.ainvoke(payload, context=ctx))

    run("Remember that I am allergic to peanuts.", {"user_id": "alice", "session_id": "s1"})
    assert store.get(("memories", "alice"), "fact-1").value == {"content": "Alice is allergic to peanuts."}
    clock.advance(days=3)
    run("What am I allergic to?", {"user_id": "alice", "session_id": "s2"})
    assert '[Sunday, 7 May 2023] memory: {"content": "Alice is allergic to peanuts."}' in model.seen[-1][0].content


# ---------------------------------------------------------------- property round trip
label = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="."), min_size=1,
              max_size=12) \
    .filter(lambda s: s.strip())
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)


@pytest.mark.heavy
@settings(max_examples=25, deadline=None)
@given(namespace=st.lists(label, min_size=1, max_size=3).map(tuple).filter(lambda n: n[0] != "langgraph"),
       key=st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20),
       value=st.dictionaries(st.text(max_size=8), json_values, max_size=4))
def test_any_json_value_namespace_and_key_round_trip(minilm, namespace, key, value):
    memory = AgentMemory(SQLiteStore(":memory:"), minilm, clock=Clock())
    store = CbMemoryStore(memory)
    try:
        store.put(namespace, key, value)
        item = store.get(namespace, key)
        assert (item.namespace, item.key, item.value) == (namespace, key, value)
        assert [(i.namespace, i.key) for i in store.search(namespace[:1])] == [(namespace, key)]
        assert store.list_namespaces() == [namespace]
    finally:
        memory.close()
