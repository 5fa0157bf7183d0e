"""Unit layer (store.couchbase): CouchbaseStore's orchestration, against an in-process fake of the SDK
objects.

The fake (tests/support/couchbase_fake.py) is NOT backend coverage: it keeps KV documents in a dict and
answers SQL++ and Search with whatever each test scripts. These tests check only what the store sends and how
it uses the answers: the request objects (serialised with the SDK's own encoder), batch sizes, document
expiry, at-plus consistency, the key-by-key re-check of every hit and erasure. The real SDK (import cost, the
clear error of an unreachable cluster) is in tests/integration/couchbase/test_sdk.py, and the backend is
covered by tests/integration/couchbase/test_live_contract.py.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.errors import (
    EmbedderMismatchError,
    InvalidInputError,
    StoreUnavailableError,
    WriteConflictError,
)
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import ForgetResult, SearchFilters, Session
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q
from cbmemory.store.signals import Signal
from tests.support.couchbase_fake import FakeCluster, SearchRow

DIM = 4
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def unit(i, j=None, w=0.0):
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    if j is not None:
        v[j] = w
    return v / np.linalg.norm(v)


def records(user, session, texts, **kw):
    msgs = validate_messages([{"role": "user", "content": t, "turn_id": f"{session}:{i}"} for i, t in enumerate(texts)])
    return Session(user, session, T0), build_records(user, session, msgs, T0, NOW, **kw)


# fixtures ``state`` (a FakeState) and ``store`` (bound to an embedder only): tests/unit/store/conftest.py


def calls(state, kind):
    return [c for c in state.calls if c[0] == kind]


# ------------------------------------------------------------------ import, construction, connection


def test_construction_sends_nothing(state):
    CouchbaseStore(FakeCluster(state), "cbm")
    assert state.calls == []


def test_a_timeout_mid_operation_becomes_store_unavailable(store, state):
    from couchbase.exceptions import UnAmbiguousTimeoutException

    state.fail_with = UnAmbiguousTimeoutException("timed out")
    with pytest.raises(StoreUnavailableError, match="Couchbase did not answer"):
        store.count("u1")


def test_bad_names_are_refused_before_anything_is_sent(state):
    for kw in ({"scope": "a`b"}, {"memory_collection": "x; DROP"}, {"index_name": "9x"}):
        with pytest.raises(InvalidInputError):
            CouchbaseStore(FakeCluster(state), "cbm", **kw)
    assert state.calls == []


# ------------------------------------------------------------------ schema and embedder binding
def test_bind_creates_scope_collections_indexes_and_meta(state):
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a", index_name="mem_idx")
    store.bind_embedder("test-embedder", DIM)
    assert ("create_scope", "team_a") in state.calls
    assert {c[2] for c in calls(state, "create_collection")} == {"users", "sessions", "memory"}
    sqls = [c[1] for c in calls(state, "query")]
    assert sqls == [s.sql for s in q.secondary_indexes("memory", "sessions")]
    (upsert,) = calls(state, "upsert_index")
    index = upsert[1]
    assert index.name == "mem_idx" and index.source_name == "cbm"
    assert list(index.params["mapping"]["types"]) == ["team_a.memory"]
    assert d.index_dimension(index.params) == DIM
    probe = calls(state, "search")[-1]  # readiness is polled with a real (match-none) search
    assert probe[1] == "mem_idx" and q.search_body("mem_idx", probe[2], probe[3])["query"] == {"match_none": None}
    assert state.docs["team_a.users"][d.META_KEY] == {"schema": 1, "embedder_name": "test-embedder",
                                                      "embedder_dimension": DIM}
    assert store.bound_embedder == ("test-embedder", DIM)


def test_second_bind_is_cheap_and_mismatches_are_refused(store, state):
    store.bind_embedder("test-embedder", DIM)
    assert not calls(state, "upsert_index") and not calls(state, "create_scope")
    with pytest.raises(EmbedderMismatchError):
        store.bind_embedder("other-embedder", DIM)
    with pytest.raises(EmbedderMismatchError):
        store.bind_embedder("test-embedder", DIM + 1)


def test_existing_index_of_another_dimension_is_refused(state):
    CouchbaseStore(FakeCluster(state), "cbm").bind_embedder("e", DIM)
    del state.docs["agentmemory.users"][d.META_KEY]  # a fresh binding, but the index is 4-dimensional
    with pytest.raises(EmbedderMismatchError, match="4-dimensional"):
        CouchbaseStore(FakeCluster(state), "cbm").bind_embedder("e", 8)


def test_unbound_store_refuses_writes_and_returns_no_vector_hits(state):
    store = CouchbaseStore(FakeCluster(state), "cbm")
    sess, recs = records("u1", "s1", ["x"])
    with pytest.raises(InvalidInputError, match="bind an embedder"):
        store.write([sess], recs, np.stack([unit(0)]))
    assert store.search(Signal.VECTOR, "u1", unit(0), 3) == []


# ------------------------------------------------------------------ writes
def test_write_batches_upserts_and_is_idempotent(store, state):
    sess, recs = records("u1", "s1", [f"turn {i}" for i in range(1201)])
    vecs = np.stack([unit(i % DIM) for i in range(1201)])
    res = store.write([sess], recs, vecs)
    assert (res.inserted, res.replaced, res.unchanged) == (1201, 0, 0)
    memory_batches = [c for c in calls(state, "upsert_multi") if c[1] == "memory"]
    assert [len(c[2]) for c in memory_batches] == [500, 500, 201]
    assert [len(c[2]) for c in calls(state, "get_multi")] == [500, 500, 201]  # read-before-write, batched
    assert state.docs["team_a.sessions"][d.session_key("u1", "s1")]["occurred_at"] == "2023-05-07T13:56:00.000000Z"
    assert d.user_key("u1") in state.docs["team_a.users"]
    body = state.docs["team_a.memory"][recs[7].record_id]
    assert body == d.record_body(recs[7], vecs[7])

    state.calls.clear()
    res = store.write([sess], recs, vecs)
    assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 1201)
    assert not [c for c in calls(state, "upsert_multi") if c[1] == "memory"]


def test_changed_content_replaces_the_same_document(store, state):
    sess, recs = records("u1", "s1", ["alpha", "gamma"])
    store.write([sess], recs, np.stack([unit(0), unit(1)]))
    sess, recs2 = records("u1", "s1", ["alpha", "delta"])
    res = store.write([sess], recs2, np.stack([unit(0), unit(2)]))
    assert (res.inserted, res.replaced, res.unchanged) == (0, 1, 1)
    assert recs2[1].record_id == recs[1].record_id
    assert state.docs["team_a.memory"][recs[1].record_id]["text"] == "delta"


def test_ttl_is_sent_as_document_expiry(store, state):
    soon = datetime.now(timezone.utc) + timedelta(hours=2)
    sess, live = records("u1", "s1", ["expiring"], expires_at=soon)
    _, past = records("u1", "s2", ["already expired"], expires_at=NOW)
    _, durable = records("u1", "s3", ["durable"])
    store.write([sess], live + past + durable, np.stack([unit(0), unit(1), unit(2)]))
    (batch,) = [c for c in calls(state, "upsert_multi") if c[1] == "memory"]
    per_key = batch[3]["per_key_options"]
    assert set(per_key) == {live[0].record_id}  # no expiry for durable and already-expired records
    expiry = per_key[live[0].record_id]["expiry"]
    assert timedelta(hours=2) - timedelta(seconds=5) <= expiry <= timedelta(hours=2, seconds=1)
    assert state.docs["team_a.memory"][past[0].record_id]["has_expiry"] is True  # hidden by reads, purgeable


def test_wrong_vector_shape_sends_nothing(store, state):
    sess, recs = records("u1", "s1", ["one", "two"])
    with pytest.raises(InvalidInputError):
        store.write([sess], recs, np.stack([unit(0)]))
    assert state.calls == []


# ------------------------------------------------------------------ searches
@pytest.fixture
def corpus(store, state):
    sess, recs = records("u1", "s1", ["a", "b", "c"])
    store.write([sess], recs, np.stack([unit(0), unit(0, 1, 1.0), unit(1)]))
    sess2, other = records("u2", "s1", ["other user's exact match"])
    store.write([sess2], other, np.stack([unit(0)]))
    state.calls.clear()
    return recs, other


def test_vector_search_sends_one_prefiltered_knn_request_and_rescores_exactly(store, state, corpus):
    recs, other = corpus
    gone = "f" * 32  # a hit the index still has but whose document was erased
    state.search_answer = lambda i, r, o: [SearchRow(other[0].record_id, 0.99), SearchRow(recs[2].record_id, 0.1),
                                           SearchRow(gone, 0.9), SearchRow(recs[0].record_id, 0.98),
                                           SearchRow(recs[1].record_id, 0.7)]
    hits = store.search(Signal.VECTOR, "u1", unit(0), 3, now=NOW)
    (search,) = calls(state, "search")
    got = q.search_body(search[1], search[2], search[3])
    assert search[1] == "cbmemory_memory"
    assert got["knn"][0]["k"] == 6 and got["size"] == 6  # k * candidates_per_k, explicit
    assert got["knn"][0]["filter"]["conjuncts"][0] == {"field": "user_id", "term": "u1"}
    assert got["ctl"]["consistency"]["level"] == "at_plus"  # waits for this store's own writes
    assert [h.record.text for h in hits] == ["a", "b", "c"]  # u2's record and the erased one dropped
    assert [h.score for h in hits] == pytest.approx([1.0, 2 ** -0.5, 0.0], abs=1e-6)  # exact cosine
    assert hits[1].signals == {"vector": hits[1].score} and hits[1].ranks == {"vector": 2}


def test_consistency_tokens_keep_the_newest_per_partition(store, state, corpus):
    store.search(Signal.VECTOR, "u1", unit(0), 1, now=NOW)
    search = calls(state, "search")[0]
    vectors = q.search_body(search[1], search[2], search[3])["ctl"]["consistency"]["vectors"]["cbmemory_memory"]
    assert len(vectors) <= 4 and max(vectors.values()) == state.last_seq["memory"]  # memory writes only


def test_not_bounded_consistency_sends_no_scan_vectors(state):
    store = CouchbaseStore(FakeCluster(state), "cbm", consistency="not_bounded")
    store.bind_embedder("e", DIM)
    sess, recs = records("u1", "s1", ["a"])
    store.write([sess], recs, np.stack([unit(0)]))
    store.search(Signal.VECTOR, "u1", unit(0), 1, now=NOW)
    search = calls(state, "search")[-1]
    assert "ctl" not in q.search_body(search[1], search[2], search[3])


def test_expired_and_filtered_out_documents_are_dropped_even_if_the_index_returns_them(store, state):
    soon = NOW + timedelta(hours=1)
    sess, recs = records("u1", "s1", ["short lived", "durable"], expires_at=None)
    _, short = records("u1", "s2", ["short lived note"], expires_at=soon)
    store.write([sess], recs + short, np.stack([unit(0), unit(1), unit(2)]))
    state.search_answer = lambda i, r, o: [SearchRow(x.record_id, 1.0) for x in recs + short]
    later = NOW + timedelta(hours=2)
    assert [h.record.text for h in store.search(Signal.BM25, "u1", "note", 5, now=later)] == ["short lived", "durable"]
    only_s2 = store.search(Signal.BM25, "u1", "note", 5, SearchFilters(session_ids=("s2",)), now=NOW)
    assert [h.record.text for h in only_s2] == ["short lived note"]


def test_text_and_phrase_requests(store, state, corpus):
    recs, _ = corpus
    state.search_answer = lambda i, r, o: [SearchRow(recs[1].record_id, 2.5), SearchRow(recs[0].record_id, 1.5)]
    hits = store.search(Signal.BM25, "u1", "puppy named Biscuit", 2, now=NOW)
    search = calls(state, "search")[-1]
    assert q.search_body(search[1], search[2], search[3])["query"]["conjuncts"][-1] == {"min": 1, "disjuncts": [
        {"min": 1, "disjuncts": [{"field": f, "match": w, "operator": "or", "boost": 1.0}
                                 for f in ("index_text", "text")]} for w in ("puppy", "named", "biscuit")]}
    # index-wide server scores are never handed out as such: relative to the call's best hit
    assert [(h.record.text, h.score, dict(h.signals)) for h in hits] == [("b", 1.0, {"bm25": 1.0}),
                                                                      ("a", 0.6, {"bm25": 0.6})]
    hits = store.search(Signal.ENTITY, "u1", ["Biscuit"], 2, now=NOW)
    search = calls(state, "search")[-1]
    assert q.search_body(search[1], search[2], search[3])["query"]["conjuncts"][-1] == {"min": 1, "disjuncts": [
        {"field": f, "match_phrase": "Biscuit", "boost": 1.0} for f in ("index_text", "text")]}
    assert hits[0].signals.keys() == {"entity"}


def test_nothing_to_search_sends_no_request(store, state, corpus):
    assert store.search(Signal.BM25, "u1", "?!", 5, now=NOW) == []
    assert store.search(Signal.ENTITY, "u1", ["", "..."], 5, now=NOW) == []
    assert store.search(Signal.VECTOR, "u1", unit(0), 5, SearchFilters(session_ids=()), now=NOW) == []
    assert calls(state, "search") == []


# ------------------------------------------------------------------ SQL++ paths
def test_listing_uses_sql_with_named_parameters_at_request_plus(store, state, corpus):
    recs, _ = corpus
    state.query_answer = lambda sql, o: [{f: d.record_body(r, unit(0))[f] for f in d.RECORD_FIELDS} for r in recs]
    got = store.list_records("u1", SearchFilters(occurred_after=T0), limit=2, now=NOW)
    (query,) = calls(state, "query")
    expected = q.list_records("memory", "u1", SearchFilters(occurred_after=T0), NOW, limit=2)
    assert query[1] == expected.sql
    assert query[2]["named_parameters"] == dict(expected.params)
    assert query[2]["scan_consistency"].value == "request_plus"
    assert got == recs


def test_forget_erases_with_sql_and_removes_the_user(store, state, corpus):
    state.query_answer = lambda sql, o: ["k1", "k2", "k3"] if "`memory`" in sql else ["s"]
    assert store.forget("u1") == ForgetResult(records=3, sessions=1, wiped=True)  # counts of RETURNING rows
    sqls = [(c[1], c[2]["named_parameters"]) for c in calls(state, "query")]
    assert sqls == [(q.erase_records("memory", "u1").sql, {"user_id": "u1"}),
                    (q.erase_sessions("sessions", "u1").sql, {"user_id": "u1"})]
    assert d.user_key("u1") not in state.docs["team_a.users"]


def test_session_forget_removes_the_user_only_when_no_record_is_left(store, state, corpus):
    left = {"u2": ["u2"]}  # what users_with_records answers
    state.query_answer = lambda sql, o: (left["u2"] if "DISTINCT" in sql
                                         else ["k1"] if "`memory`" in sql else ["s"])
    assert store.forget("u2", "s1") == ForgetResult(records=1, sessions=1, wiped=True)
    sqls = [(c[1], c[2]["named_parameters"]) for c in calls(state, "query")]
    assert sqls == [(q.session_records("memory", "u2", "s1").sql, {"user_id": "u2", "session_id": "s1"}),
                    (q.erase_records("memory", "u2", "s1").sql, {"user_id": "u2", "session_id": "s1"}),
                    (q.erase_sessions("sessions", "u2", "s1").sql, {"user_id": "u2", "session_id": "s1"}),
                    (q.users_with_records("memory", ["u2"]).sql, {"user_ids": ["u2"]})]
    assert d.user_key("u2") in state.docs["team_a.users"]  # records of another session remain
    left["u2"] = []
    assert store.forget("u2", "s1") == ForgetResult(records=1, sessions=1, wiped=True)
    assert d.user_key("u2") not in state.docs["team_a.users"]  # that session held the user's last records


def test_purge_deletes_expired_records_then_empty_sessions_and_users(store, state, corpus):
    purged = [{"key": "k1", "user_id": "u1"}, {"key": "k2", "user_id": "u2"}, {"key": "k3", "user_id": "u1"}]
    answers = {"`expires_ts` <=": purged, "NOT IN": ["s::x"], "DISTINCT": ["u1"]}
    state.query_answer = lambda sql, o: next(v for k, v in answers.items() if k in sql)
    assert store.purge_expired(NOW) == 3
    sqls = [(c[1], c[2]["named_parameters"]) for c in calls(state, "query")]
    assert sqls == [(q.purge_expired("memory", NOW).sql, {"now": NOW.timestamp()}),
                    (q.erase_empty_sessions("sessions", "memory", ["u1", "u2"]).sql, {"user_ids": ["u1", "u2"]}),
                    (q.users_with_records("memory", ["u1", "u2"]).sql, {"user_ids": ["u1", "u2"]})]
    assert d.user_key("u1") in state.docs["team_a.users"]  # still has records
    assert d.user_key("u2") not in state.docs["team_a.users"]  # none left


def test_purge_of_nothing_sends_only_the_delete(store, state):
    assert store.purge_expired(NOW) == 0
    assert [c[1] for c in calls(state, "query")] == [q.purge_expired("memory", NOW).sql]
    assert not calls(state, "remove_multi")


def test_count_users_and_lookup(store, state, corpus):
    recs, _ = corpus
    answers = {"COUNT": [2], "DISTINCT": ["u2", "u1", "u1"],
               "content_hash": [{"content_hash": recs[0].content_hash, "embedding": [1.0, 0, 0, 0]}] * 2}
    state.query_answer = lambda sql, o: next(v for k, v in answers.items() if k in sql)
    assert store.count("u1") == 2
    assert store.users() == ["u1", "u2"]
    state.calls.clear()
    got = store.lookup_vectors("u1", [recs[0].content_hash, "0" * 64, recs[0].content_hash])
    assert list(got) == [recs[0].content_hash] and got[recs[0].content_hash].dtype == np.float32
    (query,) = calls(state, "query")
    assert query[1] == q.lookup_vectors("memory", "u1", []).sql  # the user is a condition of the query
    assert query[2]["named_parameters"] == {"user_id": "u1", "hashes": [recs[0].content_hash, "0" * 64]}


# ------------------------------------------------------------------ write modes
def _answer_listings(state):
    """Answer session_records from the fake's documents (the other statements get no rows)."""
    def answer(sql, options):
        if "`kind` FROM" not in sql:
            return []
        p = options["named_parameters"]
        return [{"record_id": b["record_id"], "kind": b["kind"]} for b in state.docs["team_a.memory"].values()
                if b["user_id"] == p["user_id"] and b["session_id"] == p["session_id"]]
    state.query_answer = answer


