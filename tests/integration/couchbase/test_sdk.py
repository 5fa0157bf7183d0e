"""Integration layer (Couchbase SDK, no server): importing cbmemory and the store module does not import the
SDK (checked in a fresh interpreter), and the real SDK's connect to a closed local port fails fast with a
clear error."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from cbmemory.errors import (
    StoreUnavailableError,
)
from cbmemory.store.couchbase import CouchbaseStore


def test_importing_cbmemory_and_the_store_module_does_not_import_the_sdk():
    code = ("import sys, cbmemory, cbmemory.store.couchbase, cbmemory.store.couchbase.requests; "
            "assert 'couchbase' not in sys.modules, sorted(m for m in sys.modules if m.startswith('couchbase'))")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.enable_socket  # the SDK's C++ core really dials 127.0.0.1 (a closed port) to prove fail-fast
def test_unreachable_cluster_fails_fast_with_a_clear_error():
    start = time.monotonic()
    with pytest.raises(StoreUnavailableError, match=r"couchbase://127\.0\.0\.1:1 did not answer within 0\.5s"):
        CouchbaseStore.connect("couchbase://127.0.0.1:1", "user", "secret", "cbm", timeout=0.5)
    assert time.monotonic() - start < 10
