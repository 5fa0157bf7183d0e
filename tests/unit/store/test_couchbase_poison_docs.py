"""Unit layer: Couchbase documents written before cbmemory refused out-of-range instants (``datetime.max`` as
an expiry or a session date) read back clamped into the supported range instead of crashing a read, and
documents with a malformed sparse vector are skipped by the ``sparse`` search, against
the in-process fake of the SDK objects (tests/support/couchbase_fake.py; not backend coverage)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from cbmemory import AgentMemory
from cbmemory.dates import MAX_INSTANT, MIN_INSTANT
from cbmemory.embedding.sparse import SparseVector
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.couchbase import docs as d
from cbmemory.store.signals import Signal
from tests.support.couchbase_fake import FakeCluster, FakeState
from tests.support.embedders import FourDims

T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
POISON = {"occurred_at": "9999-12-31T23:59:59.999999Z", "ingested_at": "0001-01-01T00:00:00+01:00",
          "expires_at": "9999-12-31T23:00:00-05:00"}


def test_stored_out_of_range_times_are_clamped_on_every_read():
    state = FakeState()
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    store.bind_embedder("test-embedder", 4)
    msgs = validate_messages([{"role": "user", "content": "poisoned", "turn_id": "t0"}])
    (rec,) = build_records("u1", "s1", msgs, T0, NOW)
    store.write([Session("u1", "s1", T0)], [rec], np.ones((1, 4), dtype=np.float32) / 2)
    state.docs["team_a.memory"][rec.record_id].update(POISON)
    state.docs["team_a.sessions"][d.session_key("u1", "s1")]["occurred_at"] = POISON["occurred_at"]

    (got,) = store.get_records("u1", [rec.record_id])
    assert (got.occurred_at, got.ingested_at, got.expires_at) == (MAX_INSTANT, MIN_INSTANT, MAX_INSTANT)
    assert store.get_session("u1", "s1").occurred_at == MAX_INSTANT
    body = state.docs["team_a.memory"][rec.record_id]
    state.query_answer = lambda sql, o: [{f: body[f] for f in d.RECORD_FIELDS}] if "`memory`" in sql else [
        state.docs["team_a.sessions"][d.session_key("u1", "s1")]]
    assert [s.occurred_at for s in store.list_sessions("u1")] == [MAX_INSTANT]
    memory = AgentMemory(store, FourDims(), clock=lambda: NOW)
    (listed,) = memory.session_records("u1")
    assert listed.occurred_at == MAX_INSTANT and listed.expires_at == MAX_INSTANT


def test_a_malformed_sparse_field_is_skipped_by_sparse_search_and_never_breaks_a_read():
    """A document whose ``sparse`` field is not a sparse vector (written by hand, or by another program) is
    left out of the ``sparse`` search (it cannot be scored) instead of failing the call; every other read of it
    ignores the field."""
    state = FakeState()
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    store.bind_embedder("test-embedder", 4)
    store.bind_sparse_encoder("test-sparse")
    msgs = validate_messages([{"role": "user", "content": f"turn {i}", "turn_id": f"t{i}"} for i in range(6)])
    recs = build_records("u1", "s1", msgs, T0, NOW)
    vectors = [SparseVector(np.array([1]), np.array([float(i + 1)], dtype=np.float32)) for i in range(6)]
    store.write([Session("u1", "s1", T0)], recs, np.ones((6, 4), dtype=np.float32) / 2, sparse=vectors)
    docs = state.docs["team_a.memory"]
    for rec, bad in zip(recs[1:], ("1:2.0", [{"t": "1", "w": 2.0}], [{"t": 1, "w": float("nan")}],
                                   [{"t": 1, "w": 1.0}, {"t": 1, "w": 1.0}]), strict=False):
        docs[rec.record_id]["sparse"] = bad
    del docs[recs[5].record_id]["sparse"]  # and one with none at all
    state.query_answer = lambda sql, o: [{"key": r.record_id, "score": 1.0} for r in reversed(recs)]
    query = SparseVector(np.array([1]), np.array([1.0], dtype=np.float32))
    hits = store.search(Signal.SPARSE, "u1", query, 10, now=NOW)
    assert [(h.record.text, h.score) for h in hits] == [("turn 0", 1.0)]
    assert store.get_records("u1", [r.record_id for r in recs]) == recs
