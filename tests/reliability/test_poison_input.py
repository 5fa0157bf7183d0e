"""Reliability layer (the facade and its adapters): poison records. Every bad input is refused with a typed,
clear error before anything is written, and nothing is stored that cannot be read back.

Each test runs on a real SQLite file in ``tmp_path``; the ``scripted`` embedder (tests/conftest.py) is used
wherever the embeddings do not matter. The pure checks of the same catalogue are unit tests: dates in
tests/unit/dates/test_instants.py, ``SearchFilters`` in tests/unit/test_models.py, Couchbase documents in
tests/unit/store/test_couchbase_docs.py and through the fake cluster in
tests/unit/store/test_couchbase_poison_docs.py.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, SearchFilters
from cbmemory.dates import MAX_INSTANT, MIN_INSTANT, to_utc
from cbmemory.errors import InvalidDateError, InvalidInputError

OK = [{"role": "user", "content": "I adopted a puppy called Biscuit."}]
LONE = "\ud800"
NEVER = ["9999-12-31T23:59:59.999999", datetime.max, date.max, "9999-12-31", "0001-01-01T00:00:00",
         datetime.min]


@pytest.fixture
def mem(tmp_path, scripted):
    m = AgentMemory.open(tmp_path / "poison.db", embedder=scripted())
    yield m
    m.close()


def assert_empty(m: AgentMemory, user: str = "alice") -> None:
    assert m.store.count(user) == 0 and m.sessions(user) == []


# ------------------------------------------------------------------ 1. instants a float epoch cannot carry
@pytest.mark.parametrize("when", NEVER, ids=str)
def test_expires_at_out_of_range_is_refused_and_points_to_none(mem, when):
    with pytest.raises(InvalidDateError, match="expires_at.*None"):
        mem.add_session("alice", "s1", OK, "2023-05-07", expires_at=when)
    assert_empty(mem)
    with pytest.raises(InvalidDateError, match="None"):
        mem.add_messages("alice", "s1", OK, expires_at=when)
    assert_empty(mem)


@pytest.mark.parametrize("when", NEVER, ids=str)
def test_session_date_out_of_range_is_refused(mem, when):
    with pytest.raises(InvalidDateError, match="supported range"):
        mem.add_session("alice", "s1", OK, when)
    with pytest.raises(InvalidDateError, match="supported range"):
        mem.add_messages("alice", "s1", OK, date=when)
    assert_empty(mem)


def test_the_bounds_are_accepted_and_read_back(mem):
    assert to_utc(MIN_INSTANT) == MIN_INSTANT and to_utc(MAX_INSTANT) == MAX_INSTANT
    mem.add_session("alice", "first", OK, MIN_INSTANT)
    mem.add_session("alice", "last", OK, MAX_INSTANT, expires_at=MAX_INSTANT)
    got = {r.session_id: r for r in mem.session_records("alice")}
    assert got["first"].occurred_at.year == 1 and got["last"].occurred_at.year == 9999
    assert got["last"].expires_at is not None and got["last"].expires_at.year == 9999
    assert len(mem.search("puppy", "alice")) == 2 and mem.context("puppy", "alice").text
    mem.add_messages("alice", "last", [{"role": "user", "content": "Biscuit is two now."}])
    assert len(mem.session_records("alice", "last")) == 2


# ------------------------------------------------------------------ 2. ttl
@pytest.mark.parametrize("ttl, error", [
    (30, "timedelta\\(days=30\\)"), (30.0, "timedelta"), ("30", "timedelta"), (True, "timedelta"),
    (timedelta(0), "positive"), (timedelta(seconds=-1), "positive"),
    (timedelta.max, "never expire"), (timedelta(days=3_000_000), "never expire"),
], ids=str)
def test_bad_ttl_is_refused_and_nothing_stored(mem, ttl, error):
    with pytest.raises(InvalidInputError, match=error):
        mem.add_session("alice", "s1", OK, "2023-05-07", ttl=ttl)
    with pytest.raises(InvalidInputError, match=error):
        mem.add_messages("alice", "s1", OK, ttl=ttl)
    assert_empty(mem)


@pytest.mark.parametrize("ttl", [30, timedelta(0), timedelta.max], ids=str)
def test_bad_default_ttl_is_refused_when_the_memory_is_built(tmp_path, scripted, ttl):
    m = AgentMemory.open(tmp_path / "ttl.db", embedder=scripted())
    with pytest.raises(InvalidInputError, match="default_ttl"):
        AgentMemory(m.store, m.embedder, default_ttl=ttl)
    assert_empty(m)
    m.close()


# ------------------------------------------------------------------ 3. search filters
def test_filter_times_accept_strings_and_dates_and_become_aware_utc(mem):
    f = SearchFilters(occurred_after="2023-06-01", occurred_before=date(2023, 7, 1),
                      ingested_after=datetime(2023, 1, 1), ingested_before="2030-01-01T02:00:00+02:00")
    assert f.occurred_after == datetime(2023, 6, 1, tzinfo=timezone.utc)
    assert f.occurred_before == datetime(2023, 7, 1, tzinfo=timezone.utc)
    assert f.ingested_after == datetime(2023, 1, 1, tzinfo=timezone.utc)
    assert f.ingested_before == datetime(2030, 1, 1, tzinfo=timezone.utc)
    mem.add_session("alice", "may", OK, "2023-05-07")
    mem.add_session("alice", "june", OK, "2023-06-07")
    hits = mem.search("puppy", "alice", filters=SearchFilters(occurred_after="2023-06-01"))
    assert [h.record.session_id for h in hits] == ["june"]


# ------------------------------------------------------------------ 7. lone surrogates
SURROGATE_CASES = [
    ("user id", dict(user_id=f"al{LONE}ice")),
    ("session id", dict(session_id=LONE)),
    ("text", dict(messages=[{"role": "user", "content": f"hello {LONE}"}])),
    ("low surrogate text", dict(messages=[{"role": "user", "content": "hello \udc80"}])),
    ("speaker", dict(messages=[{"role": "user", "content": "x", "speaker": f"A{LONE}"}])),
    ("turn id", dict(messages=[{"role": "user", "content": "x", "turn_id": LONE}])),
    ("message annotation key", dict(messages=[{"role": "user", "content": "x", "annotations": {LONE: "v"}}])),
    ("message annotation value", dict(messages=[{"role": "user", "content": "x",
                                                 "annotations": {"k": LONE}}])),
    ("session annotation key", dict(annotations={LONE: "v"})),
    ("session annotation value", dict(annotations={"k": f"v{LONE}"})),
]


@pytest.mark.parametrize("name, change", SURROGATE_CASES, ids=[c[0] for c in SURROGATE_CASES])
def test_lone_surrogates_are_refused_on_every_write(mem, name, change):
    args = {"user_id": "alice", "session_id": "s1", "messages": OK, **change}
    with pytest.raises(InvalidInputError, match="surrogate"):
        mem.add_session(args["user_id"], args["session_id"], args["messages"], "2023-05-07",
                        annotations=args.get("annotations"))
    if "annotations" not in change:
        with pytest.raises(InvalidInputError, match="surrogate"):
            mem.add_messages(args["user_id"], args["session_id"], args["messages"])
    assert mem.store.count() == 0 and mem.store.users() == []


def test_lone_surrogates_are_refused_in_queries_and_reads(mem):
    mem.add_session("alice", "s1", OK, "2023-05-07")
    for call in (lambda: mem.search(f"puppy {LONE}", "alice"), lambda: mem.context(LONE, "alice"),
                 lambda: mem.search("puppy", LONE), lambda: mem.session_records("alice", LONE),
                 lambda: mem.forget(LONE), lambda: mem.sessions(LONE)):
        with pytest.raises(InvalidInputError, match="surrogate"):
            call()
    assert mem.store.count("alice") == 1
    assert [s.session_id for s in mem.sessions("alice")] == ["s1"]


def test_valid_astral_characters_still_pass(mem):
    mem.add_session("alice", "s1", [{"role": "user", "content": "party 🎉 \U0001f600", "speaker": "🎉"}],
                    "2023-05-07", annotations={"emoji": "👩‍👩‍👧"})
    assert mem.session_records("alice")[0].text == "party 🎉 \U0001f600"
    assert mem.search("party 🎉", "alice")


# ------------------------------------------------------------------ 5. LangGraph store ttl (minutes)
@pytest.mark.parametrize("ttl", [float("inf"), float("nan"), -1.0, 0, 1e300, "10", True], ids=str)
def test_langgraph_store_refuses_bad_ttl_minutes(mem, ttl):
    store_mod = pytest.importorskip("langchain_cbmemory.store")
    store = store_mod.CbMemoryStore(mem)
    with pytest.raises(InvalidInputError, match="ttl"):
        store.put(("memories", "alice"), "pet", {"content": "Biscuit"}, ttl=ttl)
    assert_empty(mem)


@pytest.mark.parametrize("ttl", [float("inf"), float("nan"), 0.0, -5.0, "1"], ids=str)
def test_langgraph_store_refuses_a_bad_default_ttl(mem, ttl):
    store_mod = pytest.importorskip("langchain_cbmemory.store")
    with pytest.raises(InvalidInputError, match="default_ttl"):
        store_mod.CbMemoryStore(mem, ttl={"default_ttl": ttl})


@pytest.mark.parametrize("namespace, key", [(("memories", "alice"), f"k{LONE}"), (("memories", LONE), "k"),
                                            (("memories", "alice", LONE), "k")], ids=["key", "user", "label"])
def test_langgraph_store_refuses_lone_surrogates_in_namespaces_and_keys(mem, namespace, key):
    store_mod = pytest.importorskip("langchain_cbmemory.store")
    store = store_mod.CbMemoryStore(mem)
    with pytest.raises(InvalidInputError, match="surrogate"):
        store.put(namespace, key, {"content": "Biscuit"})
    with pytest.raises(InvalidInputError, match="surrogate"):
        store.get(namespace, key)
    with pytest.raises(InvalidInputError, match="surrogate"):
        store.put(("memories", "alice"), "pet", {"content": f"Biscuit {LONE}"})
    assert mem.store.count() == 0 and mem.store.users() == []


def test_langgraph_store_a_good_ttl_still_works(mem):
    store_mod = pytest.importorskip("langchain_cbmemory.store")
    store = store_mod.CbMemoryStore(mem, ttl={"default_ttl": 1.5})
    store.put(("memories", "alice"), "pet", {"content": "Biscuit"})
    assert store.get(("memories", "alice"), "pet").value == {"content": "Biscuit"}


# ------------------------------------------------------------------ 6. LlamaIndex chat memory session date
@pytest.mark.parametrize("when", [datetime.max, "9999-12-31T23:59:59", "not a date"], ids=str)
def test_llamaindex_session_date_is_checked_when_built_and_when_set(mem, when):
    chat_mod = pytest.importorskip("llamaindex_cbmemory.chat_memory")
    with pytest.raises(InvalidDateError):
        chat_mod.CbMemoryChatMemory(memory=mem, user_id="alice", session_id="s1", session_date=when)
    chat = chat_mod.CbMemoryChatMemory(memory=mem, user_id="alice", session_id="s1",
                                       session_date="2023-05-07")
    with pytest.raises(InvalidDateError):
        chat.session_date = when
    assert chat.session_date == datetime(2023, 5, 7, tzinfo=timezone.utc)
    chat.session_date = "2023-05-08"
    assert chat.session_date == datetime(2023, 5, 8, tzinfo=timezone.utc)
    assert_empty(mem)