def test_replace_removes_raw_records_the_batch_no_longer_has(store, state):
    sess, recs = records("u1", "s1", ["one", "two", "three"])
    store.write([sess], recs, np.stack([unit(0), unit(1), unit(2)]))
    _answer_listings(state)
    state.calls.clear()
    res = store.write([sess], recs[:2], np.stack([unit(0), unit(1)]), mode="replace")
    assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 2)
    listing = [c for c in calls(state, "query") if "`kind` FROM" in c[1]]
    assert [(c[1], c[2]["named_parameters"]) for c in listing] == [
        (q.session_records("memory", "u1", "s1").sql, {"user_id": "u1", "session_id": "s1"})]
    (removed,) = calls(state, "remove_multi")
    assert removed[1:] == ("memory", [d.record_key(recs[2].record_id)])
    assert sorted(b["text"] for b in state.docs["team_a.memory"].values()) == ["one", "two"]


def test_replace_keeps_derived_records_of_an_unchanged_session_only(store, state):
    sess, recs = records("u1", "s1", ["one", "two"])
    store.write([sess], recs, np.stack([unit(0), unit(1)]))
    derived = replace(recs[0], record_id="derived-1", kind="summary", text="a summary", index_text="a summary",
                      content_hash="h" * 64)
    store.write([sess], [derived], np.stack([unit(2)]))
    _answer_listings(state)
    store.write([sess], recs, np.stack([unit(0), unit(1)]), mode="replace")  # nothing changed: summary kept
    assert d.record_key("derived-1") in state.docs["team_a.memory"]
    moved = Session("u1", "s1", T0 + timedelta(days=1))  # same records, but the session's date changed
    state.calls.clear()
    store.write([moved], recs, np.stack([unit(0), unit(1)]), mode="replace")
    assert d.record_key("derived-1") not in state.docs["team_a.memory"]
    assert [c[1] for c in calls(state, "remove_multi")] == ["memory"]
    assert state.docs["team_a.sessions"][d.session_key("u1", "s1")]["occurred_at"].startswith("2023-05-08")


