"""Reliability layer: a store written by cbmemory 0.1.0 (schema 2, one FTS5 index shared by every user)
opens, is upgraded in place in one transaction, and searches as before. Real SQLite files."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from cbmemory.ingest import build_records, validate_messages
from cbmemory.store import SQLiteStore

SCHEMA_V2 = (Path(__file__).parents[1] / "fixtures" / "schema_v2.sql").read_text()
T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def v2_file(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript(SCHEMA_V2)
    con.execute("INSERT INTO meta VALUES ('schema_version', '2'), ('embedder_name', 'test'), "
                "('embedder_dimension', '4')")
    con.execute("PRAGMA application_id = 1128418629")  # "CBME"
    for user, text in (("alice", "my sister plays the cello"), ("bob", "bob's cello lessons on Tuesday")):
        [rec] = build_records(user, "s1", validate_messages([{"role": "user", "content": text}]), T0, NOW)
        con.execute("INSERT INTO users VALUES (?, 1, 0)", (user,))
        con.execute("INSERT INTO sessions VALUES (?, 's1', ?, '{}')", (user, T0.timestamp()))
        con.execute(
            "INSERT INTO records (record_id, user_id, session_id, kind, position, turn_id, role, speaker, text, "
            "index_text, occurred_at, ingested_at, expires_at, annotations, source_ids, content_hash, vector) "
            "VALUES (?, ?, 's1', 'turn', 0, NULL, 'user', NULL, ?, ?, ?, ?, NULL, '{}', '[]', ?, ?)",
            (rec.record_id, user, text, rec.index_text, T0.timestamp(), NOW.timestamp(), rec.content_hash,
             np.full(4, 0.5, np.float32).tobytes()))
    con.commit()
    con.close()


def test_a_schema_2_store_is_upgraded_and_searchable(tmp_path):
    path = tmp_path / "old.db"
    v2_file(path)
    with SQLiteStore(path) as store:
        assert store.stats()["schema_version"] == "3"
        assert [h.record.text for h in store.text_search("alice", "cello", 5, now=NOW)] == ["my sister plays the cello"]
        assert [h.record.text for h in store.text_search("bob", "cello", 5, now=NOW)] == ["bob's cello lessons on Tuesday"]
    con = sqlite3.connect(path)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert not any(n.startswith("records_fts") for n in names) and "records_ai" not in names
    assert con.execute("SELECT count(*) FROM records WHERE length(terms) = 0").fetchone()[0] == 0
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
