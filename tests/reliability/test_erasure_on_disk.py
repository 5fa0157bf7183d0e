"""Reliability layer: after ``forget`` and TTL expiry, nothing of the erased memories is left in the SQLite
file: not in the rows, not in the full-text index (its vocabulary and its pages), not in the vectors, and
not in the bytes of the database and its WAL (checked by reading the files directly)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from cbmemory import AgentMemory
from cbmemory.store import SQLiteStore

from .workers import HashEmbedder

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def token(name: str) -> str:
    """A word no other text shares a prefix with (so FTS5's prefix-compressed pages keep it whole)."""
    return f"zyx{name}q7734quorbleflux"


def file_bytes(db: Path) -> bytes:
    return b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists())


def vectors_of(db: Path, user: str, session: str | None = None) -> list[bytes]:
    con = sqlite3.connect(db)
    sql, args = "SELECT vector FROM records WHERE user_id = ?", [user]
    if session is not None:
        sql, args = sql + " AND session_id = ?", [user, session]
    out = [row[0] for row in con.execute(sql, args)]
    con.close()
    return out


def fts_terms(db: Path) -> set[str]:
    con = sqlite3.connect(db)
    con.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, 'records_fts', 'row')")
    terms = {row[0] for row in con.execute("SELECT term FROM temp.v")}
    con.close()
    return terms


def assert_gone(db: Path, words: list[str], vectors: list[bytes]) -> None:
    data = file_bytes(db)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.execute("INSERT INTO records_fts (records_fts) VALUES ('integrity-check')")
    terms = fts_terms(db)
    for w in words:
        core = w[3:].encode()  # all but a prefix that a neighbouring term might share
        assert core not in data, f"{w} is still in the file bytes"
        assert not any(w[3:9] in t for t in terms), f"{w} is still in the full-text vocabulary"
        assert con.execute("SELECT count(*) FROM records WHERE text LIKE ? OR index_text LIKE ?",
                           (f"%{w}%", f"%{w}%")).fetchone()[0] == 0
    for v in vectors:
        assert v not in data, "an erased vector is still in the file bytes"
    con.close()


def session(name: str, n: int = 6) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant",
             "content": f"turn {i} of {name}: the private note is {token(name)} and more words {i}"}
            for i in range(n)]


def keep(memory: AgentMemory) -> None:
    memory.add_session("bob", "b1", session("bob"), date="2023-05-07")


def test_forget_user_leaves_no_trace_in_rows_index_vectors_or_bytes(tmp_path):
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    keep(memory)
    memory.add_session("alice", "a1", session("alicefirst"), date="2023-05-07")
    memory.add_session("alice", "a2", session("alicesecond"), date="2023-05-08")
    before = vectors_of(db, "alice")
    assert len(before) == 12 and token("alicefirst")[3:].encode() in file_bytes(db)  # the check can see it
    assert all(v in file_bytes(db) for v in before)
    assert token("alicefirst")[3:9] in "".join(fts_terms(db))  # the index really held it
    assert memory.search(token("alicefirst"), "alice", recipe="bm25")
    assert memory.forget("alice") == 12
    memory.close()
    assert_gone(db, [token("alicefirst"), token("alicesecond")], before)
    con = sqlite3.connect(db)
    for table in ("records", "sessions"):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE user_id = 'alice'").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM records").fetchone()[0] == 6  # bob's are all still there
    assert con.execute("SELECT count(*) FROM records_fts_docsize").fetchone()[0] == 6
    con.close()
    with AgentMemory.open(db, embedder=HashEmbedder()) as again:
        assert again.search(token("bob"), "bob", recipe="bm25")


def test_forget_one_session_erases_only_that_session(tmp_path):
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    memory.add_session("alice", "a1", session("alicekept"), date="2023-05-07")
    memory.add_session("alice", "a2", session("alicegone"), date="2023-05-08")
    gone = vectors_of(db, "alice", "a2")
    assert memory.forget("alice", "a2") == 6
    memory.close()
    assert_gone(db, [token("alicegone")], gone)
    assert token("alicekept")[3:].encode() in file_bytes(db)
    assert [s.session_id for s in SQLiteStore(db).list_sessions("alice")] == ["a1"]


def test_ttl_expiry_then_purge_leaves_no_trace(tmp_path):
    db = tmp_path / "m.db"
    clock = Clock()
    memory = AgentMemory.open(db, embedder=HashEmbedder(), clock=clock)
    keep(memory)
    memory.add_session("alice", "short", session("aliceshortlived"), date="2023-05-07", ttl=timedelta(hours=1))
    memory.add_session("alice", "long", session("alicelonglived"), date="2023-05-07", ttl=timedelta(days=30))
    expiring = vectors_of(db, "alice", "short")
    clock.now = START + timedelta(hours=2)
    assert [h.record.session_id for h in memory.search(token("aliceshortlived"), "alice", k=50)
            ] == ["long"] * 6  # expired: never returned, even before it is purged
    memory.add_session("carol", "c1", session("carol"), date="2023-05-09")  # every write purges what expired
    memory.close()
    assert_gone(db, [token("aliceshortlived")], expiring)
    assert token("alicelonglived")[3:].encode() in file_bytes(db)


def test_purge_expired_directly_on_the_store(tmp_path):
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    memory.add_session("alice", "s", session("alicettl"), date="2023-05-07",
                       expires_at=datetime.now(timezone.utc) + timedelta(minutes=5))
    expiring = vectors_of(db, "alice")
    memory.close()
    store = SQLiteStore(db)
    assert store.purge_expired(datetime.now(timezone.utc) + timedelta(minutes=10)) == 6
    assert store.count() == 0
    store.close()
    assert_gone(db, [token("alicettl")], expiring)


def test_forget_reaches_another_process_with_a_warm_vector_cache(tmp_path):
    """A second store on the file (as another process would hold it) has the user's vectors in memory;
    after a forget elsewhere its next search returns nothing of them."""
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    memory.add_session("alice", "a1", session("alicecached"), date="2023-05-07")
    other = SQLiteStore(db)
    q = HashEmbedder().embed([token("alicecached")])[0]
    assert len(other.vector_search("alice", q, 10)) == 6  # cache warm
    cached = vectors_of(db, "alice")
    assert memory.forget("alice") == 6
    assert_gone(db, [token("alicecached")], cached)  # with both connections still open
    assert other.vector_search("alice", q, 10) == []
    assert other.text_search("alice", token("alicecached"), 10) == []
    assert other._cache["alice"].n == 0 and not np.any(other._cache["alice"].vectors[:0])
    memory.add_session("alice", "a2", session("alicenew"), date="2023-05-08")
    assert {h.record.session_id for h in other.vector_search("alice", q, 10)} == {"a2"}
    other.close()
    memory.close()


def test_erasure_during_a_long_read_is_wiped_once_the_reader_is_done(tmp_path):
    """A reader in another connection holds an old snapshot while the forget runs, so the WAL cannot be
    checkpointed then; the store finishes the wipe on its next write or close."""
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    keep(memory)
    memory.add_session("alice", "a1", session("alicereader"), date="2023-05-07")
    erased = vectors_of(db, "alice")
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM records").fetchone()[0] == 12  # snapshot held
    assert memory.forget("alice") == 6
    assert reader.execute("SELECT count(*) FROM records").fetchone()[0] == 12  # still the old snapshot
    reader.execute("COMMIT")
    reader.close()
    memory.add_session("bob", "b2", session("bobagain"), date="2023-05-08")
    assert_gone(db, [token("alicereader")], erased)  # wiped on the next write, with the file still open
    memory.close()
    assert_gone(db, [token("alicereader")], erased)
