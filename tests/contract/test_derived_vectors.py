"""Contract layer: the vectors of texts derived from a record (``write``'s ``derived``: what a user turn states, for
the current-value stage), kept by the embedded SQLite store (real files) and found by
``lookup_vectors`` for that user only; erased with their record whatever erases it (forget, purge, a replace
that drops it, a merge that changes it); checked before anything is written; a store made before they were kept
reads as before and makes their table on its first write; a backend that keeps none drops them."""

import sqlite3
from datetime import timedelta

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError, ReadOnlyStoreError
from cbmemory.models import ForgetResult
from cbmemory.store import SQLiteStore
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.sqlite import file as sf
from cbmemory.text import content_hash
from tests.support.couchbase_fake import FakeState, bound_store

from .store_contract import NOW, session_batch, unit

DIM = 8


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "derived.db"
    with SQLiteStore(p) as s:
        s.bind_embedder("test-embedder", DIM)
    return p


def write(store, user, session, texts, derived_of=None, **kw):
    """``texts`` as alternating user and assistant turns; ``derived_of``: record index -> {derived text: vector}."""
    sess, recs = session_batch(user, session, texts, **kw)
    derived = {recs[i].record_id: {content_hash(t): v for t, v in parts.items()}
               for i, parts in (derived_of or {}).items()}
    store.write([sess], recs, np.stack([unit(0)] * len(recs)), derived=derived)
    return recs


def made_before(p) -> None:
    """The file as a store made before the kept vectors: no table, index or trigger of them."""
    con = sqlite3.connect(p)
    for name, kind in (("records_derived_gone", "TRIGGER"), ("derived_record", "INDEX"), ("derived", "TABLE")):
        con.execute(f"DROP {kind} {name}")
    con.commit()
    con.close()


def rows(p) -> int:
    con = sqlite3.connect(p)
    try:
        return con.execute("SELECT count(*) FROM derived").fetchone()[0]
    finally:
        con.close()


def test_kept_vectors_are_found_by_the_hash_of_their_text_for_their_user_only(path):
    with SQLiteStore(path) as s:
        write(s, "alice", "s1", ["I moved to Porto, and I love it", "nice"], {0: {"I moved to Porto": unit(3)}})
        write(s, "bob", "s1", ["hello", "hi"])
        h = content_hash("I moved to Porto")
        assert set(s.lookup_vectors("alice", [h])) == {h}
        np.testing.assert_array_equal(s.lookup_vectors("alice", [h])[h], unit(3))
        assert s.lookup_vectors("bob", [h]) == {}  # another user's: never
    with SQLiteStore(path, read_only=True) as ro:  # another process, only reading
        assert set(ro.lookup_vectors("alice", [h])) == {h}


def test_a_records_own_vector_comes_first_then_the_kept_ones(path):
    with SQLiteStore(path) as s:
        [rec, _] = write(s, "alice", "s1", ["one", "two"], {0: {"a clause": unit(5)}})
        found = s.lookup_vectors("alice", [rec.content_hash, content_hash("a clause"), content_hash("unknown")])
        assert set(found) == {rec.content_hash, content_hash("a clause")}
        np.testing.assert_array_equal(found[rec.content_hash], unit(0))


def test_forget_of_a_session_erases_its_records_kept_vectors_and_no_others(path):
    with SQLiteStore(path) as s:
        write(s, "alice", "s1", ["one", "x"], {0: {"said one": unit(1)}})
        write(s, "alice", "s2", ["two", "y"], {0: {"said two": unit(2)}})
        assert rows(path) == 2 == s.stats()["kept_vectors"]
        assert s.forget("alice", "s1") == ForgetResult(2, 1, True)
        assert s.lookup_vectors("alice", [content_hash("said one")]) == {}
        assert set(s.lookup_vectors("alice", [content_hash("said two")])) == {content_hash("said two")}
        s.forget("alice")
    assert rows(path) == 0


def test_a_purged_record_takes_its_kept_vectors_with_it(path):
    with SQLiteStore(path) as s:
        write(s, "alice", "s1", ["soon gone", "x"], {0: {"gone": unit(1)}}, expires_at=NOW + timedelta(days=1))
        write(s, "alice", "s2", ["stays", "y"], {0: {"stays": unit(2)}})
        assert s.purge_expired(NOW + timedelta(days=2)) == 2
        assert s.lookup_vectors("alice", [content_hash("gone")]) == {}
    assert rows(path) == 1


