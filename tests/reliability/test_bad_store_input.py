"""Reliability layer: bad input at the store and configuration level, extending the facade's catalogue in
tests/reliability/test_bad_input.py. Each kind raises a typed ``CbMemoryError`` and stores nothing."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.dates import to_utc, utcnow
from cbmemory.errors import (
    CbMemoryError,
    EmbedderMismatchError,
    InvalidDateError,
    InvalidInputError,
    NotAStoreError,
)
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.retrieval.config import RetrievalConfig
from cbmemory.store import SQLiteStore
from cbmemory.store.signals import Signal

from .workers import HashEmbedder

DAY = to_utc("2023-05-07")


def rows(n: int = 2, user: str = "alice"):
    msgs = validate_messages([{"role": "user", "content": f"message {i}"} for i in range(n)])
    return [Session(user, "s1", DAY)], build_records(user, "s1", msgs, DAY, utcnow())


def good_vectors(n: int = 2) -> np.ndarray:
    return HashEmbedder().embed([f"message {i}" for i in range(n)])


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "s.db")
    yield s
    s.close()


def _write(store, **change):
    sessions, records = rows()
    args = {"sessions": sessions, "records": records, "vectors": good_vectors(), **change}
    store.write(args["sessions"], args["records"], args["vectors"])


STORE_WRITES = [
    ("write before an embedder is bound", False, {}),
    ("vectors of the wrong dimension", True, {"vectors": np.ones((2, 8), np.float32)}),
    ("fewer vectors than records", True, {"vectors": good_vectors(1)}),
    ("NaN in a vector", True, {"vectors": np.full((2, 16), np.nan, np.float32)}),
    ("infinity in a vector", True, {"vectors": np.full((2, 16), np.inf, np.float32)}),
    ("the same record twice in a batch", True, {"records": rows()[1][:1] * 2, "vectors": good_vectors(2)}),
]


@pytest.mark.parametrize("name, bind, change", STORE_WRITES, ids=[c[0] for c in STORE_WRITES])
def test_bad_writes_are_refused_whole(store, name, bind, change):
    if bind:
        store.bind_embedder(HashEmbedder.name, 16)
    with pytest.raises(InvalidInputError):
        _write(store, **change)
    assert store.count() == 0 and store.list_sessions("alice") == []


@pytest.mark.parametrize("vector", [np.ones(8), np.full(16, np.nan), np.array([np.inf] * 16), np.ones((2, 16))],
                         ids=["wrong dimension", "NaN", "infinity", "a matrix"])
def test_bad_query_vectors_are_refused(store, vector):
    store.bind_embedder(HashEmbedder.name, 16)
    _write(store)
    with pytest.raises(InvalidInputError):
        store.search(Signal.VECTOR, "alice", vector, 5)


def _other_app(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes (x)")
    con.commit()
    con.close()


def _wrong_version(path):
    SQLiteStore(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.commit()
    con.close()


@pytest.mark.parametrize("make", [
    lambda p: p.mkdir(),
    lambda p: p.write_bytes(b"this is a text file, not a database\n" * 100),
    _other_app,
    _wrong_version,
], ids=["a directory", "a text file", "another application's SQLite file", "an unknown schema version"])
def test_files_that_are_not_stores_are_refused(tmp_path, make):
    path = tmp_path / "x.db"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(NotAStoreError):
        SQLiteStore(path)
    if before is not None:
        assert path.read_bytes() == before  # left as it was


def test_another_embedder_is_refused(tmp_path, scripted):
    path = tmp_path / "m.db"
    with AgentMemory.open(path, embedder=HashEmbedder()) as m:
        m.add_session("alice", "s1", [{"role": "user", "content": "hello"}], date="2023-05-07")
    with pytest.raises(EmbedderMismatchError):
        AgentMemory.open(path, embedder=scripted(name="other", dimension=16))
    store = SQLiteStore(path)
    with pytest.raises(EmbedderMismatchError):
        store.bind_embedder(HashEmbedder.name, 32)
    assert store.count() == 1
    store.close()


FACADE = [
    ("the same session twice in a batch", lambda m: m.add_sessions(
        "alice", [("s1", [{"role": "user", "content": "a"}], "2023-05-07"),
                  ("s1", [{"role": "user", "content": "b"}], "2023-05-07")]), InvalidInputError),
    ("no sessions at all", lambda m: m.add_sessions("alice", []), InvalidInputError),
    ("annotations not a mapping", lambda m: m.add_session("alice", "s1", [{"role": "user", "content": "a"}],
                                                          annotations=["k", "v"]), InvalidInputError),
    ("unparseable expiry", lambda m: m.add_session("alice", "s1", [{"role": "user", "content": "a"}],
                                                   expires_at="when the cows come home"), InvalidDateError),
    ("zero ttl", lambda m: m.add_session("alice", "s1", [{"role": "user", "content": "a"}], ttl=timedelta(0)),
     InvalidInputError),
    ("message not a dict or Message", lambda m: m.add_session("alice", "s1", ["hello"]), InvalidInputError),
    ("unknown recipe", lambda m: m.search("hello", "alice", recipe="magic"), InvalidInputError),
    ("k is a bool", lambda m: m.search("hello", "alice", k=True), InvalidInputError),
    ("bad signal in a config", lambda m: RetrievalConfig(signals=("telepathy",)), InvalidInputError),
    ("bad fusion in a config", lambda m: RetrievalConfig(fusion="average"), InvalidInputError),
    ("appending to a session with a bad turn", lambda m: m.add_messages(
        "alice", "s1", [{"role": "user", "content": "ok"}, {"role": "robot", "content": "x"}]), InvalidInputError),
]


@pytest.mark.parametrize("name, call, error", FACADE, ids=[c[0] for c in FACADE])
def test_bad_facade_calls_are_typed_errors_and_store_nothing(tmp_path, name, call, error):
    with AgentMemory.open(tmp_path / "m.db", embedder=HashEmbedder()) as m:
        with pytest.raises(error) as info:
            call(m)
        assert isinstance(info.value, CbMemoryError) and str(info.value)
        assert m.store.count() == 0 and m.store.list_sessions("alice") == []


def test_catalogue_size():
    from tests.reliability.test_bad_input import CASES

    kinds = len(CASES) + len(STORE_WRITES) + 4 + 4 + 1 + len(FACADE)
    assert kinds >= 45, kinds
