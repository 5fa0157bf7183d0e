"""Unit layer (store.couchbase with AgentMemory): a memory writing to a Couchbase store that another process
binds a sparse encoder to (issue 22, break 2), against the in-process fake of the SDK objects
(tests/support/couchbase_fake.py; NOT backend coverage) and the real SPLADE-tiny encoder. Two store objects
over one fake state stand for two processes: the writer's store reads the meta document again while it has
seen no binding, so the other's binding reaches it, and its next write carries sparse vectors instead of
failing on valid input."""

from __future__ import annotations

from datetime import datetime, timezone

from cbmemory import AgentMemory
from cbmemory.recipes import RECIPES
from cbmemory.store.couchbase import CouchbaseStore
from tests.support.couchbase_fake import FakeCluster, FakeState
from tests.support.embedders import FourDims

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
MEMORY = "team_a.memory"
ENCODER = RECIPES["default_sparse"].ingest.sparse


def test_a_writer_opened_before_another_bound_the_sparse_encoder_writes_the_vectors_itself():
    state = FakeState()
    a = AgentMemory(CouchbaseStore(FakeCluster(state), "cbm", scope="team_a"), FourDims(), clock=lambda: NOW)
    a.add_session("alice", "s1", [{"role": "user", "content": "I went to the support group."}], date="2023-05-08")
    assert a.sparse_encoder is None and all("sparse" not in doc for doc in state.docs[MEMORY].values())

    CouchbaseStore(FakeCluster(state), "cbm", scope="team_a").bind_sparse_encoder(ENCODER)  # another process
    before = set(state.docs[MEMORY])
    a.add_session("alice", "s2", [{"role": "user", "content": "I bought a red Toyota."}], date="2023-05-09")
    a.add_messages("alice", "s2", [{"role": "user", "content": "It is fast."}])

    new = [state.docs[MEMORY][k] for k in set(state.docs[MEMORY]) - before]
    assert len(new) == 2 and all(doc["sparse"] for doc in new)  # each written with its sparse vector
    assert a.sparse_encoder is not None and a.sparse_encoder.name == ENCODER
    # the records written before the binding are listed (SQL++) for the fill; the fake answers none here
    assert any("sparse" in c[1] for c in state.calls if c[0] == "query")
