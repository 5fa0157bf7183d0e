"""Reliability layer: tenants of one SQLite file cannot affect each other. Real SQLite files; the store is
under test, so vectors are hand-made (full text is what these tests are about).

A user's full-text scores are computed from that user's records only (statistics and cost), and the
embedding cache is looked up per user, so neither a score nor a write's speed tells what another user said.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store import SQLiteStore, lexical
from cbmemory.store.signals import Signal

from .workers import HashEmbedder

T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
DIM = 8


def write(store: SQLiteStore, user: str, session: str, texts: list[str]) -> None:
    msgs = validate_messages([{"role": "user", "content": t} for t in texts])
    recs = build_records(user, session, msgs, T0, NOW)
    vecs = np.ones((len(recs), DIM), np.float32) / np.sqrt(DIM)
    store.write([Session(user, session, T0)], recs, vecs)


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "tenants.db")
    s.bind_embedder("test", DIM)
    yield s
    s.close()


MINE = ["I found a zanzibarite crystal on the beach", "we had pasta for dinner", "the cat sleeps all day"]


@pytest.mark.parametrize("others", [0, 1, 10, 40])
def test_a_users_full_text_scores_ignore_other_tenants(store, others):
    write(store, "alice", "s1", MINE)
    alone = [(h.record.text, h.score) for h in store.search(Signal.BM25, "alice", "zanzibarite beach", 5, now=NOW)]
    if others:
        write(store, "mallory", "s1", ["zanzibarite zanzibarite beach"] * others + ["filler words"] * 3)
    got = [(h.record.text, h.score) for h in store.search(Signal.BM25, "alice", "zanzibarite beach", 5, now=NOW)]
    assert got == alone  # exactly the same scores, whatever the other tenant said
    assert got and got[0][0] == MINE[0]
    phrase = store.search(Signal.ENTITY, "alice", ["zanzibarite crystal"], 5, now=NOW)
    assert [h.record.text for h in phrase] == [MINE[0]]


def test_bm25_is_fts5s_formula_over_the_users_records(tmp_path, store):
    """Our BM25 equals SQLite FTS5's bm25() on a table holding just this user's two fields, for words
    both tokenisers stem alike: the scores users saw before are kept, only their statistics changed."""
    texts = ["apples and pears", "apples apples everywhere", "a pear tree in the garden", "garden party",
             "nothing here", "apples in the garden with pears"]
    write(store, "alice", "s1", texts)
    write(store, "bob", "s1", ["apples"] * 20)  # must not matter
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE f USING fts5(index_text, text, tokenize='porter unicode61 remove_diacritics 2')")
    for r in store.list_records("alice", now=NOW):
        con.execute("INSERT INTO f VALUES (?, ?)", (r.index_text, r.text))
    for query in ("apples", "garden pears", "tree party apples"):
        match = " OR ".join(f'"{w}"' for w in query.split())
        fts = sorted(-s for (s,) in con.execute("SELECT bm25(f) FROM f WHERE f MATCH ?", (match,)))
        ours = sorted(h.score for h in store.search(Signal.BM25, "alice", query, 10, now=NOW))
        assert ours == pytest.approx(fts, rel=1e-9)


def test_search_cost_reads_only_the_users_own_records(store):
    """The other tenant's matches are never read: the user's full-text index holds only the user's terms."""
    write(store, "alice", "s1", ["apples are my favourite"])
    write(store, "mallory", "s1", [f"apples number {i}" for i in range(3000)])
    store.search(Signal.BM25, "alice", "apples", 5, now=NOW)
    store.search(Signal.BM25, "mallory", "apples", 5, now=NOW)
    cols = store._db.cache.get("alice")
    assert cols is not None and cols.n == 1 and cols.lexical.n == 1
    apples = lexical.query_terms(["apples"])
    # once in each of the record's two fields (indexed text and raw turn), and nowhere else
    assert np.count_nonzero(cols.lexical.seq[: cols.lexical.size] == apples[0]) == 2


def test_embedding_cache_is_per_user(tmp_path):
    embedder = HashEmbedder()
    calls = []
    inner_embed = embedder.embed

    def counting(texts):
        calls.append(len(texts))
        return inner_embed(texts)

    embedder.embed = counting
    with AgentMemory.open(tmp_path / "m.db", embedder=embedder) as memory:
        turns = [{"role": "user", "content": f"turn {i}", "turn_id": f"t{i}"} for i in range(8)]
        memory.add_session("alice", "s1", turns, date=T0)
        assert sum(calls) == 16  # each turn's indexed text, and what it states (kept for the current-value stage)
        memory.add_session("mallory", "s1", turns, date=T0)  # the same texts: embedded again, not cached
        assert sum(calls) == 32
        memory.add_session("alice", "s1", turns, date=T0)  # alice's own re-ingest: from her cache
        assert sum(calls) == 32
    with AgentMemory.open(tmp_path / "m.db", embedder=embedder) as memory:  # a new process: from the file
        memory.add_session("alice", "s2", turns, date=T0)
        assert sum(calls) == 32
