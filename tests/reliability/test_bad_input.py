"""Reliability layer (hostile input through the facade, on a real SQLite file): a catalogue of bad input. Each
case raises a typed, clear error and stores nothing."""

from datetime import timedelta

import pytest

from cbmemory import AgentMemory, InvalidInputError, SearchFilters
from cbmemory.errors import CbMemoryError, InvalidDateError, InvalidVectorError
from cbmemory.validation import MAX_ID_CHARS, MAX_TEXT_CHARS

OK = [{"role": "user", "content": "fine"}]

CASES = [
    ("empty text", dict(messages=[{"role": "user", "content": ""}]), InvalidInputError),
    ("whitespace text", dict(messages=[{"role": "user", "content": " \n\t "}]), InvalidInputError),
    ("text not a string", dict(messages=[{"role": "user", "content": 42}]), InvalidInputError),
    ("text too long", dict(messages=[{"role": "user", "content": "x" * (MAX_TEXT_CHARS + 1)}]), InvalidInputError),
    ("NUL in text", dict(messages=[{"role": "user", "content": "a\x00b"}]), InvalidInputError),
    ("unknown role", dict(messages=[{"role": "narrator", "content": "x"}]), InvalidInputError),
    ("missing role", dict(messages=[{"content": "x"}]), InvalidInputError),
    ("no messages", dict(messages=[]), InvalidInputError),
    ("messages is a string", dict(messages="hello"), InvalidInputError),
    ("unparseable date", dict(date="next tuesday-ish"), InvalidDateError),
    ("impossible date", dict(date="2023-02-30"), InvalidDateError),
    ("empty user id", dict(user_id=""), InvalidInputError),
    ("user id with newline", dict(user_id="alice\nbob"), InvalidInputError),
    ("user id with NUL", dict(user_id="alice\x00"), InvalidInputError),
    ("session id with escape", dict(session_id="s\x1b[31m"), InvalidInputError),
    ("user id too long", dict(user_id="u" * (MAX_ID_CHARS + 1)), InvalidInputError),
    ("user id not a string", dict(user_id=7), InvalidInputError),
    ("speaker with control char", dict(messages=[{"role": "user", "content": "x", "speaker": "a\tb"}]),
     InvalidInputError),
    ("turn id repeated", dict(messages=[{"role": "user", "content": "x", "turn_id": "1"},
                                        {"role": "user", "content": "y", "turn_id": "1"}]), InvalidInputError),
    ("annotation value not str", dict(annotations={"k": 1}), InvalidInputError),
    ("annotation key empty", dict(annotations={"": "v"}), InvalidInputError),
    ("unknown message field", dict(messages=[{"role": "user", "content": "x", "rol": "user"}]), InvalidInputError),
    ("negative ttl", dict(ttl=timedelta(seconds=-5)), InvalidInputError),
    ("second message bad", dict(messages=[{"role": "user", "content": "good"}, {"role": "user", "content": ""}]),
     InvalidInputError),
]


@pytest.mark.parametrize("name, change, error", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_refused_and_nothing_is_stored(memory, name, change, error):
    args = {"user_id": "alice", "session_id": "s1", "messages": OK, "date": "2023-05-07", **change}
    with pytest.raises(error) as info:
        memory.add_session(args.pop("user_id"), args.pop("session_id"), args.pop("messages"), args.pop("date"),
                           **args)
    assert isinstance(info.value, CbMemoryError) and str(info.value)
    assert memory.store.count() == 0 and memory.store.list_sessions("alice") == []


@pytest.mark.parametrize("broken", ["nan", "dim", "rows"])
def test_bad_vectors_from_a_custom_embedder_store_nothing(tmp_path, scripted, broken):
    m = AgentMemory.open(tmp_path / "v.db", embedder=scripted(broken=broken))
    with pytest.raises(InvalidVectorError):
        m.add_session("alice", "s1", OK + [{"role": "user", "content": "two"}], date="2023-05-07")
    assert m.store.count() == 0
    m.close()


@pytest.mark.parametrize("kwargs", [dict(k=0), dict(k=-1), dict(k=10**9), dict(k="5"), dict(user_id=""),
                                    dict(query=None), dict(query="x" * 20_000)])
def test_bad_search_arguments(memory, kwargs):
    args = {"query": "hello", "user_id": "alice", **kwargs}
    with pytest.raises(InvalidInputError):
        memory.search(args.pop("query"), args.pop("user_id"), **args)


HOSTILE = ['"', "'", "*", "NEAR", "a AND b", "OR", "NOT x", "-", ":", "col:val", "(", ")", "((a OR b)",
           "x*", "^start", "a NEAR/3 b", "'; DROP TABLE records; --", "\\", "%", "_", "$1", "`", "{}", "[]",
           "records_fts MATCH 'x'", "\u202e", "🎉", "ünïcode", "   ", "", "a" * 5000, "\t\n", "1=1", "NULL",
           '"" OR ""', "user_id:bob", "* OR *", "+", "AND AND", "text:secret"]


@pytest.mark.parametrize("query", HOSTILE)
def test_fts_syntax_in_queries_is_plain_words_and_never_leaks(memory, query):
    memory.add_session("alice", "s1", [{"role": "user", "content": "alice secret text NEAR records"}], date="2023-05-07")
    memory.add_session("bob", "s1", [{"role": "user", "content": "bob secret text"}], date="2023-05-07")
    for recipe in ("default", "bm25", "hybrid", "vector_bm25_rerank_10"):
        hits = memory.search(query, "bob", k=5, recipe=recipe)
        assert all(h.record.user_id == "bob" for h in hits)
    assert memory.store.count() == 2


def test_filter_values_are_parameters_not_sql(memory):
    memory.add_session("alice", "s1", OK, date="2023-05-07", annotations={"k": "v"})
    evil = SearchFilters(session_ids=("' OR 1=1 --",), annotations={"k' OR 1=1 --": "v"})
    assert memory.search("fine", "alice", filters=evil) == []
