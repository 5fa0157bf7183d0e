"""Contract layer: the embedded SQLite store (a real file in WAL mode) against the store contract, and what
the contract leaves to each backend: the order of ties (the earlier written first), how sparse vectors
(written, erased, or given later by set_sparse) are kept in step between two stores on one file, and what a
read-only store does with them."""

import sqlite3

import numpy as np
import pytest

from cbmemory.errors import EmbedderMismatchError, InvalidInputError, ReadOnlyStoreError
from cbmemory.models import SearchFilters
from cbmemory.store import SQLiteStore
from cbmemory.store.inputs import MAX_SEARCH_K
from cbmemory.store.signals import Signal
from cbmemory.store.sqlite import sql as q
from cbmemory.store.sqlite import write as w

from .neighbours_contract import NeighboursContract
from .store_contract import NOW, StoreContract, session_batch, sparse, unit


class TestSQLiteStoreContract(StoreContract, NeighboursContract):
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


def test_sparse_terms_are_answered_from_the_users_columns(db):
    """The embedded store says (never ``None``): the user's terms, kept in step with a write by another store
    on the file, an expired record's terms kept until it is purged (a superset is all the contract asks)."""
    with SQLiteStore(db) as s, SQLiteStore(db) as other:
        write(s, "u1", "s1", {"one": {3: 1.0, 8: 0.5}})
        write(s, "u2", "s1", {"theirs": {4: 1.0}})
        assert s.sparse_terms("u1").tolist() == [3, 8]
        write(other, "u1", "s2", {"two": {1: 1.0, 8: 1.0}}, expires_at=NOW)
        assert s.sparse_terms("u1").tolist() == [1, 3, 8]
        terms = s.sparse_terms("u1")
        assert s.sparse_terms("u1") is terms and not terms.flags.writeable  # the same array until a write
        assert s.purge_expired() == 1
        assert s.sparse_terms("u1").tolist() == [3, 8]
        assert s.sparse_terms("u2").tolist() == [4] and s.sparse_terms("nobody").tolist() == []


def test_sparse_ties_come_in_the_order_records_were_written(db):
    with SQLiteStore(db) as s:
        write(s, "u1", "s2", {"first": {1: 1.0}, "second": {1: 1.0, 2: 0.0}})
        write(s, "u1", "s1", {"third": {1: 1.0}, "best": {1: 2.0}})
        hits = s.search(Signal.SPARSE, "u1", sparse({1: 1.0, 2: 5.0}), 10, now=NOW)
        assert texts(hits) == ["best", "first", "second", "third"]
        assert [h.ranks["sparse"] for h in hits] == [1, 2, 3, 4]


def test_an_unchanged_record_written_again_keeps_its_stored_sparse_vector(db):
    with SQLiteStore(db) as s:
        write(s, "u1", "s1", {"same text": {1: 1.0}})
        res, _ = write(s, "u1", "s1", {"same text": {2: 1.0}})
        assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 1)
        assert texts(s.search(Signal.SPARSE, "u1", sparse({1: 1.0}), 5, now=NOW)) == ["same text"]
        assert s.search(Signal.SPARSE, "u1", sparse({2: 1.0}), 5, now=NOW) == []


def test_every_search_takes_k_up_to_its_bound(db):
    """(Bad k and queries, on every backend: search_input_contract.py. The Couchbase store asks its Search
    service for ``k * candidates_per_k`` rows, which the service's result window may not allow at this k.)"""
    with SQLiteStore(db) as s:
        write(s, "u1", "s1", {"alpha one": {1: 1.0}, "alpha two": {1: 2.0}})
        for hits in (s.search(Signal.VECTOR, "u1", unit(0), MAX_SEARCH_K), s.search(Signal.BM25, "u1", "alpha", MAX_SEARCH_K),
                     s.search(Signal.ENTITY, "u1", ["alpha"], MAX_SEARCH_K),
                     s.search(Signal.SPARSE, "u1", sparse({1: 1.0}), MAX_SEARCH_K)):
            assert sorted(texts(hits)) == ["alpha one", "alpha two"]
        with pytest.raises(InvalidInputError, match="k must be"):
            s.search(Signal.SPARSE, "u1", sparse({1: 1.0}), MAX_SEARCH_K + 1)


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
        assert texts(b.search(Signal.SPARSE, "u1", q, 5, now=NOW)) == ["one"]  # b's index is warm
        write(a, "u1", "s2", {"two": {1: 2.0}})
        assert texts(b.search(Signal.SPARSE, "u1", q, 5, now=NOW)) == ["two", "one"]
        write(a, "u1", "s2", {"two, changed": {1: 0.5}})  # replaces the record of position 0
        assert texts(b.search(Signal.SPARSE, "u1", q, 5, now=NOW)) == ["one", "two, changed"]
        a.forget("u1", "s1")
        assert texts(b.search(Signal.SPARSE, "u1", q, 5, now=NOW)) == ["two, changed"]
        a.forget("u1")
        assert b.search(Signal.SPARSE, "u1", q, 5, now=NOW) == []


