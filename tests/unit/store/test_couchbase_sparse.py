"""Unit layer (store.couchbase): CouchbaseStore's learned-sparse vectors, against the in-process fake of the SDK
objects (tests/support/couchbase_fake.py; NOT backend coverage: KV is a dict and SQL++ answers are scripted).

Checked here: the binding in the meta document (``sparse_encoder`` next to the embedder's fields, set once
with an atomic sub-document insert), the ``sparse`` field ``write`` puts in each document (none when no
encoder is bound), and what its ``sparse`` search does: the one SQL++ statement it sends (its text is golden in
test_couchbase_sqlpp.py), and what it keeps of the rows (the documents re-read by key: other users', erased,
filtered-out, expired and unscorable ones dropped; scores recomputed exactly; cut to k). Records written
before the binding: binding a store that holds them sends no count and leaves them without a vector;
``users_missing_sparse`` / ``records_without_sparse`` send their one statement (text golden in
test_couchbase_sqlpp.py) and nothing when no encoder is bound; ``set_sparse`` reads the documents by key and
sends one CAS-guarded sub-document insert per document of the user that has no vector, and nothing at all
for refused input. Whether a server scores the statement as intended, and keeps a document's expiry through
the insert, is the live contract suite's (tests/integration/couchbase/).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from couchbase.subdocument import SubDocOp

from cbmemory.dates import utcnow
from cbmemory.embedding.sparse import SparseVector, sparse_dot
from cbmemory.errors import CbMemoryError, EmbedderMismatchError, InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import SearchFilters, Session
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q
from cbmemory.store.signals import Signal
from tests.support.couchbase_fake import FakeCluster

DIM = 4
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
VEC = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
MEMORY, USERS = "team_a.memory", "team_a.users"


def sv(weights: dict[int, float]) -> SparseVector:
    ids = sorted(weights)
    return SparseVector(np.array(ids, dtype=np.int32), np.array([weights[i] for i in ids], dtype=np.float32))


def records(user, session, texts, **kw):
    msgs = validate_messages([{"role": "user", "content": t, "turn_id": f"{session}:{i}"} for i, t in enumerate(texts)])
    return Session(user, session, T0), build_records(user, session, msgs, T0, NOW, **kw)


def write(store, user, session, texts, sparse=None, **kw):
    sess, recs = records(user, session, texts, **kw)
    store.write([sess], recs, np.stack([VEC] * len(recs)), sparse=sparse)
    return recs


def calls(state, kind):
    return [c for c in state.calls if c[0] == kind]


# fixtures ``state`` (a FakeState) and ``store`` (bound to an embedder only): tests/unit/store/conftest.py


@pytest.fixture
def sparse_store(store, state):
    store.bind_sparse_encoder("test-sparse")
    state.calls.clear()
    return store


# ------------------------------------------------------------------ binding
def test_binding_adds_the_encoder_to_the_meta_document_once(store, state):
    assert store.bound_sparse_encoder is None
    store.bind_sparse_encoder("test-sparse")
    assert state.docs[USERS][d.META_KEY] == {"schema": 1, "embedder_name": "test-embedder",
                                             "embedder_dimension": DIM, "sparse_encoder": "test-sparse"}
    assert not calls(state, "query")  # no "already holds records?" count: a store holding records may be bound
    (mutation,) = calls(state, "mutate_in")  # an atomic insert of the field: never overwrites another's
    assert mutation[1:3] == ("users", d.META_KEY) and [s[1] for s in mutation[3]] == ["sparse_encoder"]
    assert not calls(state, "insert") and not calls(state, "upsert_multi")
    assert store.bound_sparse_encoder == "test-sparse"
    again = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")  # another process sees it
    assert again.bound_sparse_encoder == "test-sparse" and again.bound_embedder == ("test-embedder", DIM)
    assert again.stats()["sparse_encoder"] == "test-sparse"


def test_binding_the_same_encoder_again_does_nothing_and_another_is_refused(sparse_store, state):
    sparse_store.bind_sparse_encoder("test-sparse")
    assert not calls(state, "query") and not calls(state, "mutate_in")
    fresh = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    for s in (sparse_store, fresh):
        with pytest.raises(EmbedderMismatchError, match="'test-sparse'"):
            s.bind_sparse_encoder("other-sparse")
        assert s.bound_sparse_encoder == "test-sparse"
    assert state.docs[USERS][d.META_KEY]["sparse_encoder"] == "test-sparse"
    assert not calls(state, "mutate_in")


def test_a_store_holding_records_may_be_bound_and_its_old_records_are_left_without_vectors(store, state):
    old = write(store, "u1", "s1", ["written without a sparse vector"])
    state.query_answer = lambda sql, o: [1] if "COUNT(1)" in sql else []  # were the store to count: it holds one
    state.calls.clear()
    store.bind_sparse_encoder("test-sparse")
    assert state.docs[USERS][d.META_KEY]["sparse_encoder"] == "test-sparse"
    assert store.bound_sparse_encoder == "test-sparse"
    assert not calls(state, "query")  # nothing counted
    assert [c[2] for c in calls(state, "mutate_in")] == [d.META_KEY]  # the meta document only
    assert "sparse" not in state.docs[MEMORY][old[0].record_id]
    answer_rows(state, [old[0].record_id])  # even a stale row for it: the re-read document has no vector
    assert store.search(Signal.SPARSE, "u1", sv({1: 1.0}), 5, now=NOW) == []


def test_an_encoder_bound_by_another_process_meanwhile_wins(store, state):
    """Between this store's read of the meta document and its write, another process binds an encoder (here
    just before the sub-document insert): the insert fails, nothing is overwritten, and the names are
    compared."""
    meta = state.docs[USERS][d.META_KEY]
    real_add = store._c.add_fields

    def racing(collection, key, fields):
        meta.setdefault("sparse_encoder", "theirs")
        return real_add(collection, key, fields)

    store._c.add_fields = racing
    with pytest.raises(EmbedderMismatchError, match="'theirs'"):
        store.bind_sparse_encoder("mine")
    assert meta["sparse_encoder"] == "theirs" and store.bound_sparse_encoder == "theirs"
    other = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    del meta["sparse_encoder"]
    other.bind_sparse_encoder("theirs")  # bound meanwhile to the same name: fine
    assert meta["sparse_encoder"] == "theirs" and other.bound_sparse_encoder == "theirs"


def test_a_sparse_encoder_may_be_bound_before_the_embedder(state):
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    store.bind_sparse_encoder("test-sparse")  # makes the collections (no Search index: no dimension yet)
    assert {c[2] for c in calls(state, "create_collection")} == {"users", "sessions", "memory"}
    assert not calls(state, "upsert_index")
    assert state.docs[USERS][d.META_KEY] == {"schema": 1, "sparse_encoder": "test-sparse"}
    assert store.bound_embedder is None and store.bound_sparse_encoder == "test-sparse"
    store.bind_embedder("test-embedder", DIM)  # adds its fields (and makes the Search index)
    assert state.docs[USERS][d.META_KEY] == {"schema": 1, "sparse_encoder": "test-sparse",
                                             "embedder_name": "test-embedder", "embedder_dimension": DIM}
    assert calls(state, "upsert_index")
    assert store.bound_embedder == ("test-embedder", DIM)
    with pytest.raises(EmbedderMismatchError):
        CouchbaseStore(FakeCluster(state), "cbm", scope="team_a").bind_embedder("other", DIM)


def test_an_embedder_bound_by_another_process_meanwhile_is_compared(state):
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    store.bind_sparse_encoder("test-sparse")
    meta = state.docs[USERS][d.META_KEY]
    real_ensure = store._b.ensure_schema  # the bucket part makes the schema

    def ensure(dimension, **kw):  # another process binds its embedder while this one makes the schema
        real_ensure(dimension, **kw)
        meta.update(embedder_name="theirs", embedder_dimension=DIM)

    store._b.ensure_schema = ensure
    with pytest.raises(EmbedderMismatchError, match="'theirs'"):
        store.bind_embedder("mine", DIM)
    assert meta["embedder_name"] == "theirs"


def test_binding_checks_the_name_and_the_schema_setting(state):
    store = CouchbaseStore(FakeCluster(state), "cbm", auto_schema=False)
    for bad in ("", None, 3):
        with pytest.raises(InvalidInputError):
            store.bind_sparse_encoder(bad)
    with pytest.raises(CbMemoryError, match="no cbmemory collections"):
        store.bind_sparse_encoder("test-sparse")
    assert not calls(state, "create_collection")


# ------------------------------------------------------------------ writes
def test_write_puts_each_records_sparse_vector_in_its_document(sparse_store, state):
    vectors = [sv({3: 0.5, 40: 1.25}), sv({})]
    recs = write(sparse_store, "u1", "s1", ["one", "two"], sparse=vectors)
    docs = state.docs[MEMORY]
    assert docs[recs[0].record_id]["sparse"] == [{"t": 3, "w": 0.5}, {"t": 40, "w": 1.25}]
    assert docs[recs[1].record_id]["sparse"] == []
    assert [d.body_sparse(docs[r.record_id]) for r in recs] == vectors
    (batch,) = [c for c in calls(state, "upsert_multi") if c[1] == "memory"]
    assert batch[2][recs[0].record_id] == d.record_body(recs[0], VEC, vectors[0])
    state.calls.clear()
    sess, same = records("u1", "s1", ["one", "two"])
    res = sparse_store.write([sess], same, np.stack([VEC, VEC]), sparse=vectors)
    assert res.unchanged == 2 and not [c for c in calls(state, "upsert_multi") if c[1] == "memory"]


def test_without_a_sparse_encoder_documents_carry_none(store, state):
    recs = write(store, "u1", "s1", ["one"])
    assert "sparse" not in state.docs[MEMORY][recs[0].record_id]
    state.calls.clear()
    sess, more = records("u1", "s2", ["two"])
    with pytest.raises(InvalidInputError, match="bind a sparse encoder"):
        store.write([sess], more, np.stack([VEC]), sparse=[sv({1: 1.0})])
    assert not calls(state, "upsert_multi")


def test_a_bound_store_refuses_a_write_without_sparse_vectors(sparse_store, state):
    sess, recs = records("u1", "s1", ["one"])
    with pytest.raises(InvalidInputError, match="write one per record"):
        sparse_store.write([sess], recs, np.stack([VEC]))
    assert not calls(state, "upsert_multi")


# ------------------------------------------------------------------ the sparse search
QUERY = sv({1: 1.0, 2: 1.0, 7: 3.0})


def answer_rows(state, keys):
    """Script the statement's answer: these keys, in this order (as the server would order them)."""
    state.query_answer = lambda sql, o: [{"key": k, "score": 1.0} for k in keys] if "UNNEST" in sql else []


