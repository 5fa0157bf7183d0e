"""Integration layer: the store contract, run against a real Couchbase Server (7.6+) or Capella cluster.

Runs when ``CBMEMORY_COUCHBASE_URL`` is set (with ``CBMEMORY_COUCHBASE_USER``, ``_PASSWORD`` and
``_BUCKET``, an existing bucket the user may create scopes, collections and indexes in); skipped with that
reason otherwise. Every test gets a fresh scope (``cbm_<random>``) with its own collections and Search
index, dropped afterwards. No fixed sleeps: the store polls, with a deadline, until
new collections and indexes answer, and its searches wait (``at_plus``) for its own writes to be indexed.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory.errors import EmbedderMismatchError
from cbmemory.store.couchbase import CouchbaseStore
from tests.contract.neighbours_contract import NeighboursContract
from tests.contract.store_contract import DIM, StoreContract, session_batch, unit

URL = os.environ.get("CBMEMORY_COUCHBASE_URL")
REASON = ("set CBMEMORY_COUCHBASE_URL (and CBMEMORY_COUCHBASE_USER, CBMEMORY_COUCHBASE_PASSWORD, "
          "CBMEMORY_COUCHBASE_BUCKET) to run the store contract against a Couchbase cluster")

if not URL:
    pytest.skip(REASON, allow_module_level=True)  # one line in the report, not one per test

pytestmark = [pytest.mark.couchbase, pytest.mark.enable_socket]


def _bucket() -> str:
    return os.environ.get("CBMEMORY_COUCHBASE_BUCKET", "cbmemory")


@pytest.fixture(scope="module")
def cluster():
    store = CouchbaseStore.connect(URL, os.environ.get("CBMEMORY_COUCHBASE_USER", "Administrator"),
                                   os.environ.get("CBMEMORY_COUCHBASE_PASSWORD", "password"), _bucket(),
                                   timeout=float(os.environ.get("CBMEMORY_COUCHBASE_TIMEOUT", "20")))
    yield store.cluster
    store.close()


@pytest.fixture
def fresh_store(cluster):
    """A store in a scope of its own, dropped (with its collections and indexes) afterwards."""
    made = []

    def make(**kw):
        scope = kw.pop("scope", f"cbm_{uuid.uuid4().hex[:12]}")
        s = CouchbaseStore(cluster, _bucket(), scope=scope, **kw)
        made.append(s)
        return s

    yield make
    for s in made:
        bucket = cluster.bucket(_bucket())
        try:
            bucket.scope(s.scope_name).search_indexes().drop_index(s.index_name)
        except Exception:  # noqa: BLE001 - the scope may never have got an index
            pass
        try:
            bucket.collections().drop_scope(s.scope_name)
        except Exception:  # noqa: BLE001
            pass
        s.close()


class TestCouchbaseStoreContract(StoreContract, NeighboursContract):
    @pytest.fixture
    def store(self, fresh_store):
        return fresh_store()


def _write(store, user, session, texts, vectors, **kw):
    sess, recs = session_batch(user, session, texts, **kw)
    store.write([sess], recs, np.stack(vectors))
    return recs


def test_existing_index_with_another_dimension_is_refused(fresh_store):
    first = fresh_store()
    first.bind_embedder("test-embedder", DIM)
    other = fresh_store(scope=first.scope_name, users_collection="users2")
    with pytest.raises(EmbedderMismatchError):
        other.bind_embedder("test-embedder", DIM + 1)


def test_server_enforces_document_expiry(fresh_store):
    store = fresh_store()
    store.bind_embedder("test-embedder", DIM)
    soon = datetime.now(timezone.utc) + timedelta(seconds=2)
    recs = _write(store, "u1", "s1", ["fleeting"], [unit(0)], expires_at=soon)
    assert store.get_records("u1", [recs[0].record_id])  # there before its expiry...
    deadline = time.monotonic() + 60
    while store.get_records("u1", [recs[0].record_id]):  # ...and gone after it, by the server's clock
        assert time.monotonic() < deadline, "the document outlived its expiry by a minute"
        time.sleep(0.5)