def test_a_sparse_encoder_bound_by_another_store_refuses_its_writes_without_sparse_vectors(tmp_path):
    """A store that checked no sparse encoder was bound, and then another bound one (on an empty file)
    before it wrote: the write is refused inside its transaction, so no record escapes sparse search."""
    path = tmp_path / "race.db"
    with SQLiteStore(path) as a, SQLiteStore(path) as b:
        a.bind_embedder("test-embedder", 8)
        sess, recs = session_batch("u1", "s1", ["one"])
        b.bind_sparse_encoder("test-sparse")
        with pytest.raises(InvalidInputError):
            a._write([sess], recs, np.stack([unit(0)]), "merge", None, None)  # as write() after its check
        assert a.count("u1") == 0


def test_a_read_only_store_only_checks_the_sparse_encoder(db, tmp_path):
    with SQLiteStore(db) as s:
        write(s, "u1", "s1", {"one": {1: 1.0}})
    with SQLiteStore(db, read_only=True) as ro:
        ro.bind_sparse_encoder("test-sparse")
        with pytest.raises(EmbedderMismatchError):
            ro.bind_sparse_encoder("other-sparse")
        assert texts(ro.search(Signal.SPARSE, "u1", sparse({1: 1.0}), 5, now=NOW)) == ["one"]
    plain = tmp_path / "plain.db"
    with SQLiteStore(plain) as s:
        s.bind_embedder("test-embedder", 8)
        sess, recs = session_batch("u1", "s1", ["no sparse vector"])
        s.write([sess], recs, np.stack([unit(0)]))
    with SQLiteStore(plain, read_only=True) as ro:
        ro.bind_sparse_encoder("test-sparse")  # nothing to refuse (records or not), nothing recorded
        assert ro.bound_sparse_encoder is None
        assert ro.users_missing_sparse() == [] and ro.records_without_sparse("u1") == []
    with SQLiteStore(plain) as s:
        assert s.bound_sparse_encoder is None


def test_a_read_only_store_lists_records_without_sparse_vectors_and_refuses_to_set_them(tmp_path):
    path = tmp_path / "ro.db"
    with SQLiteStore(path) as s:
        s.bind_embedder("test-embedder", 8)
        sess, recs = session_batch("u1", "s1", ["one"])
        s.write([sess], recs, np.stack([unit(0)]))
        s.bind_sparse_encoder("test-sparse")
    with SQLiteStore(path, read_only=True) as ro:
        assert ro.users_missing_sparse() == ["u1"]
        assert [r.text for r in ro.records_without_sparse("u1")] == ["one"]
        with pytest.raises(ReadOnlyStoreError):
            ro.set_sparse("u1", {recs[0].record_id: sparse({1: 1.0})})
        with pytest.raises(ReadOnlyStoreError):  # refused as a write before its values are looked at
            ro.set_sparse("u1", {recs[0].record_id: "not a vector"})
    with SQLiteStore(path) as s:
        assert s.users_missing_sparse() == ["u1"]


def backlog(path):
    """A store whose records (u1: "one", "two"; u2: "theirs") were written before its sparse encoder."""
    with SQLiteStore(path) as s:
        s.bind_embedder("test-embedder", 8)
        for user, items in (("u1", ["one", "two"]), ("u2", ["theirs"])):
            sess, recs = session_batch(user, "s1", items)
            s.write([sess], recs, np.stack([unit(0)] * len(recs)))
        s.bind_sparse_encoder("test-sparse")