@pytest.fixture
def corpus(sparse_store, state):
    mine = write(sparse_store, "u1", "s1", ["a", "b", "c", "d"],
                 sparse=[sv({1: 1.0, 2: 0.5}), sv({2: 2.0, 9: 4.0}), sv({7: 0.5}), sv({1: 1.5})])
    other = write(sparse_store, "u2", "s1", ["other user's exact match"], sparse=[sv({7: 100.0})])
    later = write(sparse_store, "u1", "s2", ["in another session"], sparse=[sv({7: 10.0})])
    short = write(sparse_store, "u1", "s3", ["expiring"], sparse=[sv({7: 20.0})], expires_at=NOW + timedelta(hours=1))
    state.calls.clear()
    return mine, other[0], later[0], short[0]


def test_sparse_search_sends_one_statement_and_recomputes_exact_scores(sparse_store, state, corpus):
    mine, _, later, short = corpus
    answer_rows(state, [short.record_id, later.record_id, mine[2].record_id, mine[1].record_id,
                        mine[0].record_id, mine[3].record_id])
    hits = sparse_store.search(Signal.SPARSE, "u1", QUERY, 3, now=NOW)
    (query,) = calls(state, "query")
    expected = q.sparse_search("memory", "u1", QUERY, SearchFilters(), NOW, 6)  # k * candidates_per_k
    assert (query[1], query[2]["named_parameters"]) == (expected.sql, dict(expected.params))
    assert query[2]["scan_consistency"].value == "request_plus"
    (fetch,) = calls(state, "get_multi")  # the rows' documents, re-read by key in one batch
    assert len(fetch[2]) == 6
    assert [h.record.text for h in hits] == ["expiring", "in another session", "b"]  # cut to k
    stored = {r.record_id: d.body_sparse(state.docs[MEMORY][r.record_id]) for r in [short, later, mine[1]]}
    assert [h.score for h in hits] == [sparse_dot(stored[h.record.record_id], QUERY) for h in hits] == [60, 30, 2]
    assert [dict(h.signals) for h in hits] == [{"sparse": h.score} for h in hits]
    assert [dict(h.ranks) for h in hits] == [{"sparse": 1}, {"sparse": 2}, {"sparse": 3}]