def test_merge_never_lists_or_removes(store, state):
    sess, recs = records("u1", "s1", ["one"])
    store.write([sess], recs, np.stack([unit(0)]))
    assert not calls(state, "query") and not calls(state, "remove_multi")


def test_append_checks_positions_first_and_writes_nothing_on_conflict(store, state):
    msgs = validate_messages([{"role": "user", "content": "two"}, {"role": "user", "content": "three"}])
    late = build_records("u1", "s1", msgs, T0, NOW, start_position=1, append=True)
    sess = Session("u1", "s1", T0)
    state.query_answer = lambda sql, o: ["someone-else"]  # a record at or after position 1
    with pytest.raises(WriteConflictError):
        store.write([sess], late, np.stack([unit(0), unit(1)]), mode="append")
    (check,) = calls(state, "query")
    assert check[1] == q.append_conflict("memory", "u1", "s1", "turn", 1, []).sql
    assert check[2]["named_parameters"] == {"user_id": "u1", "session_id": "s1", "kind": "turn", "position": 1,
                                            "record_ids": [r.record_id for r in late]}  # its own don't count
    assert not calls(state, "upsert_multi") and not calls(state, "get_multi")  # nothing read, nothing written
    state.query_answer = lambda sql, o: []
    res = store.write([sess], late, np.stack([unit(0), unit(1)]), mode="append")
    assert res.inserted == 2


