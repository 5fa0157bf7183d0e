"""Contract layer: the embedded SQLite store (a real file in WAL mode) against the store contract, and what
the contract leaves to each backend: the order of ties (the earlier written first) and how sparse vectors
are kept in step between two stores on one file."""

import sqlite3

import numpy as np
import pytest

from cbmemory.errors import EmbedderMismatchError, InvalidInputError
from cbmemory.store import SQLiteStore

from .store_contract import NOW, StoreContract, session_batch, sparse, unit


class TestSQLiteStoreContract(StoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        s = SQLiteStore(tmp_path / "contract.db")
        yield s
        s.close()


def texts(hits):
    return [h.record.text for h in hits]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "sparse.db"
    with SQLiteStore(path) as s:
        s.bind_embedder("test-embedder", 8)
        s.bind_sparse_encoder("test-sparse")
    return path


def write(store, user, session, items, **kw):
    """``items``: text -> sparse weights; every record gets the same dense vector."""
    sess, recs = session_batch(user, session, list(items), **kw)
    vectors = np.stack([unit(0)] * len(recs))
    return store.write([sess], recs, vectors, sparse=[sparse(w) for w in items.values()]), recs


def test_sparse_ties_come_in_the_order_records_were_written(db):
    with SQLiteStore(db) as s:
        write(s, "u1", "s2", {"first": {1: 1.0}, "second": {1: 1.0, 2: 0.0}})
        write(s, "u1", "s1", {"third": {1: 1.0}, "best": {1: 2.0}})
        hits = s.sparse_search("u1", sparse({1: 1.0, 2: 5.0}), 10, now=NOW)
        assert texts(hits) == ["best", "first", "second", "third"]
        assert [h.ranks["sparse"] for h in hits] == [1, 2, 3, 4]


def test_an_unchanged_record_written_again_keeps_its_stored_sparse_vector(db):
    with SQLiteStore(db) as s:
        write(s, "u1", "s1", {"same text": {1: 1.0}})
        res, _ = write(s, "u1", "s1", {"same text": {2: 1.0}})
        assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 1)
        assert texts(s.sparse_search("u1", sparse({1: 1.0}), 5, now=NOW)) == ["same text"]
        assert s.sparse_search("u1", sparse({2: 1.0}), 5, now=NOW) == []


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3", None])
def test_sparse_search_refuses_a_bad_k(db, k):
    with SQLiteStore(db) as s, pytest.raises(InvalidInputError, match="k must be"):
        s.sparse_search("u1", sparse({1: 1.0}), k)


@pytest.mark.parametrize("query", [{1: 1.0}, np.ones(3), [(1, 1.0)], None])
def test_sparse_search_refuses_a_query_that_is_not_a_sparse_vector(db, query):
    with SQLiteStore(db) as s, pytest.raises(InvalidInputError, match="SparseVector"):
        s.sparse_search("u1", query, 5)


def test_sparse_vectors_are_stored_as_little_endian_int32_ids_and_float32_weights(db):
    with SQLiteStore(db) as s:
        _, recs = write(s, "u1", "s1", {"one": {3: 0.5, 70000: 2.0}, "none": {}})
        assert s.stats()["sparse_records"] == 2 and s.stats()["sparse_encoder"] == "test-sparse"
    con = sqlite3.connect(db)
    rows = dict((r[0], r[1:]) for r in con.execute("SELECT text, sparse_ids, sparse_weights FROM records"))
    con.close()
    assert rows["one"] == (np.array([3, 70000], "<i4").tobytes(), np.array([0.5, 2.0], "<f4").tobytes())
    assert rows["none"] == (b"", b"")


def test_a_store_without_a_sparse_encoder_stores_no_sparse_columns(tmp_path):
    with SQLiteStore(tmp_path / "plain.db") as s:
        s.bind_embedder("test-embedder", 8)
        sess, recs = session_batch("u1", "s1", ["one"])
        s.write([sess], recs, np.stack([unit(0)]))
        assert s.stats()["sparse_records"] == 0 and s.stats()["sparse_encoder"] is None
    con = sqlite3.connect(tmp_path / "plain.db")
    assert con.execute("SELECT sparse_ids, sparse_weights FROM records").fetchall() == [(None, None)]
    con.close()


def test_a_second_store_on_the_file_sees_sparse_writes_and_erasures(db):
    """Two stores on one file, as two processes would hold it: a warm in-memory index follows the other's
    appends, replacements and erasures on its next search."""
    with SQLiteStore(db) as a, SQLiteStore(db) as b:
        q = sparse({1: 1.0})
        write(a, "u1", "s1", {"one": {1: 1.0}})
        assert texts(b.sparse_search("u1", q, 5, now=NOW)) == ["one"]  # b's index is warm
        write(a, "u1", "s2", {"two": {1: 2.0}})
        assert texts(b.sparse_search("u1", q, 5, now=NOW)) == ["two", "one"]
        write(a, "u1", "s2", {"two, changed": {1: 0.5}})  # replaces the record of position 0
        assert texts(b.sparse_search("u1", q, 5, now=NOW)) == ["one", "two, changed"]
        a.forget("u1", "s1")
        assert texts(b.sparse_search("u1", q, 5, now=NOW)) == ["two, changed"]
        a.forget("u1")
        assert b.sparse_search("u1", q, 5, now=NOW) == []


def test_a_sparse_encoder_bound_by_another_store_refuses_its_writes_without_sparse_vectors(tmp_path):
    """A store that checked no sparse encoder was bound, and then another bound one (on an empty file)
    before it wrote: the write is refused inside its transaction, so no record escapes sparse search."""
    path = tmp_path / "race.db"
    with SQLiteStore(path) as a, SQLiteStore(path) as b:
        a.bind_embedder("test-embedder", 8)
        sess, recs = session_batch("u1", "s1", ["one"])
        b.bind_sparse_encoder("test-sparse")
        with pytest.raises(InvalidInputError):
            a._write([sess], recs, np.stack([unit(0)]), "merge", None)  # as write() after its check
        assert a.count("u1") == 0


def test_a_read_only_store_only_checks_the_sparse_encoder(db, tmp_path):
    with SQLiteStore(db) as s:
        write(s, "u1", "s1", {"one": {1: 1.0}})
    with SQLiteStore(db, read_only=True) as ro:
        ro.bind_sparse_encoder("test-sparse")
        with pytest.raises(EmbedderMismatchError):
            ro.bind_sparse_encoder("other-sparse")
        assert texts(ro.sparse_search("u1", sparse({1: 1.0}), 5, now=NOW)) == ["one"]
    plain = tmp_path / "plain.db"
    with SQLiteStore(plain) as s:
        s.bind_embedder("test-embedder", 8)
    with SQLiteStore(plain, read_only=True) as ro:
        ro.bind_sparse_encoder("test-sparse")  # an empty store: nothing to refuse, nothing recorded
        assert ro.bound_sparse_encoder is None
    with SQLiteStore(plain) as s:
        assert s.bound_sparse_encoder is None
        sess, recs = session_batch("u1", "s1", ["no sparse vector"])
        s.write([sess], recs, np.stack([unit(0)]))
    with SQLiteStore(plain, read_only=True) as ro, pytest.raises(InvalidInputError):
        ro.bind_sparse_encoder("test-sparse")  # as a writable store would refuse it
