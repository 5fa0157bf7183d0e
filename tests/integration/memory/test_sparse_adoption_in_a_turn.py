"""Integration layer (issue 29 item 9): a writer that adopts the sparse binding another process made gives the
store's older records their sparse vectors a bounded number per agent save (``FILL_PER_TURN``), not all of
them inside one save (68 s measured on a large store), and its agent's recall never fills (it never writes).
A real SQLite file and the real SPLADE-tiny encoder; hashed dense vectors (the backfill is under test, not
retrieval)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from cbmemory import AgentMemory, Message
from cbmemory.memory.sparse import FILL_PER_TURN
from cbmemory.recipes import RECIPES
from cbmemory.store import SQLiteStore

ENCODER = RECIPES["default_sparse"].ingest.sparse
OLD = FILL_PER_TURN + 150  # records stored before the binding


class Hashed:
    name, dimension = "hash-8", 8

    def embed(self, texts):
        return np.array([np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) / 255.0 + 0.01
                         for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return self.embed([text])[0]


@pytest.mark.heavy
def test_an_adopting_save_fills_a_bounded_part_and_later_saves_the_rest(tmp_path):
    path = tmp_path / "shared.db"
    with AgentMemory.open(path, embedder=Hashed()) as a:  # no sparse encoder: its records have no vector
        a.add_session("alice", "s1", [{"role": "user", "content": f"note {i}: I like topic {i}."}
                                      for i in range(OLD)], date="2024-03-01")
        with SQLiteStore(path) as other:  # another process binds SPLADE and fills nothing yet
            other.bind_sparse_encoder(ENCODER)
        a.recall("What do I like?", "alice", recipe="default_sparse")  # never writes: fills nothing
        assert len(a.store.records_without_sparse("alice")) == OLD
        assert a.save("alice", "s2", [Message("user", "I moved to Lyon.")]) is not None  # adopts, stores
        left = len(a.store.records_without_sparse("alice"))
        assert left == OLD - FILL_PER_TURN  # old: 0, every record encoded inside this one save
        assert a.session_records("alice", "s2")[0].text == "I moved to Lyon."
        a.save("alice", "s2", [Message("user", "She works at the museum.")])
        assert a.store.records_without_sparse("alice") == []  # the rest at the next save