def test_a_record_replaced_or_dropped_by_a_later_write_takes_its_kept_vectors_with_it(path):
    with SQLiteStore(path) as s:
        write(s, "alice", "s1", ["first", "x", "second", "y"], {0: {"first said": unit(1)}, 2: {"second said": unit(2)}})
        write(s, "alice", "s1", ["first, edited", "x"], {0: {"edited said": unit(3)}}, )  # merge: record 0 changed
        assert s.lookup_vectors("alice", [content_hash("first said")]) == {}
        assert set(s.lookup_vectors("alice", [content_hash("edited said")])) == {content_hash("edited said")}
        sess, recs = session_batch("alice", "s1", ["first, edited", "x"])
        s.write([sess], recs, np.stack([unit(0)] * 2), mode="replace")  # record 2 dropped
        assert s.lookup_vectors("alice", [content_hash("second said")]) == {}
        # the unchanged record kept its own
        assert set(s.lookup_vectors("alice", [content_hash("edited said")])) == {content_hash("edited said")}


@pytest.mark.parametrize("bad", [
    {"no-such-record": {"h": unit(1)}},
    {0: {"": unit(1)}},
    {0: {"h": np.zeros(DIM + 1, dtype=np.float32)}},
    {0: {"h": np.full(DIM, np.nan, dtype=np.float32)}},
    {0: {"h": [0.0] * DIM}},
    {0: ["h"]},
])
def test_bad_derived_vectors_are_refused_and_nothing_is_written(path, bad):
    with SQLiteStore(path) as s:
        sess, recs = session_batch("alice", "s1", ["one", "two"])
        derived = {(recs[k].record_id if isinstance(k, int) else k): v for k, v in bad.items()}
        with pytest.raises(InvalidInputError):
            s.write([sess], recs, np.stack([unit(0)] * 2), derived=derived)
        assert s.count("alice") == 0
    assert rows(path) == 0


def test_a_store_made_before_the_kept_vectors_reads_as_before_and_makes_their_table_on_its_first_write(path):
    with SQLiteStore(path) as s:
        [rec, _] = write(s, "alice", "s1", ["one", "two"])
    made_before(path)
    with SQLiteStore(path, read_only=True) as ro:
        assert set(ro.lookup_vectors("alice", [rec.content_hash, content_hash("x")])) == {rec.content_hash}
        assert ro.stats()["kept_vectors"] == 0
    with SQLiteStore(path) as s:
        assert s.lookup_vectors("alice", [content_hash("said")]) == {}
        con = sqlite3.connect(path)
        assert not sf.has_table(con, "derived")  # opening and reading wrote nothing
        con.close()
        write(s, "alice", "s2", ["three", "four"], {0: {"said": unit(4)}})
        assert set(s.lookup_vectors("alice", [content_hash("said")])) == {content_hash("said")}
        s.forget("alice", "s2")
    assert rows(path) == 0  # the trigger made with the table erases with the record


def test_a_backend_that_keeps_none_is_given_none(monkeypatch):
    """Couchbase keeps no derived vectors (its reads embed those texts, as before): its write is given none, and
    the batch is written as without them (its in-process fake: tests/support/couchbase_fake.py)."""
    assert SQLiteStore.keeps_derived and not CouchbaseStore.keeps_derived
    store = bound_store(FakeState(), DIM)
    given = []
    inner = store._write
    monkeypatch.setattr(store, "_write", lambda *a: given.append(a[-1]) or inner(*a))
    sess, recs = session_batch("alice", "s1", ["one", "two"])
    result = store.write([sess], recs, np.stack([unit(0)] * 2), derived={recs[0].record_id: {"h": unit(1)}})
    assert given == [None] and result.inserted == 2
    assert store.turns_to_keep("alice") == [] and store.keep_derived("alice", {recs[0].record_id: {"h": unit(1)}}) == 0
    assert store.turns_to_keep("alice", form=2) == []
    with pytest.raises(InvalidInputError):  # but bad ones are refused as by the store that keeps them
        store.write([sess], recs, np.stack([unit(0)] * 2), derived={"no-such-record": {"h": unit(1)}})
    for bad in ({"form": 0}, {"form": "2"}):
        with pytest.raises(InvalidInputError, match="form"):
            store.turns_to_keep("alice", **bad)
        with pytest.raises(InvalidInputError, match="form"):
            store.keep_derived("alice", {recs[0].record_id: {"h": unit(1)}}, **bad)


# ------------------------------------------------------------------ turns written before: found and given theirs

