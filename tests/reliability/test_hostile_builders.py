"""Reliability layer: the SQLite query builders run each of the hostile strings (tests/support/hostile.py) on
a real file without error, and no search, by any recipe, returns another user's record, even for a hostile
user id. (That each builder keeps the strings as plain values: tests/unit/store/test_hostile_builders.py.)"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import pytest

from cbmemory import AgentMemory
from cbmemory.models import SearchFilters
from cbmemory.store.signals import Signal
from cbmemory.store.sqlite import sql as sq
from tests.support.hostile import HOSTILE

from .workers import HashEmbedder

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _evil_filters(evil: str) -> SearchFilters:
    return SearchFilters(session_ids=(evil, "s1"), kinds=(evil, "turn"), annotations={evil: evil})


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    m = AgentMemory.open(tmp_path_factory.mktemp("hostile") / "h.db", embedder=HashEmbedder())
    m.add_session("alice", "s1", [{"role": "user", "content": "alice secret text NEAR records OR bob"},
                                  {"role": "user", "content": "alice: the password is hunter2 * ( ) \" '"}],
                  date="2023-05-07")
    m.add_session("bob", "s1", [{"role": "user", "content": "bob text about records and words"}],
                  date="2023-05-07")
    yield m
    m.close()


@pytest.mark.parametrize("evil", HOSTILE)
def test_sqlite_builders_run_without_error_and_never_leak(memory, evil):
    store = memory.store
    con: sqlite3.Connection = store._db.conn
    where, params = sq.filter_clause("bob", _evil_filters(evil), NOW.timestamp())
    assert con.execute(f"SELECT count(*) FROM records r WHERE {where}", params).fetchone()[0] == 0
    vec = HashEmbedder().embed([evil or "x"])[0]
    for filters in (SearchFilters(), _evil_filters(evil), SearchFilters(session_ids=(evil,))):
        hits = (store.search(Signal.BM25, "bob", evil, 10, filters) + store.search(Signal.ENTITY, "bob", [evil], 10, filters)
                + store.search(Signal.VECTOR, "bob", vec, 10, filters))
        assert all(h.record.user_id == "bob" for h in hits)
        assert all(h.record.session_id == "s1" for h in hits)
    for recipe in ("default", "hybrid", "bm25", "vector_bm25_rerank_10", "recency"):
        hits = memory.search(evil, "bob", k=5, recipe=recipe)
        assert all(h.record.user_id == "bob" and "alice" not in h.record.text for h in hits)
    assert store.count() == 3


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_user_ids_find_nothing(memory, evil):
    """A user id that looks like SQL or a wildcard matches no one (an empty one is refused)."""
    store = memory.store
    vec = HashEmbedder().embed(["records"])[0]
    assert store.search(Signal.BM25, evil, "records text", 10) == []
    assert store.search(Signal.VECTOR, evil, vec, 10) == []
    assert store.list_records(evil) == [] and store.get_records(evil, ["x"]) == []
    if evil.strip() and "\n" not in evil and "\t" not in evil and "\u2028" not in evil and len(evil) <= 256:
        assert memory.search("records text", evil) == []
