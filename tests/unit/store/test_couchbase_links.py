"""Unit layer (store.couchbase): links between records (``MemoryRecord.supersedes``) in the Couchbase store,
against the in-process fake of the SDK (tests/support/couchbase_fake.py: KV is a dict, SQL++ answers are
scripted). Checked: the document carries the links and reads them back, a changed link rewrites the document,
``superseding`` sends one user's SQL++ and keeps only the asked ids, erasures send the statement that drops the
links to what they erased. The backend itself: tests/integration/couchbase/test_live_contract.py."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import numpy as np

from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q

T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _records(user, session, texts):
    msgs = validate_messages([{"role": "user", "content": t} for t in texts])
    return Session(user, session, T0), build_records(user, session, msgs, T0, NOW)


def _queries(state):
    return [(c[1], c[2]["named_parameters"]) for c in state.calls if c[0] == "query"]


def test_the_document_carries_the_links_and_a_changed_link_rewrites_it(store, state):
    sess, [old, new] = _records("u1", "s1", ["I live in Paris", "I moved to Porto"])
    new = replace(new, supersedes=(old.record_id,))
    res = store.write([sess], [old, new], np.ones((2, 4)) / 2)
    assert res.inserted == 2
    body = state.docs["team_a.memory"][d.record_key(new.record_id)]
    assert body["supersedes"] == [old.record_id]
    assert d.body_to_record(body).supersedes == (old.record_id,)
    assert "supersedes" in d.RECORD_FIELDS  # listings read the links back
    res = store.write([sess], [old, new], np.ones((2, 4)) / 2)
    assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 2)
    res = store.write([sess], [old, replace(new, supersedes=())], np.ones((2, 4)) / 2)
    assert (res.inserted, res.replaced, res.unchanged) == (0, 1, 1)


def test_a_document_written_before_links_reads_as_linking_nothing(store, state):
    sess, [rec] = _records("u1", "s1", ["I live in Paris"])
    body = d.record_body(rec, np.ones(4) / 2)
    del body["supersedes"]
    assert d.body_to_record(body).supersedes == ()


def test_superseding_asks_for_one_users_links_and_keeps_the_asked_ids(store, state):
    state.query_answer = lambda sql, o: [{"record_id": "porto", "supersedes": ["paris", "other"]},
                                         {"record_id": "lisbon", "supersedes": ["porto"]}, "junk"]
    got = store.superseding("u1", ["paris", "porto"], now=NOW)
    assert got == {"paris": ("porto",), "porto": ("lisbon",)}
    [(sql, params)] = _queries(state)
    assert sql == q.superseding("memory", "u1", ["paris", "porto"], NOW).sql
    assert params["user_id"] == "u1" and params["ids"] == ["paris", "porto"]
    assert "ANY x IN m.`supersedes` SATISFIES x IN $ids END" in sql
    state.calls.clear()
    assert store.superseding("u1", [], now=NOW) == {} and _queries(state) == []


def test_forgetting_a_session_drops_the_links_to_its_records(store, state):
    state.query_answer = lambda sql, o: ([{"record_id": "paris", "kind": "turn"}] if "`kind` FROM" in sql
                                         else ["k1"] if "`memory`" in sql and "DELETE" in sql else [])
    store.forget("u1", "s1")
    sqls = _queries(state)
    assert (q.unlink("memory", "u1", ["paris"]).sql, {"user_id": "u1", "ids": ["paris"]}) in sqls
    assert "ARRAY x FOR x IN m.`supersedes` WHEN x NOT IN $ids END" in q.unlink("memory", "u1", []).sql


def test_purging_drops_the_links_to_the_purged_records_per_user(store, state):
    purged = [{"key": "k1", "user_id": "u1", "record_id": "a"}, {"key": "k2", "user_id": "u2", "record_id": "b"}]
    state.query_answer = lambda sql, o: purged if "`expires_ts` <=" in sql else []
    assert store.purge_expired(NOW) == 2
    sqls = _queries(state)
    assert (q.unlink("memory", "u1", ["a"]).sql, {"user_id": "u1", "ids": ["a"]}) in sqls
    assert (q.unlink("memory", "u2", ["b"]).sql, {"user_id": "u2", "ids": ["b"]}) in sqls
    assert "`record_id`" in q.purge_expired("memory", NOW).sql


def test_the_links_have_a_secondary_index():
    made = [s.sql for s in q.secondary_indexes("memory", "sessions")]
    assert any("cbm_memory_supersedes" in s and "ALL ARRAY x FOR x IN `supersedes` END" in s for s in made)