def test_other_users_erased_expired_and_filtered_out_rows_are_dropped(sparse_store, state, corpus):
    mine, other, later, short = corpus
    gone = "f" * 32  # a row whose document was erased since
    answer_rows(state, [other.record_id, gone, short.record_id, later.record_id, mine[2].record_id])
    after_expiry = NOW + timedelta(hours=2)
    assert [h.record.text for h in sparse_store.search(Signal.SPARSE, "u1", QUERY, 10, now=after_expiry)] == [
        "in another session", "c"]  # u2's row, the erased one and the expired one dropped
    only_s1 = sparse_store.search(Signal.SPARSE, "u1", QUERY, 10, SearchFilters(session_ids=("s1",)), now=NOW)
    assert [h.record.text for h in only_s1] == ["c"]
    sql = calls(state, "query")[-1]
    assert sql[2]["named_parameters"]["session_ids"] == ["s1"]  # the filters travel to the server too
    assert [h.record.text for h in sparse_store.search(Signal.SPARSE, "u2", QUERY, 10, now=NOW)] == [
        "other user's exact match"]


def test_ties_keep_the_statements_order_and_non_positive_scores_never_hit(sparse_store, state):
    recs = write(sparse_store, "u1", "s1", ["x", "y", "z", "negative"],
                 sparse=[sv({5: 2.0}), sv({5: 2.0}), sv({6: 1.0}), sv({5: -1.0})])
    order = [recs[1].record_id, recs[0].record_id, recs[3].record_id, recs[2].record_id]
    answer_rows(state, order)  # a stale or wrong server row for a document that does not score
    hits = sparse_store.search(Signal.SPARSE, "u1", sv({5: 1.0}), 10, now=NOW)
    assert [h.record.text for h in hits] == ["y", "x"] and [h.score for h in hits] == [2.0, 2.0]


