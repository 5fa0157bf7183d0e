"""Unit layer: the in-memory extraction cache is per user (another user's identical input is a miss, so the
cache's speed tells no tenant what another one wrote) and ``forget`` removes one user's entries and failures,
or one session's, and nothing of anyone else's; ``Enricher.forget`` delegates to its cache (the SQLite
cache: tests/integration/ingest/test_enrich_cache.py)."""

from cbmemory.ingest.enrich import Enricher
from cbmemory.ingest.enrich.cache import Failure, MemoryCache
from cbmemory.ingest.enrich.extraction import input_hash
from tests.support.enrich_llm import EVENTS_REPLY, events_spec, make_scripted_chat, quick_runner


def failure(user: str, session: str, raw: str = "raw reply") -> Failure:
    return Failure("events", user, session, "malformed reply", "h-" + user + session, "enrich-v1", ("D1:1",), raw, 2,
                   "2023-05-07T00:00:00+00:00")


def test_another_users_identical_input_is_a_miss():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    cache = MemoryCache()
    r = quick_runner(llm, cache=cache)
    assert r.run([events_spec(user="alice")])[0].status == "ok"
    assert r.run([events_spec(user="alice", session="s2")])[0].status == "cached"  # the same user: a hit
    [bob] = r.run([events_spec(user="bob")])
    assert bob.status == "ok" and llm.calls == 2  # the same prompt for bob costs a call: no timing signal
    key = input_hash(r.model, "events", events_spec().messages)
    assert cache.get("carol", "enrich-v1", key) is None and cache.get("bob", "enrich-v1", key) is not None
    assert r.cached(events_spec(user="carol")) is None and len(cache) == 2


def test_forget_removes_one_users_entries_and_failures_only():
    cache = MemoryCache()
    for user, session in (("alice", "s1"), ("alice", "s2"), ("bob", "s1")):
        cache.put(user, session, "enrich-v1", f"k-{session}", "summary", f"{user} {session} summary", "raw")
        cache.record_failure(failure(user, session))
    assert cache.forget("alice", "s1") == 2  # one entry, one failure
    assert cache.get("alice", "enrich-v1", "k-s1") is None
    assert cache.get("alice", "enrich-v1", "k-s2") == "alice s2 summary"
    assert [(f.user_id, f.session_id) for f in cache.failures()] == [("alice", "s2"), ("bob", "s1")]
    assert cache.forget("alice") == 2 and cache.forget("alice") == 0
    assert cache.get("alice", "enrich-v1", "k-s2") is None and cache.failures("alice") == []
    assert cache.get("bob", "enrich-v1", "k-s1") == "bob s1 summary" and len(cache) == 1
    assert cache.failures() == cache.failures("bob") == [failure("bob", "s1")]


def test_the_enricher_forgets_through_its_cache():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    enricher = Enricher(llm, cache=MemoryCache(), sleep=lambda s: None)
    enricher.runner.run([events_spec(user="alice"), events_spec(user="bob")])
    enricher.cache.record_failure(failure("alice", "s1"))
    assert enricher.forget("alice", "s2") == 0  # another session: nothing of it cached
    assert enricher.forget("alice") == 2 and enricher.failures() == []
    assert enricher.runner.cached(events_spec(user="alice")) is None
    assert enricher.runner.cached(events_spec(user="bob")) is not None
