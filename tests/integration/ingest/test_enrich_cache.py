"""Integration layer (a real SQLite file): the LLM runner's SQLite cache persists across runners, is keyed
by model and by user as well as by prompt version and input, and ``forget`` leaves nothing of a user's
extractions or raw replies in the file's bytes; a cache file of the old format is recreated."""

import json
import sqlite3

import pytest

from cbmemory.ingest.enrich.cache import CACHE_SCHEMA_VERSION, Failure, SQLiteCache
from tests.support.enrich_llm import (
    EVENTS_REPLY,
    events_spec,
    file_bytes,
    make_scripted_chat,
    quick_runner,
)


def test_sqlite_cache_persists_across_runners_and_keys_by_model(tmp_path):
    path = tmp_path / "cache.db"
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    quick_runner(llm, cache=SQLiteCache(path)).run([events_spec()])
    fresh = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    [out] = quick_runner(fresh, cache=SQLiteCache(path)).run([events_spec()])
    assert out.status == "cached" and fresh.calls == 0 and out.value[0].what == "Mel ran a 5k"
    other = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY, name="another-model")
    assert quick_runner(other, cache=SQLiteCache(path)).run([events_spec()])[0].status == "ok"
    assert len(SQLiteCache(path)) == 2


def test_sqlite_cache_is_per_user_across_runners(tmp_path):
    path = tmp_path / "cache.db"
    quick_runner(make_scripted_chat(lambda m, kw, n: EVENTS_REPLY), cache=SQLiteCache(path)).run(
        [events_spec(user="alice")])
    fresh = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    runner = quick_runner(fresh, cache=SQLiteCache(path))
    assert runner.run([events_spec(user="bob")])[0].status == "ok" and fresh.calls == 1  # bob: a miss
    assert runner.run([events_spec(user="alice", session="s9")])[0].status == "cached" and fresh.calls == 1
    rows = sqlite3.connect(path).execute("SELECT user_id, session_id FROM llm_cache ORDER BY user_id").fetchall()
    assert rows == [("alice", "s1"), ("bob", "s1")]


def reply_for(messages, kw, n):
    """An extraction naming the token of the line shown: each user's content is told apart in the bytes."""
    token = messages[-1][1].rsplit("named ", 1)[1].split(".")[0]
    return json.dumps({"events": [{"who": "Mel", "what": f"Mel adopted a cat named {token}", "turns": ["T1"]}]})


@pytest.mark.heavy
def test_forget_leaves_none_of_a_users_extractions_in_the_cache_files_bytes(tmp_path):
    path = tmp_path / "cache.db"
    cache = SQLiteCache(path)
    runner = quick_runner(make_scripted_chat(reply_for), cache=cache, max_concurrency=1, calls_per_session=10_000)
    specs = [events_spec(f"I adopted a cat named {name}{i:03d}.", session=session, user=user)
             for i in range(150) for user, name, session in (("alice", "Quetzalwobble", f"s{i % 2}"),
                                                              ("bob", "Zanzibarnacle", "s1"))]
    assert {o.status for o in runner.run(specs)} == {"ok"}
    cache.put("alice", "s1", "enrich-v1", "k-summary", "summary", "Alice's summary: Plumtrombone", "raw Fizzlewick")
    cache.put("bob", "s1", "enrich-v1", "k-summary", "summary", "Bob's summary: Gravelharp", "raw Mooncrumble")
    for user, raw in (("alice", "not JSON: Snorkelbramble"), ("bob", "not JSON: Tidewhistle")):
        cache.record_failure(Failure("events", user, "s1", "malformed reply", "h", "enrich-v1", ("D1:1",), raw, 2))
    alice = [b"Quetzalwobble", b"Plumtrombone", b"Fizzlewick", b"Snorkelbramble"]
    bob = [b"Zanzibarnacle", b"Gravelharp", b"Mooncrumble", b"Tidewhistle"]
    before = file_bytes(path)
    assert all(t in before for t in alice + bob)  # the check below can see them

    assert cache.forget("alice", "s0") == 75  # one session: alice's other session stays
    assert runner.cached(specs[0]) is None and runner.cached(specs[2]) is not None
    assert cache.forget("alice") == 75 + 1 + 1
    after = file_bytes(path)
    assert [t for t in alice if t in after] == []
    assert all(t in after for t in bob)
    assert not path.with_name(path.name + "-wal").exists() or path.with_name(path.name + "-wal").stat().st_size == 0
    reopened = SQLiteCache(path)  # what stays is intact, from another connection too
    assert len(reopened) == 151 and reopened.get("bob", "enrich-v1", "k-summary") == "Bob's summary: Gravelharp"
    assert reopened.get("alice", "enrich-v1", "k-summary") is None
    assert [f.user_id for f in reopened.failures()] == ["bob"] and reopened.failures("alice") == []
    assert runner.cached(specs[1]) is not None
    cache.close()
    reopened.close()
    assert [t for t in alice if t in file_bytes(path)] == []


OLD_SCHEMA = (  # the cache file before it was keyed by user (no schema version)
    """CREATE TABLE llm_cache (
        prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL, task TEXT NOT NULL,
        value TEXT NOT NULL, raw TEXT NOT NULL, created_at TEXT NOT NULL,
        PRIMARY KEY (prompt_version, input_hash))""",
    """CREATE TABLE llm_failures (
        id INTEGER PRIMARY KEY, at TEXT NOT NULL, prompt_version TEXT NOT NULL, input_hash TEXT NOT NULL,
        task TEXT NOT NULL, user_id TEXT NOT NULL, session_id TEXT NOT NULL, source_ids TEXT NOT NULL,
        error TEXT NOT NULL, raw TEXT NOT NULL, attempts INTEGER NOT NULL)""",
)


def test_an_old_format_cache_file_is_recreated_without_its_rows(tmp_path):
    path = tmp_path / "cache.db"
    old = sqlite3.connect(path)
    for stmt in OLD_SCHEMA:
        old.execute(stmt)
    old.execute("INSERT INTO llm_cache VALUES ('enrich-v1', 'k', 'summary', '\"Oldsummaryquince\"', 'Oldrawquince', 'x')")
    old.execute("INSERT INTO llm_failures VALUES (1, 'x', 'enrich-v1', 'k', 'events', 'u', 's1', '[]', 'e', "
                "'Oldfailurequince', 1)")
    old.commit()
    old.close()
    assert b"Oldsummaryquince" in file_bytes(path)
    cache = SQLiteCache(path)
    assert len(cache) == 0 and cache.failures() == [] and cache.get("u", "enrich-v1", "k") is None
    cache.put("u", "s1", "enrich-v1", "k", "summary", "new", "raw")
    assert cache.get("u", "enrich-v1", "k") == "new"
    cache.close()
    assert b"quince" not in file_bytes(path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == CACHE_SCHEMA_VERSION
    assert SQLiteCache(path).get("u", "enrich-v1", "k") == "new"  # the current format is kept