def test_malformed_rows_are_ignored(sparse_store, state, corpus):
    mine = corpus[0]
    state.query_answer = lambda sql, o: [None, "k", {"score": 3}, {"key": 7}, {"key": mine[1].record_id},
                                         {"key": mine[1].record_id}]
    assert [h.record.text for h in sparse_store.search(Signal.SPARSE, "u1", QUERY, 5, now=NOW)] == ["b"]


def test_nothing_is_sent_when_there_is_nothing_to_search(sparse_store, state, corpus):
    assert sparse_store.search(Signal.SPARSE, "u1", sv({}), 5, now=NOW) == []
    assert sparse_store.search(Signal.SPARSE, "u1", QUERY, 5, SearchFilters(session_ids=()), now=NOW) == []
    assert not calls(state, "query") and not calls(state, "get_multi")
    with pytest.raises(InvalidInputError, match="SparseVector"):
        sparse_store.search(Signal.SPARSE, "u1", {1: 1.0}, 5, now=NOW)


def test_no_hits_without_a_sparse_encoder(store, state):
    recs = write(store, "u1", "s1", ["one"])
    answer_rows(state, [recs[0].record_id])
    state.calls.clear()
    assert store.search(Signal.SPARSE, "u1", QUERY, 5, now=NOW) == []
    assert not calls(state, "query")


