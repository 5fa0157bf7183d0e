"""Integration layer (issue 29 item 9): ``CbMemoryChatMemory.put`` reads what it needs to number the turn it
stores (the stored copies of that message), not the whole session: a 20,000-turn session was read whole,
20,004 records, on every ``put``. A real SQLite file; hashed dense vectors (what is read is under test, not
retrieval)."""

from __future__ import annotations

import hashlib

import numpy as np
from llama_index.core.base.llms.types import ChatMessage

from cbmemory import AgentMemory
from llamaindex_cbmemory import CbMemoryChatMemory

TURNS = 600


class Hashed:
    name, dimension = "hash-8", 8

    def embed(self, texts):
        return np.array([np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], np.uint8) / 255.0 + 0.01
                         for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return self.embed([text])[0]


class Counting:
    """Counts the records the memory's listing and lookups hand back."""

    def __init__(self, memory):
        self.read = 0
        self.whole = 0
        listing, lookup = memory.session_records, memory.store.get_records

        def session_records(*args, **kwargs):
            out = listing(*args, **kwargs)
            self.read += len(out)
            self.whole += kwargs.get("limit") is None
            return out

        def get_records(*args, **kwargs):
            out = lookup(*args, **kwargs)
            self.read += len(out)
            return out

        memory.session_records, memory.store.get_records = session_records, get_records


def test_put_reads_the_stored_copies_of_its_message_not_the_session(tmp_path):
    with AgentMemory.open(tmp_path / "m.db", embedder=Hashed()) as memory:
        chat = CbMemoryChatMemory(memory=memory, user_id="alice", session_id="s1", window=0)
        chat.set([ChatMessage(role="user" if i % 2 == 0 else "assistant", content=f"turn {i}")
                  for i in range(TURNS)])
        chat.put(ChatMessage(role="user", content="ok"))
        chat.put(ChatMessage(role="assistant", content="Noted."))
        reads = Counting(memory)
        chat.put(ChatMessage(role="user", content="ok"))  # said again: stored again, numbered after the first
        assert reads.whole == 0 and reads.read <= 4  # old: the whole session, 602 records
        texts = [r.text for r in memory.session_records("alice", "s1")]
    assert len(texts) == TURNS + 3 and texts[-3:] == ["ok", "Noted.", "ok"]
