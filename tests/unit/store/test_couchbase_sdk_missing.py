"""Unit layer: without the Couchbase SDK, the Couchbase store says which extra to install
(``MissingDependencyError`` naming ``cbmemory[couchbase]``), not a raw ``ModuleNotFoundError``. The SDK is
hidden (``sys.modules["couchbase"] = None``), so nothing is dialled."""

from __future__ import annotations

import sys

import pytest

from cbmemory import MissingDependencyError
from cbmemory.store import CouchbaseStore
from cbmemory.store.couchbase.client import sdk_exceptions


@pytest.fixture
def no_sdk(monkeypatch):
    for name in [m for m in sys.modules if m == "couchbase" or m.startswith("couchbase.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "couchbase", None)  # import couchbase -> ModuleNotFoundError


def test_connect_without_the_sdk_names_the_extra(no_sdk):
    with pytest.raises(MissingDependencyError, match=r'pip install "cbmemory\[couchbase\]"') as caught:
        CouchbaseStore.connect("couchbase://127.0.0.1", "user", "secret", "cbm", timeout=0.5)
    assert isinstance(caught.value, ImportError) and caught.value.name == "couchbase"


def test_the_sdk_s_exceptions_without_the_sdk_name_the_extra(no_sdk):
    with pytest.raises(MissingDependencyError, match=r"cbmemory\[couchbase\]"):
        sdk_exceptions()
