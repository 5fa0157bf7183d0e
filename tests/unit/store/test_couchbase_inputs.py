"""Unit layer (store.couchbase): the contract's bad search and read inputs (tests/contract/
search_input_contract.py ``BAD_CALLS``) are refused by ``MemoryStore`` before the Couchbase store sends
anything, against the in-process fake of the SDK (tests/support/couchbase_fake.py): no KV read, no SQL++
statement, no Search request. The fake is not a backend: the answers to good inputs are the live contract's
to check (tests/integration/couchbase/test_live_contract.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from tests.contract.search_input_contract import BAD_CALLS


@pytest.fixture
def sparse_store(store, state):
    store.bind_sparse_encoder("test-sparse")
    state.calls.clear()
    return store


@pytest.mark.parametrize("name, call", BAD_CALLS, ids=[name for name, _ in BAD_CALLS])
def test_bad_inputs_are_refused_before_anything_is_sent(sparse_store, state, name, call):
    query = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)  # the store's dimension is 4
    with pytest.raises(InvalidInputError):
        call(sparse_store, query)
    assert state.calls == []