def test_an_unknown_write_mode_is_refused(store, state):
    sess, recs = records("u1", "s1", ["one"])
    with pytest.raises(InvalidInputError, match="mode"):
        store.write([sess], recs, np.stack([unit(0)]), mode="upsert")
    assert state.calls == []


def test_records_are_written_before_their_session_and_user(store, state):
    sess, recs = records("u1", "s9", ["one"])
    store.write([sess], recs, np.stack([unit(0)]))
    assert [c[1] for c in calls(state, "upsert_multi")] == ["memory", "sessions", "users"]


def test_get_records_and_sessions_by_key_never_cross_users(store, state, corpus):
    recs, other = corpus
    assert store.get_records("u1", [other[0].record_id, recs[0].record_id]) == [recs[0]]
    assert store.get_session("u1", "s1") == Session("u1", "s1", T0)
    assert store.get_session("u1", "missing") is None


def test_close_closes_only_an_owned_cluster(state):
    cluster = FakeCluster(state)
    CouchbaseStore(cluster, "cbm").close()
    assert not cluster.closed
    CouchbaseStore(cluster, "cbm", close_cluster=True).close()
    assert cluster.closed


def test_without_auto_schema_a_missing_layout_is_a_clear_error(state):
    from cbmemory.errors import CbMemoryError

    store = CouchbaseStore(FakeCluster(state), "cbm", auto_schema=False)
    with pytest.raises(CbMemoryError, match=r"call ensure_schema\(4\)"):
        store.bind_embedder("e", DIM)
    store.ensure_schema(DIM)
    store.bind_embedder("e", DIM)
    assert store.bound_embedder == ("e", DIM)


def test_missing_bucket_is_a_clear_error(state):
    from couchbase.exceptions import BucketNotFoundException

    state.fail_with = BucketNotFoundException()
    with pytest.raises(StoreUnavailableError, match="bucket 'nope' does not exist"):
        CouchbaseStore(FakeCluster(state), "nope").count()


def test_schema_creation_is_idempotent(store, state):
    again = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    again.ensure_schema(DIM)
    assert not calls(state, "create_scope") and not calls(state, "create_collection")
    assert not calls(state, "upsert_index")  # the existing index (same dimension) is kept
    assert all("IF NOT EXISTS" in c[1] for c in calls(state, "query"))