def test_a_second_store_on_the_file_sees_the_vectors_set_sparse_gives(tmp_path):
    """Two stores on one file, as two processes would hold it: set_sparse changes no row count, yet the
    other's warm index (and its cache of records read) follows it on its next search."""
    path = tmp_path / "backfill.db"
    backlog(path)
    q = sparse({1: 1.0})
    with SQLiteStore(path) as a, SQLiteStore(path) as b:
        assert b.search(Signal.SPARSE, "u1", q, 5, now=NOW) == []  # b's index is warm, without vectors
        assert len(b.search(Signal.VECTOR, "u1", unit(0), 5, now=NOW)) == 2
        ids = {r.text: r.record_id for r in a.records_without_sparse("u1")}
        assert a.set_sparse("u1", {ids["two"]: sparse({1: 2.0})}) == 1
        assert [(h.record.text, h.score) for h in b.search(Signal.SPARSE, "u1", q, 5, now=NOW)] == [("two", 2.0)]
        assert a.set_sparse("u1", {ids["one"]: sparse({1: 0.5, 3: 1.0})}) == 1
        assert texts(b.search(Signal.SPARSE, "u1", q, 5, now=NOW)) == ["two", "one"]
        assert texts(a.search(Signal.SPARSE, "u1", sparse({3: 1.0}), 5, now=NOW)) == ["one"]
        assert b.users_missing_sparse() == ["u2"] and b.records_without_sparse("u1") == []
        assert b.stats()["sparse_records"] == 2
        assert texts(b.search(Signal.VECTOR, "u1", unit(0), 5, now=NOW)) == ["one", "two"]  # nothing else changed


def test_set_sparse_is_one_transaction(tmp_path, monkeypatch):
    """A failure after the rows were updated (here: marking the user for other processes) sets nothing."""
    path = tmp_path / "tx.db"
    backlog(path)
    with SQLiteStore(path) as s:
        ids = [r.record_id for r in s.records_without_sparse("u1")]

        def fail(c, touched):
            raise RuntimeError("crash after the updates")

        monkeypatch.setattr(w, "mark_users", fail)
        with pytest.raises(RuntimeError):
            s.set_sparse("u1", {i: sparse({1: 1.0}) for i in ids})
        monkeypatch.undo()
        assert len(s.records_without_sparse("u1")) == 2 and s.stats()["sparse_records"] == 0
        assert s.set_sparse("u1", {i: sparse({1: 1.0}) for i in ids}) == 2


@pytest.mark.parametrize("vectors", [[("id", None)], "id", None, {7: sparse({1: 1.0})}])
def test_set_sparse_refuses_what_is_not_a_mapping_of_record_ids_to_sparse_vectors(tmp_path, vectors):
    path = tmp_path / "bad.db"
    backlog(path)
    with SQLiteStore(path) as s, pytest.raises(InvalidInputError):
        s.set_sparse("u1", vectors)


@pytest.mark.parametrize("limit", [-1, 1.5, True, "2"])
def test_records_without_sparse_refuses_a_bad_limit(tmp_path, limit):
    path = tmp_path / "limit.db"
    backlog(path)
    with SQLiteStore(path) as s, pytest.raises(InvalidInputError, match="limit"):
        s.records_without_sparse("u1", limit=limit)


def test_records_written_before_the_binding_are_indexed_until_they_get_their_vectors(tmp_path):
    """Binding makes a partial index of the records without a sparse vector (those written before), so
    users_missing_sparse reads it rather than the table; records written since never enter it."""
    path = tmp_path / "index.db"
    backlog(path)
    with SQLiteStore(path) as s:
        write(s, "u3", "s1", {"after": {1: 1.0}})
        s.set_sparse("u1", {s.records_without_sparse("u1")[0].record_id: sparse({1: 1.0})})
        plan = " ".join(r[3] for r in s._db.conn.execute(
            "EXPLAIN QUERY PLAN SELECT DISTINCT user_id FROM records WHERE sparse_ids IS NULL "
            "AND (expires_at IS NULL OR expires_at > 0) ORDER BY user_id"))
        assert "records_without_sparse" in plan
    con = sqlite3.connect(path)
    indexed = con.execute("SELECT user_id FROM records INDEXED BY records_without_sparse "
                          "WHERE sparse_ids IS NULL ORDER BY user_id").fetchall()
    con.close()
    assert indexed == [("u1",), ("u2",)]
    with SQLiteStore(tmp_path / "never.db") as s:  # never bound: no index, nothing written to one
        s.bind_embedder("test-embedder", 8)
        assert s._db.conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'records_without_sparse'"
                               ).fetchone()[0] == 0


def test_the_last_record_of_a_session_is_read_without_sorting_the_session(tmp_path):
    # an append reads the session's last turn (list order, newest first, limit 1): from an index, so a long
    # session's append does not sort the whole session (it did: 30 ms an append at 20k turns, 0.5 ms now)
    with SQLiteStore(tmp_path / "m.db") as s:
        where, params = q.filter_clause("u", SearchFilters(session_ids=("s1",), kinds=("turn",)), 0.0)
        plan = " ".join(r[3] for r in s._db.conn.execute(
            "EXPLAIN QUERY PLAN " + q.list_select(where, True, True), {**params, "limit": 1}))
        assert "records_session_order" in plan and "TEMP B-TREE" not in plan
