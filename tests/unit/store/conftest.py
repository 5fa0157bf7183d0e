"""Fixtures of the Couchbase store's unit tests (unit layer: the SDK is the in-process fake)."""

import pytest

from tests.support.couchbase_fake import FakeState, bound_store


@pytest.fixture
def state():
    return FakeState()


@pytest.fixture
def store(state):
    """A Couchbase store over ``state`` bound to an embedder of 4 dimensions only, its calls forgotten."""
    return bound_store(state, 4)
