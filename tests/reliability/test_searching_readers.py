"""Reliability layer: real processes on a real SQLite file, extending test_crash_and_concurrency: readers
searching (vector and full text) while writers append never see half a batch nor another user's record. (A
process killed inside a forget: test_erasure_on_disk.)"""

from __future__ import annotations

import pytest

from cbmemory import AgentMemory
from cbmemory.store import SQLiteStore

from .test_crash_and_concurrency import spawn
from .workers import HashEmbedder


@pytest.mark.process
def test_searching_readers_never_see_half_a_batch_nor_another_user(tmp_path):
    path = tmp_path / "shared.db"
    AgentMemory.open(path, embedder=HashEmbedder()).close()
    writers, turns, per_call = 4, 48, 6
    procs = [spawn("append", str(path), str(w), str(turns), str(per_call)) for w in range(writers)]
    readers = [spawn("search-read", str(path), "10", str(per_call))]
    for p in procs:
        assert p.communicate(timeout=300)[0].strip() == "done"
    for r in readers:
        out = r.communicate(timeout=300)[0].strip().split()
        assert out[:2] == ["partial", "0"] and int(out[3]) > 0, out
    store = SQLiteStore(path)
    for w in range(writers):
        assert store.count(f"user-{w}") == turns
    assert len({r.text for r in store.list_records("shared-user")}) == writers * turns
    store.close()