# ------------------------------------------------------------------ records written before the binding
@pytest.fixture
def backlog(store, state):
    """u1's three records and u2's one, written before the encoder was bound (one of u1's with an id that is
    not a plain key, one expiring), then the binding and one record of u1 written with its vector."""
    sess, recs = records("u1", "s1", ["old one", "old two"])
    recs = [recs[0], replace(recs[1], record_id="a custom id")]
    store.write([sess], recs, np.stack([VEC, VEC]))
    recs += write(store, "u1", "s2", ["old expiring"], expires_at=NOW + timedelta(days=400))
    theirs = write(store, "u2", "s1", ["u2's old record"])
    store.bind_sparse_encoder("test-sparse")
    fresh = write(store, "u1", "s3", ["written with a vector"], sparse=[sv({4: 1.0})])
    state.calls.clear()
    return recs, theirs[0], fresh[0]


def _key(record):
    return d.record_key(record.record_id)


def test_without_a_sparse_encoder_the_listings_are_empty_and_set_sparse_is_refused(store, state):
    recs = write(store, "u1", "s1", ["one"])
    state.query_answer = lambda sql, o: ["u1"]  # were a statement sent, it would find something
    state.calls.clear()
    assert store.users_missing_sparse() == [] and store.records_without_sparse("u1") == []
    assert not calls(state, "query")
    with pytest.raises(InvalidInputError, match="bind a sparse encoder"):
        store.set_sparse("u1", {recs[0].record_id: sv({1: 1.0})})
    with pytest.raises(InvalidInputError, match="bind a sparse encoder"):
        store.set_sparse("u1", {})
    assert not calls(state, "get_multi") and not calls(state, "mutate_in") and not calls(state, "query")
    assert "sparse" not in state.docs[MEMORY][recs[0].record_id]


def test_users_missing_sparse_sends_one_statement(sparse_store, state):
    state.query_answer = lambda sql, o: ["u2", "u1", "u2", None, 3]
    before = utcnow()
    assert sparse_store.users_missing_sparse() == ["u1", "u2"]  # distinct, sorted, malformed rows ignored
    (query,) = calls(state, "query")
    assert query[1] == q.users_missing_sparse("memory", NOW).sql
    params = query[2]["named_parameters"]
    assert set(params) == {"now"} and before.timestamp() <= params["now"] <= utcnow().timestamp()
    assert query[2]["scan_consistency"].value == "request_plus"


def test_records_without_sparse_sends_the_listing_and_keeps_the_servers_order(store, state, backlog):
    recs, theirs, _ = backlog
    rows = [{f: state.docs[MEMORY][_key(r)][f] for f in d.RECORD_FIELDS} for r in reversed(recs)]
    state.query_answer = lambda sql, o: rows
    before = utcnow()
    assert store.records_without_sparse("u1", limit=10) == list(reversed(recs))
    (query,) = calls(state, "query")
    expected = q.records_without_sparse("memory", "u1", NOW, limit=10)
    assert query[1] == expected.sql and "IS MISSING" in query[1]
    params = query[2]["named_parameters"]
    assert {k: v for k, v in params.items() if k != "now"} == {"user_id": "u1", "limit": 10}
    assert before.timestamp() <= params["now"] <= utcnow().timestamp()
    assert query[2]["scan_consistency"].value == "request_plus"
    state.calls.clear()
    store.records_without_sparse("u1")
    assert "limit" not in calls(state, "query")[0][2]["named_parameters"]
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(InvalidInputError, match="limit"):
            store.records_without_sparse("u1", limit=bad)