def test_turns_to_keep_are_the_users_own_turns_without_kept_vectors_in_id_order(path):
    with SQLiteStore(path) as s:
        recs = write(s, "alice", "s1", ["one", "a", "two", "b", "three", "c"], {0: {"said one": unit(1)}})
        write(s, "bob", "s1", ["theirs", "d"])
        write(s, "alice", "s2", ["gone soon", "e"], expires_at=NOW)
        todo = [r.record_id for r in s.turns_to_keep("alice")]
        # the user's turns but the one kept, not the assistant's, not bob's, not an expired one
        assert todo == sorted([recs[2].record_id, recs[4].record_id])
        assert all(r.user_id == "alice" and r.role == "user" and r.kind == "turn" for r in s.turns_to_keep("alice"))
        assert [r.record_id for r in s.turns_to_keep("alice", todo[0], limit=5)] == todo[1:]
        assert [r.record_id for r in s.turns_to_keep("alice", limit=1)] == todo[:1]
        assert s.turns_to_keep("alice", limit=0) == []
        with pytest.raises(InvalidInputError):
            s.turns_to_keep("alice", limit=-1)
        with pytest.raises(InvalidInputError):
            s.turns_to_keep("alice", 3)


def test_keep_derived_gives_stored_turns_theirs_for_that_user_only(path):
    with SQLiteStore(path) as s:
        [mine, _] = write(s, "alice", "s1", ["one", "a"])
        [theirs, _] = write(s, "bob", "s1", ["two", "b"])
        assert s.keep_derived("alice", {mine.record_id: {"h1": unit(1)}, theirs.record_id: {"h2": unit(2)}}) == 1
        assert s.keep_derived("alice", {mine.record_id: {"h1": unit(3)}}) == 0  # kept already: it stays
        np.testing.assert_array_equal(s.lookup_vectors("alice", ["h1"])["h1"], unit(1))
        assert s.lookup_vectors("bob", ["h2"]) == {} and s.turns_to_keep("alice") == []
        with pytest.raises(InvalidInputError):
            s.keep_derived("alice", {mine.record_id: {"h3": np.zeros(DIM + 1, dtype=np.float32)}})
    with SQLiteStore(path, read_only=True) as ro:
        assert [r.record_id for r in ro.turns_to_keep("bob")] == [theirs.record_id]  # a read
        with pytest.raises(ReadOnlyStoreError):
            ro.keep_derived("bob", {theirs.record_id: {"h2": unit(2)}})


def test_a_store_made_before_the_table_lists_every_turn_and_keeps_on_its_first_write(path):
    with SQLiteStore(path) as s:
        [rec, _] = write(s, "alice", "s1", ["one", "a"])
    made_before(path)
    with SQLiteStore(path) as s:
        assert [r.record_id for r in s.turns_to_keep("alice")] == [rec.record_id]
        assert s.keep_derived("alice", {rec.record_id: {"h": unit(1)}}) == 1
        assert s.turns_to_keep("alice") == []


# ------------------------------------------------------------------ vectors kept of texts of an earlier form

def forms(p) -> list[tuple[str, int]]:
    con = sqlite3.connect(p)
    try:
        return sorted(con.execute("SELECT content_hash, form FROM derived"))
    finally:
        con.close()


def test_a_turn_kept_in_an_earlier_form_is_listed_for_a_later_one_and_kept_again(path):
    """``turns_to_keep(form=)`` lists a turn whose kept vectors are of an earlier form; keeping it in the later form
    drops its vectors of the earlier one, of the same text too (kept again, of the later form)."""
    with SQLiteStore(path) as s:
        [a, _, b, _] = write(s, "alice", "s1", ["one", "x", "two", "y"], {0: {"old one": unit(1)}, 2: {"two": unit(2)}})
        assert s.turns_to_keep("alice") == [] and s.turns_to_keep("alice", form=1) == []
        assert [r.record_id for r in s.turns_to_keep("alice", form=2)] == sorted([a.record_id, b.record_id])
        assert s.keep_derived("alice", {a.record_id: {content_hash("new one"): unit(3)}}, form=2) == 1
        assert s.lookup_vectors("alice", [content_hash("old one")]) == {}  # the earlier form's text is gone
        np.testing.assert_array_equal(s.lookup_vectors("alice", [content_hash("new one")])[content_hash("new one")],
                                      unit(3))
        assert s.keep_derived("alice", {b.record_id: {content_hash("two"): unit(4)}}, form=2) == 1  # the same text
        np.testing.assert_array_equal(s.lookup_vectors("alice", [content_hash("two")])[content_hash("two")], unit(4))
        assert s.turns_to_keep("alice", form=2) == []
        assert s.keep_derived("alice", {b.record_id: {content_hash("two"): unit(4)}}, form=2) == 0  # kept already
        assert s.keep_derived("alice", {b.record_id: {content_hash("two"): unit(4)}}, form=1) == 0  # never back
    assert forms(path) == sorted([(content_hash("new one"), 2), (content_hash("two"), 2)])


