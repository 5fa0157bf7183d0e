"""Unit layer (store.couchbase): CouchbaseStore's learned-sparse vectors, against the in-process fake of the SDK
objects (tests/support/couchbase_fake.py; NOT backend coverage: KV is a dict and SQL++ answers are scripted).

Checked here: the binding in the meta document (``sparse_encoder`` next to the embedder's fields, set once
with an atomic sub-document insert), the ``sparse`` field ``write`` puts in each document (none when no
encoder is bound), and what ``sparse_search`` does: the one SQL++ statement it sends (its text is golden in
test_couchbase_sqlpp.py), and what it keeps of the rows (the documents re-read by key: other users', erased,
filtered-out, expired and unscorable ones dropped; scores recomputed exactly; cut to k). Whether a server
scores the statement as intended is the live contract suite's (tests/integration/couchbase/).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseVector, sparse_dot
from cbmemory.errors import CbMemoryError, EmbedderMismatchError, InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import SearchFilters, Session
from cbmemory.store import couchbase_docs as d
from cbmemory.store import couchbase_requests as q
from cbmemory.store.couchbase import CouchbaseStore
from tests.support.couchbase_fake import FakeCluster, FakeState, bound_store

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


@pytest.fixture
def state():
    return FakeState()


@pytest.fixture
def store(state):
    """A store bound to an embedder only."""
    return bound_store(state, DIM)


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
    (count,) = calls(state, "query")  # "already holds records?": the count query, at request_plus
    assert count[1] == q.count_records("memory", NOW).sql
    assert count[2]["scan_consistency"].value == "request_plus"
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


def test_a_store_holding_records_refuses_a_sparse_encoder(store, state):
    write(store, "u1", "s1", ["written without a sparse vector"])
    state.query_answer = lambda sql, o: [1] if "COUNT(1)" in sql else []
    with pytest.raises(InvalidInputError, match="already holds records"):
        store.bind_sparse_encoder("test-sparse")
    assert "sparse_encoder" not in state.docs[USERS][d.META_KEY] and store.bound_sparse_encoder is None


def test_an_encoder_bound_by_another_process_meanwhile_wins(store, state):
    """Between this store's read of the meta document and its write, another process binds an encoder (here
    during the count query): the sub-document insert fails, nothing is overwritten, and the names are
    compared."""
    meta = state.docs[USERS][d.META_KEY]

    def count(sql, options):
        meta.setdefault("sparse_encoder", "theirs")
        return [0]

    state.query_answer = count
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
    real_ensure = store.ensure_schema

    def ensure(dimension, **kw):  # another process binds its embedder while this one makes the schema
        real_ensure(dimension, **kw)
        meta.update(embedder_name="theirs", embedder_dimension=DIM)

    store.ensure_schema = ensure
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


# ------------------------------------------------------------------ sparse_search
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
    hits = sparse_store.sparse_search("u1", QUERY, 3, now=NOW)
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
    assert [h.record.text for h in sparse_store.sparse_search("u1", QUERY, 10, now=after_expiry)] == [
        "in another session", "c"]  # u2's row, the erased one and the expired one dropped
    only_s1 = sparse_store.sparse_search("u1", QUERY, 10, SearchFilters(session_ids=("s1",)), now=NOW)
    assert [h.record.text for h in only_s1] == ["c"]
    sql = calls(state, "query")[-1]
    assert sql[2]["named_parameters"]["session_ids"] == ["s1"]  # the filters travel to the server too
    assert [h.record.text for h in sparse_store.sparse_search("u2", QUERY, 10, now=NOW)] == [
        "other user's exact match"]


def test_ties_keep_the_statements_order_and_non_positive_scores_never_hit(sparse_store, state):
    recs = write(sparse_store, "u1", "s1", ["x", "y", "z", "negative"],
                 sparse=[sv({5: 2.0}), sv({5: 2.0}), sv({6: 1.0}), sv({5: -1.0})])
    order = [recs[1].record_id, recs[0].record_id, recs[3].record_id, recs[2].record_id]
    answer_rows(state, order)  # a stale or wrong server row for a document that does not score
    hits = sparse_store.sparse_search("u1", sv({5: 1.0}), 10, now=NOW)
    assert [h.record.text for h in hits] == ["y", "x"] and [h.score for h in hits] == [2.0, 2.0]


def test_malformed_rows_are_ignored(sparse_store, state, corpus):
    mine = corpus[0]
    state.query_answer = lambda sql, o: [None, "k", {"score": 3}, {"key": 7}, {"key": mine[1].record_id},
                                         {"key": mine[1].record_id}]
    assert [h.record.text for h in sparse_store.sparse_search("u1", QUERY, 5, now=NOW)] == ["b"]


def test_nothing_is_sent_when_there_is_nothing_to_search(sparse_store, state, corpus):
    assert sparse_store.sparse_search("u1", sv({}), 5, now=NOW) == []
    assert sparse_store.sparse_search("u1", QUERY, 5, SearchFilters(session_ids=()), now=NOW) == []
    assert not calls(state, "query") and not calls(state, "get_multi")
    with pytest.raises(InvalidInputError, match="SparseVector"):
        sparse_store.sparse_search("u1", {1: 1.0}, 5, now=NOW)


def test_no_hits_without_a_sparse_encoder(store, state):
    recs = write(store, "u1", "s1", ["one"])
    answer_rows(state, [recs[0].record_id])
    state.calls.clear()
    assert store.sparse_search("u1", QUERY, 5, now=NOW) == []
    assert not calls(state, "query")