def test_set_sparse_inserts_the_field_into_the_users_documents_without_one(store, state, backlog):
    recs, theirs, fresh = backlog
    vectors = {r.record_id: sv({i + 1: 0.5 + i}) for i, r in enumerate(recs)}
    cas_before = {_key(r): state.cas[MEMORY][_key(r)] for r in recs}
    fresh_doc = dict(state.docs[MEMORY][fresh.record_id])
    given = {**vectors, theirs.record_id: sv({9: 9.0}), fresh.record_id: sv({9: 9.0}), "unknown": sv({9: 9.0})}
    assert store.set_sparse("u1", given) == 3
    (fetch,) = calls(state, "get_multi")  # every id's document read by key, in one batch
    assert fetch[1] == "memory" and sorted(fetch[2]) == sorted(d.record_key(rid) for rid in given)
    mutations = calls(state, "mutate_in")
    assert [m[2] for m in mutations] == [_key(r) for r in recs]  # u1's documents without a vector only
    assert _key(recs[1]).startswith("r::")  # a hashed key, found from the record id
    for m, r in zip(mutations, recs, strict=True):
        assert m[1] == "memory"
        (spec,) = m[3]  # one sub-document insert of the field, nothing else
        assert spec[:2] == (SubDocOp.DICT_ADD, "sparse") and spec[5] == d.sparse_terms(vectors[r.record_id])
        assert m[4] == {"cas": cas_before[_key(r)]}  # the CAS read; no expiry option: the document keeps its own
    for r in recs:
        doc = state.docs[MEMORY][_key(r)]
        assert d.body_sparse(doc) == vectors[r.record_id]
        assert {k: v for k, v in doc.items() if k != "sparse"} == d.record_body(r, VEC)  # nothing else changed
    assert "sparse" not in state.docs[MEMORY][theirs.record_id]  # another user's record: untouched
    assert state.docs[MEMORY][fresh.record_id] == fresh_doc  # one that had a vector keeps it
    assert not calls(state, "upsert_multi") and not calls(state, "query")
    newest = max(t.sequence_number for t in store._c._tokens.values())
    assert newest == state.last_seq["memory"]  # the inserts' mutation tokens are kept for at_plus searches
    state.calls.clear()
    assert store.set_sparse("u1", vectors) == 0  # again: every one has its vector now
    assert not calls(state, "mutate_in")
    sess, same = records("u1", "s1", ["old one"])
    assert store.write([sess], same, np.stack([VEC]), sparse=[vectors[recs[0].record_id]]).unchanged == 1
    answer_rows(state, [_key(recs[2]), _key(recs[0])])
    hits = store.search(Signal.SPARSE, "u1", sv({1: 1.0, 3: 1.0}), 5, now=NOW)
    assert [(h.record.text, h.score) for h in hits] == [("old expiring", 2.5), ("old one", 0.5)]


def test_a_document_changed_between_the_read_and_the_insert_is_not_counted(store, state, backlog):
    """Another writer adds the field (the insert finds it: its vector is kept), rewrites a document (the CAS
    no longer matches) or erases one, after set_sparse read them: none is set, none counted."""
    recs, _, _ = backlog
    docs, cas = state.docs[MEMORY], state.cas[MEMORY]
    real_read = store._c.get_many_cas

    def racing_read(collection, keys):
        found = real_read(collection, keys)
        docs[_key(recs[0])]["sparse"] = [{"t": 7, "w": 7.0}]  # theirs, the CAS left as read
        cas[_key(recs[1])] += 100  # rewritten since
        del docs[_key(recs[2])]  # erased since
        return found

    store._c.get_many_cas = racing_read
    assert store.set_sparse("u1", {r.record_id: sv({1: 1.0}) for r in recs}) == 0
    assert len(calls(state, "mutate_in")) == 3
    assert docs[_key(recs[0])]["sparse"] == [{"t": 7, "w": 7.0}] and "sparse" not in docs[_key(recs[1])]


@pytest.mark.parametrize("bad", [
    {"r1": {1: 1.0}}, {"r1": None}, {"r1": [(1, 1.0)]}, {1: "sv"}, [("r1", "sv")], "r1",
])
def test_set_sparse_refuses_bad_input_before_sending_anything(store, state, backlog, bad):
    recs, _, _ = backlog
    good = {r.record_id: sv({1: 1.0}) for r in recs}
    if isinstance(bad, dict):
        bad = {**good, **{k: (sv({1: 1.0}) if v == "sv" else v) for k, v in bad.items()}}
    with pytest.raises(InvalidInputError):
        store.set_sparse("u1", bad)
    assert state.calls == []  # not even a read
    assert all("sparse" not in state.docs[MEMORY][_key(r)] for r in recs)


def test_set_sparse_of_nothing_sends_nothing(sparse_store, state):
    assert sparse_store.set_sparse("u1", {}) == 0
    assert state.calls == []
