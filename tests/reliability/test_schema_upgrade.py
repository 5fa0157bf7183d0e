"""Reliability layer: a store of an older schema opens, is upgraded in place in one transaction, and
searches as before. Schema 2 (cbmemory 0.1.0: one FTS5 index shared by every user) goes through 3 and 4 to 5;
schema 3 (term ids per record, no sparse vectors) to 4 (a sparse vector per record); schema 4 to 5 (links
from a record to the records it supersedes). Real SQLite files."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseVector
from cbmemory.errors import NotAStoreError, ReadOnlyStoreError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store import SQLiteStore, lexical
from cbmemory.store.signals import Signal
from cbmemory.store.sqlite import sql as q

FIXTURES = Path(__file__).parents[1] / "fixtures"
SCHEMA_V2 = (FIXTURES / "schema_v2.sql").read_text()
SCHEMA_V3 = (FIXTURES / "schema_v3.sql").read_text()
SCHEMA_V4 = (FIXTURES / "schema_v4.sql").read_text()
T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


TEXTS = (("alice", "my sister plays the cello"), ("bob", "bob's cello lessons on Tuesday"))


def old_file(path: Path, version: int, texts=TEXTS) -> None:
    """A store file of schema ``version`` (2 or 3) as that version wrote it, one turn per (user, text):
    schema 3 added the term ids column (and the ``seq`` meta key), which schema 2 kept in an FTS5 index."""
    con = sqlite3.connect(path)
    con.executescript({2: SCHEMA_V2, 3: SCHEMA_V3, 4: SCHEMA_V4}[version])
    con.execute("INSERT INTO meta VALUES ('schema_version', ?), ('embedder_name', 'test'), "
                "('embedder_dimension', '4')", (str(version),))
    if version >= 3:
        con.execute("INSERT INTO meta VALUES ('seq', '1')")
    con.execute("PRAGMA application_id = 1128418629")  # "CBME"
    columns = ("record_id, user_id, session_id, kind, position, turn_id, role, speaker, text, index_text, "
               "occurred_at, ingested_at, expires_at, annotations, source_ids, content_hash, vector")
    marks = "?, ?, 's1', 'turn', 0, NULL, 'user', NULL, ?, ?, ?, ?, NULL, '{}', '[]', ?, ?"
    for user, text in texts:
        [rec] = build_records(user, "s1", validate_messages([{"role": "user", "content": text}]), T0, NOW)
        con.execute("INSERT INTO users VALUES (?, 1, 0)", (user,))
        con.execute("INSERT INTO sessions VALUES (?, 's1', ?, '{}')", (user, T0.timestamp()))
        values: tuple = (rec.record_id, user, text, rec.index_text, T0.timestamp(), NOW.timestamp(),
                         rec.content_hash, np.full(4, 0.5, np.float32).tobytes())
        if version >= 3:
            con.execute(f"INSERT INTO records ({columns}, terms) VALUES ({marks}, ?)",
                        (*values, lexical.encode(rec.index_text, text)))
        else:
            con.execute(f"INSERT INTO records ({columns}) VALUES ({marks})", values)
    con.commit()
    con.close()


def v2_file(path: Path) -> None:
    old_file(path, 2)


def test_a_schema_2_store_is_upgraded_and_searchable(tmp_path):
    path = tmp_path / "old.db"
    v2_file(path)
    with SQLiteStore(path) as store:
        assert store.stats()["schema_version"] == q.SCHEMA_VERSION
        assert [h.record.text for h in store.search(Signal.BM25, "alice", "cello", 5, now=NOW)] == ["my sister plays the cello"]
        assert [h.record.text for h in store.search(Signal.BM25, "bob", "cello", 5, now=NOW)] == ["bob's cello lessons on Tuesday"]
    con = sqlite3.connect(path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert not any(n.startswith("records_fts") for n in names) and "records_ai" not in names
    assert con.execute("SELECT count(*) FROM records WHERE length(terms) = 0").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM records WHERE sparse_ids IS NULL AND sparse_weights IS NULL"
                       ).fetchone()[0] == 2  # through schema 3 to 4
    con.close()
    # the old index's pages are wiped: the word is left only in the two rows (raw and indexed text)
    assert file_bytes(path).count(b"cello") == 4


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


def test_the_v2_fixture_holds_the_words_in_its_index_too(tmp_path):
    """The byte check above can fail: before the upgrade the shared index holds the word as well."""
    path = tmp_path / "old.db"
    v2_file(path)
    assert file_bytes(path).count(b"cello") > 4


# ------------------------------------------------------------------ schema 3 -> 4

def v3_file(path: Path, texts=TEXTS) -> None:
    old_file(path, 3, texts)


def columns(path: Path) -> set[str]:
    con = sqlite3.connect(path)
    names = {r[1] for r in con.execute("PRAGMA table_info(records)")}
    con.close()
    return names


def schema_version(path: Path) -> str:
    con = sqlite3.connect(path)
    version = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    con.close()
    return version


def test_the_v3_fixture_is_the_schema_before_sparse_vectors():
    """The fixture differs from the current schema by the sparse columns only."""
    assert "sparse" not in SCHEMA_V3
    assert columns_of_schema(SCHEMA_V3) | {"sparse_ids", "sparse_weights"} == columns_of_schema(SCHEMA_V4)


def columns_of_schema(sql: str) -> set[str]:
    con = sqlite3.connect(":memory:")
    con.executescript(sql)
    names = {r[1] for r in con.execute("PRAGMA table_info(records)")}
    con.close()
    return names


def test_a_schema_3_store_is_upgraded_and_keeps_its_data(tmp_path):
    path = tmp_path / "v3.db"
    v3_file(path)
    assert "sparse_ids" not in columns(path)
    with SQLiteStore(path) as store:
        assert store.stats()["schema_version"] == q.SCHEMA_VERSION
        assert store.bound_embedder == ("test", 4) and store.bound_sparse_encoder is None
        assert [h.record.text for h in store.search(Signal.BM25, "alice", "cello", 5, now=NOW)] == [TEXTS[0][1]]
        assert [h.record.text for h in store.search(Signal.VECTOR, "bob", np.full(4, 0.5), 5, now=NOW)] == [TEXTS[1][1]]
        assert store.count() == 2 and store.users() == ["alice", "bob"]
        # its records have no sparse vectors: a sparse encoder may be bound; they are listed as missing theirs,
        # never found by sparse search until set_sparse gives them one
        query = SparseVector(np.array([1]), np.array([1.0]))
        assert store.users_missing_sparse() == []  # none bound yet
        store.bind_sparse_encoder("test-sparse")
        assert store.search(Signal.SPARSE, "alice", query, 5, now=NOW) == []
        assert store.users_missing_sparse() == ["alice", "bob"]
        [rec] = store.records_without_sparse("alice")
        assert rec.text == TEXTS[0][1]
        assert store.set_sparse("alice", {rec.record_id: SparseVector(np.array([1]), np.array([2.0]))}) == 1
        assert [(h.record.text, h.score) for h in store.search(Signal.SPARSE, "alice", query, 5, now=NOW)] == [
            (TEXTS[0][1], 2.0)]
        assert store.users_missing_sparse() == ["bob"]
    assert {"sparse_ids", "sparse_weights"} <= columns(path)
    with SQLiteStore(path) as again:  # opened again: nothing more to upgrade
        assert again.stats()["schema_version"] == q.SCHEMA_VERSION and again.count() == 2
        assert again.bound_sparse_encoder == "test-sparse" and again.users_missing_sparse() == ["bob"]


def test_a_schema_3_store_without_records_takes_a_sparse_encoder_after_the_upgrade(tmp_path):
    path = tmp_path / "v3.db"
    v3_file(path, texts=())
    with SQLiteStore(path) as store:
        store.bind_sparse_encoder("test-sparse")
        [rec] = build_records("carol", "s1", validate_messages([{"role": "user", "content": "a cello"}]), T0, NOW)
        store.write([Session("carol", "s1", T0)], [rec], np.full((1, 4), 0.5),
                    sparse=[SparseVector(np.array([7, 9]), np.array([1.0, 2.0]))])
        hits = store.search(Signal.SPARSE, "carol", SparseVector(np.array([9]), np.array([0.5])), 5, now=NOW)
        assert [(h.record.text, h.score) for h in hits] == [("a cello", 1.0)]
    with SQLiteStore(path) as again:
        assert again.bound_sparse_encoder == "test-sparse"


def test_a_schema_3_store_opened_read_only_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "v3.db"
    v3_file(path)
    with pytest.raises(ReadOnlyStoreError, match="schema version 3"):
        SQLiteStore(path, read_only=True)
    assert schema_version(path) == "3" and "sparse_ids" not in columns(path)


def test_a_failed_upgrade_changes_nothing(tmp_path, monkeypatch):
    """The upgrade is one transaction: a failure in its last step leaves the file at schema 3."""
    path = tmp_path / "v3.db"
    v3_file(path)
    monkeypatch.setattr(q, "MIGRATE_FROM_3", [*q.MIGRATE_FROM_3, "ALTER TABLE no_such_table ADD COLUMN x"])
    with pytest.raises(NotAStoreError):
        SQLiteStore(path)
    assert schema_version(path) == "3" and "sparse_ids" not in columns(path)
    monkeypatch.undo()
    with SQLiteStore(path) as store:
        assert store.stats()["schema_version"] == q.SCHEMA_VERSION and store.count() == 2


def test_a_schema_2_store_upgrade_failing_at_its_step_to_4_stays_at_2(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    v2_file(path)
    monkeypatch.setattr(q, "MIGRATE_FROM_3", ["ALTER TABLE no_such_table ADD COLUMN x"])
    with pytest.raises(NotAStoreError):
        SQLiteStore(path)
    assert schema_version(path) == "2"
    assert "terms" not in columns(path)


# ------------------------------------------------------------------ schema 4 -> 5

def test_the_v4_fixture_is_the_schema_before_links():
    assert "supersedes" not in SCHEMA_V4
    assert columns_of_schema(SCHEMA_V4) | {"supersedes"} == columns_of_schema(";".join(q.SCHEMA))


def test_a_schema_4_store_is_upgraded_keeps_its_data_and_takes_links(tmp_path):
    path = tmp_path / "v4.db"
    old_file(path, 4)
    assert "supersedes" not in columns(path)
    with SQLiteStore(path) as store:
        assert store.stats()["schema_version"] == "5"
        assert [h.record.text for h in store.search(Signal.BM25, "alice", "cello", 5, now=NOW)] == [TEXTS[0][1]]
        [old] = store.list_records("alice", now=NOW)
        assert old.supersedes == () and store.superseding("alice", [old.record_id], now=NOW) == {}
        [new] = build_records("alice", "s2", validate_messages([{"role": "user", "content": "she plays viola now"}]),
                              NOW, NOW)
        store.write([Session("alice", "s2", NOW)], [replace(new, supersedes=(old.record_id,))], np.full((1, 4), 0.5))
        assert store.superseding("alice", [old.record_id], now=NOW) == {old.record_id: (new.record_id,)}
    with SQLiteStore(path) as again:  # opened again: nothing more to upgrade
        assert again.stats()["schema_version"] == "5" and again.count() == 3
    con = sqlite3.connect(path)
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'records_supersedes'").fetchone()[0] == 1
    assert con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'records_session_order'").fetchone()[0] == 1
    # and the table of vectors kept for the current-value stage, with the trigger that erases them with their turn
    assert {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE name LIKE '%derived%'")} == \
        {"derived", "derived_record", "records_derived_gone", "sqlite_autoindex_derived_1"}
    con.close()


def test_a_schema_4_store_opened_read_only_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "v4.db"
    old_file(path, 4)
    with pytest.raises(ReadOnlyStoreError, match="schema version 4"):
        SQLiteStore(path, read_only=True)
    assert schema_version(path) == "4" and "supersedes" not in columns(path)


def test_a_failed_step_to_5_leaves_the_schema_4_store_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "v4.db"
    old_file(path, 4)
    monkeypatch.setattr(q, "MIGRATE_FROM_4", [*q.MIGRATE_FROM_4, "ALTER TABLE no_such_table ADD COLUMN x"])
    with pytest.raises(NotAStoreError):
        SQLiteStore(path)
    assert schema_version(path) == "4" and "supersedes" not in columns(path)
    assert not _has_index(path, "records_session_order")  # nothing of 5 made before the step failed


# ------------------------------------------------------------------ schema 5 made before an index

def _has_index(path: Path, name: str) -> bool:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT count(*) FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0] == 1
    finally:
        con.close()


def test_a_schema_5_store_made_before_the_session_order_index_gets_it_on_its_first_write_not_on_open(tmp_path):
    path = tmp_path / "v5.db"
    old_file(path, 4)
    SQLiteStore(path).close()  # upgraded to 5 (with the index), then made as a store of 5 before the index was
    con = sqlite3.connect(path)
    con.execute("DROP INDEX records_session_order")
    con.commit()
    con.close()
    with SQLiteStore(path, read_only=True) as ro:  # read-only: opened and read as it is
        assert ro.count() == 2
    with SQLiteStore(path) as store:
        assert [r.text for r in store.list_records("alice", now=NOW)] == [TEXTS[0][1]]
        assert not _has_index(path, "records_session_order")  # nothing written on open or on a read
        [new] = build_records("alice", "s2", validate_messages([{"role": "user", "content": "viola now"}]), NOW, NOW)
        store.write([Session("alice", "s2", NOW)], [new], np.full((1, 4), 0.5))
        assert _has_index(path, "records_session_order")
        assert [r.text for r in store.list_records("alice", now=NOW)] == [TEXTS[0][1], "viola now"]
    assert schema_version(path) == "5"