def test_a_write_keeps_its_turns_vectors_in_the_form_it_is_given(path):
    with SQLiteStore(path) as s:
        sess, recs = session_batch("alice", "s1", ["one", "a"])
        s.write([sess], recs, np.stack([unit(0)] * 2), derived={recs[0].record_id: {"h": unit(1)}}, derived_form=3)
        assert s.turns_to_keep("alice", form=3) == [] and len(s.turns_to_keep("alice", form=4)) == 1
    assert forms(path) == [("h", 3)]


@pytest.mark.parametrize("form", [0, -1, True, "2", 1.5, None])
def test_a_form_that_is_not_a_whole_number_from_1_is_refused_before_anything_is_written(path, form):
    with SQLiteStore(path) as s:
        sess, recs = session_batch("alice", "s1", ["one", "a"])
        with pytest.raises(InvalidInputError, match="form"):
            s.write([sess], recs, np.stack([unit(0)] * 2), derived={recs[0].record_id: {"h": unit(1)}},
                    derived_form=form)
        assert s.count("alice") == 0
        [rec, _] = write(s, "alice", "s1", ["one", "a"])
        with pytest.raises(InvalidInputError, match="form"):
            s.keep_derived("alice", {rec.record_id: {"h": unit(1)}}, form=form)
        with pytest.raises(InvalidInputError, match="form"):
            s.turns_to_keep("alice", form=form)
    assert rows(path) == 0


def test_a_table_made_before_forms_holds_form_1_and_gains_the_column_on_the_first_write(path):
    """A store whose ``derived`` table an older version made (no ``form``): its rows read as of form 1, a read does
    not change the file, and the first write adds the column."""
    with SQLiteStore(path) as s:
        [a, _, b, _] = write(s, "alice", "s1", ["one", "x", "two", "y"], {0: {"one": unit(1)}})
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE derived DROP COLUMN form")
    con.commit()
    con.close()
    with SQLiteStore(path, read_only=True) as ro:
        assert [r.record_id for r in ro.turns_to_keep("alice")] == [b.record_id]
        assert [r.record_id for r in ro.turns_to_keep("alice", form=2)] == sorted([a.record_id, b.record_id])
    con = sqlite3.connect(path)
    assert not sf.has_column(con, "derived", "form")
    con.close()
    with SQLiteStore(path) as s:
        assert s.keep_derived("alice", {a.record_id: {"one, again": unit(2)}}, form=2) == 1
        assert [r.record_id for r in s.turns_to_keep("alice", form=2)] == [b.record_id]
    assert forms(path) == [("one, again", 2)]


def test_two_stores_on_a_file_made_before_forms_both_write_and_an_older_writers_rows_are_of_form_1(path):
    """Two connections to a file whose ``derived`` table has no ``form``: the first write adds the column, the other
    connection's writes go on; a row an older version writes after that (no ``form`` named) is of form 1."""
    with SQLiteStore(path) as s:
        write(s, "alice", "s1", ["one", "x"], {0: {"one": unit(1)}})
    con = sqlite3.connect(path)
    con.execute("ALTER TABLE derived DROP COLUMN form")
    con.commit()
    con.close()
    with SQLiteStore(path) as a, SQLiteStore(path) as b:
        assert a.count("alice") == b.count("alice") == 2  # both opened before either writes
        [ra, _] = write(a, "alice", "s2", ["two", "y"])
        [rb, _] = write(b, "alice", "s3", ["three", "z"])
        assert a.keep_derived("alice", {ra.record_id: {"two": unit(2)}}, form=2) == 1
        assert b.keep_derived("alice", {rb.record_id: {"three": unit(3)}}, form=2) == 1
    con = sqlite3.connect(path)
    con.execute("INSERT INTO derived (user_id, content_hash, record_id, vector) VALUES (?, ?, ?, ?)",
                ("alice", "older", rb.record_id, unit(4).tobytes()))
    con.commit()
    con.close()
    assert forms(path) == sorted([("older", 1), (content_hash("one"), 1), ("three", 2), ("two", 2)])
