"""Reliability layer: real SQLite files and real processes. After ``forget`` and TTL expiry nothing of the
erased memories is left in the file: not in the rows, not in the full-text index, not in the vectors, and
not in the sparse vectors, and not in the bytes of the database, its WAL and its shared-memory index (read
directly). One transaction
erases a user's records (raw and derived), sessions and user row; the wipe follows. A reader's snapshot
that blocks the wipe is reported (``ForgetResult.wiped``, the CLI) and the next write by any store on the
file, in any process, completes it. A process killed with SIGKILL inside a forget leaves the user all
there or all gone, and running the forget again erases every byte."""

from __future__ import annotations

import dataclasses
import json
import random
import signal
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main
from cbmemory.embedding.sparse import SparseVector
from cbmemory.ingest import build_records, record_id, validate_messages
from cbmemory.models import Session
from cbmemory.store import SQLiteStore
from cbmemory.store.signals import Signal
from cbmemory.store.sqlite.write import sparse_blobs
from cbmemory.text import content_hash

from .test_crash_and_concurrency import spawn
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


def fts5_tables(con: sqlite3.Connection) -> list[str]:
    """The file's FTS5 indexes, whatever their names (a store keeping its full-text index in memory has none)."""
    return [row[0] for row in con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5(%'")]


def fts_terms(db: Path) -> set[str]:
    """Every term of every FTS5 index in the file (none when there is no such index)."""
    con = sqlite3.connect(db)
    terms: set[str] = set()
    for i, table in enumerate(fts5_tables(con)):
        con.execute(f"CREATE VIRTUAL TABLE temp.v{i} USING fts5vocab(main, '{table}', 'row')")
        terms |= {row[0] for row in con.execute(f"SELECT term FROM temp.v{i}")}
    con.close()
    return terms


def has_fts(db: Path) -> bool:
    con = sqlite3.connect(db)
    found = bool(fts5_tables(con))
    con.close()
    return found


def assert_gone(db: Path, words: list[str], vectors: list[bytes]) -> None:
    data = file_bytes(db)
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    for table in fts5_tables(con):
        con.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
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
    if has_fts(db):
        assert token("alicefirst")[3:9] in "".join(fts_terms(db))  # the index really held it
    assert memory.search(token("alicefirst"), "alice", recipe="bm25")
    assert memory.forget("alice").records == 12
    memory.close()
    assert_gone(db, [token("alicefirst"), token("alicesecond")], before)
    con = sqlite3.connect(db)
    for table in ("records", "sessions"):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE user_id = 'alice'").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM records").fetchone()[0] == 6  # bob's are all still there
    if "records_fts" in fts5_tables(con):
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
    assert memory.forget("alice", "a2").records == 6
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
    found = memory.search(token("aliceshortlived"), "alice", k=50)
    shown = [r for h in found for r in (h.record, *h.context)]  # the hits and the turns of their windows
    assert {r.session_id for r in shown} == {"long"} and len({r.record_id for r in shown}) == 6  # expired:
    # never returned, even before it is purged
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
    assert len(other.search(Signal.VECTOR, "alice", q, 10)) == 6  # cache warm
    cached = vectors_of(db, "alice")
    assert memory.forget("alice").records == 6
    assert_gone(db, [token("alicecached")], cached)  # with both connections still open
    assert other.search(Signal.VECTOR, "alice", q, 10) == []
    assert other.search(Signal.BM25, "alice", token("alicecached"), 10) == []
    cols = other._db.cache.get("alice")  # the store's in-memory columns of the user: none, or emptied
    assert cols is None or (cols.n == 0 and not np.any(cols.vectors[:0]))
    memory.add_session("alice", "a2", session("alicenew"), date="2023-05-08")
    assert {h.record.session_id for h in other.search(Signal.VECTOR, "alice", q, 10)} == {"a2"}
    other.close()
    memory.close()


@pytest.mark.heavy
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
    assert memory.forget("alice").records == 6
    assert reader.execute("SELECT count(*) FROM records").fetchone()[0] == 12  # still the old snapshot
    reader.execute("COMMIT")
    reader.close()
    memory.add_session("bob", "b2", session("bobagain"), date="2023-05-08")
    assert_gone(db, [token("alicereader")], erased)  # wiped on the next write, with the file still open
    memory.close()
    assert_gone(db, [token("alicereader")], erased)


def sparse_session(store: SQLiteStore, user: str, session_id: str, seed: int, n: int = 4,
                   expires_at: datetime | None = None) -> list[bytes]:
    """``n`` records with random sparse vectors (random ids and weights: their bytes occur nowhere else);
    returns the stored bytes of each vector's ids and of its weights."""
    rng = np.random.default_rng(seed)
    msgs = [{"role": "user", "content": f"sparse note {i} of {session_id}"} for i in range(n)]
    recs = build_records(user, session_id, validate_messages(msgs), START, START, expires_at=expires_at)
    vectors = [SparseVector(np.sort(rng.choice(2**31 - 1, 24, replace=False)), rng.random(24) + 0.5)
               for _ in recs]
    store.write([Session(user, session_id, START)], recs, HashEmbedder().embed([r.index_text for r in recs]),
                sparse=vectors)
    return [b for v in vectors for b in sparse_blobs(v) if b is not None]


def test_erased_sparse_vectors_leave_no_trace_in_the_bytes(tmp_path):
    """forget (a session, a user) and purge_expired erase each record's sparse vector with its row."""
    db = tmp_path / "m.db"
    store = SQLiteStore(db)
    store.bind_embedder(HashEmbedder().name, HashEmbedder().dimension)
    store.bind_sparse_encoder("test-sparse")
    kept = sparse_session(store, "bob", "b1", seed=1)
    one_session = sparse_session(store, "alice", "a1", seed=2)
    whole_user = sparse_session(store, "alice", "a2", seed=3)
    expiring = sparse_session(store, "carol", "c1", seed=4, expires_at=START + timedelta(hours=1))
    data = file_bytes(db)
    assert all(b in data for b in kept + one_session + whole_user + expiring)  # the check can see them
    ids = np.unique(np.concatenate([np.frombuffer(b, "<i4") for b in (one_session + whole_user + expiring)[::2]]))
    query = SparseVector(ids, np.ones(ids.size))  # every term of alice's and carol's records
    assert len(store.search(Signal.SPARSE, "alice", query, 50, now=START)) == 8  # the user's index warm in memory
    assert len(store.search(Signal.SPARSE, "carol", query, 50, now=START)) == 4
    assert store.forget("alice", "a1").wiped
    assert not any(b in file_bytes(db) for b in one_session)
    assert all(b in file_bytes(db) for b in whole_user)
    assert store.forget("alice").wiped
    assert store.purge_expired(START + timedelta(hours=2)) == 4
    data = file_bytes(db)
    assert not any(b in data for b in one_session + whole_user + expiring)
    assert all(b in data for b in kept)
    assert store.search(Signal.SPARSE, "alice", query, 50, now=START) == []
    assert store.search(Signal.SPARSE, "carol", query, 50, now=START) == []
    store.close()
    data = file_bytes(db)
    assert not any(b in data for b in one_session + whole_user + expiring)
    assert all(b in data for b in kept)


def test_records_given_sparse_vectors_after_the_binding_leave_no_trace_when_erased(tmp_path):
    """Records written before the sparse encoder was bound: the index of records without a sparse vector
    holds their user's id, set_sparse writes their vectors into the rows; forget erases both."""
    db = tmp_path / "m.db"
    user = token("backfilled")
    store = SQLiteStore(db)
    store.bind_embedder(HashEmbedder().name, HashEmbedder().dimension)
    for u in (user, "bob"):
        msgs = [{"role": "user", "content": f"plain note {i} of {u}"} for i in range(3)]
        recs = build_records(u, "s1", validate_messages(msgs), START, START)
        store.write([Session(u, "s1", START)], recs, HashEmbedder().embed([r.index_text for r in recs]))
    store.bind_sparse_encoder("test-sparse")
    rng = np.random.default_rng(5)
    missing = store.records_without_sparse(user)
    vectors = {r.record_id: SparseVector(np.sort(rng.choice(2**31 - 1, 24, replace=False)), rng.random(24) + 0.5)
               for r in missing[:2]}  # one record left without: it stays in the index until erased
    assert store.set_sparse(user, vectors) == 2
    blobs = [b for v in vectors.values() for b in sparse_blobs(v) if b is not None]
    ids = np.unique(np.concatenate([v.ids for v in vectors.values()]))
    query = SparseVector(ids, np.ones(ids.size))  # every term of the vectors set
    assert len(store.search(Signal.SPARSE, user, query, 10, now=START)) == 2  # the user's index warm in memory
    data = file_bytes(db)
    assert user.encode() in data and all(b in data for b in blobs)  # the check can see them
    assert sorted(store.users_missing_sparse()) == sorted(["bob", user])
    assert store.forget(user).wiped
    data = file_bytes(db)
    assert user.encode() not in data and not any(b in data for b in blobs)
    assert store.users_missing_sparse() == ["bob"] and store.search(Signal.SPARSE, user, query, 10, now=START) == []
    store.close()
    data = file_bytes(db)
    assert user.encode() not in data and not any(b in data for b in blobs)


# ------------------------------------------------------------------ issue 12, part 3: every field, every path
# Each field a user's memory puts on disk holds its own token, so a byte search of the three files finds
# exactly that field. The first letter after ``zyx`` differs between the fields that are full-text indexed
# (text ``t``, speaker ``p``, image caption ``c``, derived summary ``d``, bob ``b``) so no indexed term
# shares more than ``zyx`` with another one.


def assert_present(db: Path, words: Iterable[str]) -> None:
    data = file_bytes(db)
    missing = [w for w in words if w[3:].encode() not in data]
    assert not missing, f"not on disk before the erasure (the check would prove nothing): {missing}"


def left_on_disk(db: Path, words: Iterable[str]) -> list[str]:
    """The tokens still in the bytes of the .db, -wal and -shm files or in any FTS5 vocabulary of the file.
    The bytes are read before any connection is opened here (closing the last one checkpoints the WAL)."""
    words = list(words)
    data = file_bytes(db)
    left = [w for w in words if w[3:].encode() in data]
    terms = fts_terms(db)
    left += [f"{w} (full-text vocabulary)" for w in words if any(w[3:-6] in t for t in terms)]
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    return left


def assert_absent(db: Path, words: Iterable[str]) -> None:
    left = left_on_disk(db, words)
    assert not left, f"still on disk after the erasure: {left}"


def private_session(memory: AgentMemory, user: str, tag: str, n: int = 6, **kw) -> dict[str, str]:
    """One session of ``user`` in which every field holds its own token: the session id, the message text,
    the speaker, two message annotations (one of them indexed) and a session annotation."""
    t = {"session": token(f"s{tag}"), "text": token(f"t{tag}"), "speaker": token(f"p{tag}"),
         "caption": token(f"c{tag}"), "mood": token(f"m{tag}"), "topic": token(f"a{tag}")}
    msgs = [{"role": "user" if i % 2 == 0 else "assistant", "speaker": t["speaker"],
             "content": f"turn {i}: the private note is {t['text']} and more words {i}",
             "annotations": {"image_caption": t["caption"], "mood": t["mood"]}} for i in range(n)]
    memory.add_session(user, t["session"], msgs, date="2023-05-07", annotations={"topic": t["topic"]}, **kw)
    return t


def add_derived(memory: AgentMemory, user: str, session_id: str, tag: str) -> str:
    """A summary derived from the session's turns (as an enricher writes one), with a token of its own."""
    word = token(f"d{tag}")
    turns = memory.session_records(user, session_id)
    text = f"summary of the session: {word}"
    rec = dataclasses.replace(turns[0], record_id=record_id(user, session_id, "summary", "s0"), kind="summary",
                              text=text, index_text=text, content_hash=content_hash(text), turn_id=None,
                              source_ids=tuple(r.record_id for r in turns))
    memory.store.write([], [rec], HashEmbedder().embed([text]))
    return word


def victim(memory: AgentMemory, tag: str, n: int = 6) -> tuple[str, list[str], list[str]]:
    """A user with two sessions and a derived record: (user id, session ids, every token on disk)."""
    user = token(f"u{tag}")
    a = private_session(memory, user, f"{tag}x", n)
    b = private_session(memory, user, f"{tag}y", n)
    derived = add_derived(memory, user, a["session"], tag)
    return user, [a["session"], b["session"]], [user, *a.values(), *b.values(), derived]


def test_forget_erases_every_field_of_the_user_records_sessions_and_user_row(tmp_path):
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    keep(memory)
    user, _, words = victim(memory, "1")
    erased = vectors_of(db, user)
    assert len(erased) == 13 and user in memory.store.users()
    assert_present(db, words)
    result = memory.forget(user)
    assert memory.sessions(user) == []  # the session rows and their annotations go with the records
    assert user not in memory.store.users() and memory.store.count(user) == 0
    assert memory.session_records(user, kinds=None) == []
    assert_absent(db, words)  # with the store still open: the wipe is part of the forget
    assert not any(v in file_bytes(db) for v in erased)
    assert (result.records, result.sessions, result.wiped) == (13, 2, True)  # raw and derived records
    memory.close()
    assert_absent(db, words)
    assert_present(db, [token("bob")])
    with AgentMemory.open(db, embedder=HashEmbedder()) as again:
        assert [s.session_id for s in again.sessions("bob")] == ["b1"] and again.store.count("bob") == 6


def test_forget_one_session_erases_its_fields_and_row_and_keeps_the_rest(tmp_path):
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    user = token("u2")
    kept = private_session(memory, user, "2k")
    gone = private_session(memory, user, "2g")
    assert_present(db, [user, *kept.values(), *gone.values()])
    result = memory.forget(user, gone["session"])
    assert [s.session_id for s in memory.sessions(user)] == [kept["session"]]
    assert user in memory.store.users() and memory.store.count(user) == 6
    assert_absent(db, gone.values())  # the session row and its annotation too, with the store open
    assert_present(db, [user, *kept.values()])
    assert (result.records, result.sessions, result.wiped) == (6, 1, True)
    memory.close()
    assert_absent(db, gone.values())


def test_ttl_purge_erases_expired_sessions_and_a_user_left_with_nothing(tmp_path):
    db = tmp_path / "m.db"
    clock = Clock()
    memory = AgentMemory.open(db, embedder=HashEmbedder(), clock=clock)
    keep(memory)
    whole = token("u3w")  # every session of this user expires
    only = private_session(memory, whole, "3w", ttl=timedelta(hours=1))
    part = token("u3p")  # one of this user's sessions expires, one lives on
    short = private_session(memory, part, "3s", ttl=timedelta(hours=1))
    long = private_session(memory, part, "3l", ttl=timedelta(days=30))
    assert_present(db, [whole, *only.values(), part, *short.values(), *long.values()])
    clock.now = START + timedelta(hours=2)
    memory.add_session("carol", "c1", session("carol"), date="2023-05-09")  # every write purges what expired
    assert memory.sessions(whole) == []
    assert whole not in memory.store.users()
    assert [s.session_id for s in memory.sessions(part)] == [long["session"]]
    assert dict(memory.sessions(part)[0].annotations) == {"topic": long["topic"]}
    assert_absent(db, [whole, *only.values(), *short.values()])  # with the store still open
    assert_present(db, [part, *long.values()])
    memory.close()
    assert_absent(db, [whole, *only.values(), *short.values()])


# ------------------------------------------------------------------ a reader's snapshot blocks the wipe


def snapshot(db: Path) -> sqlite3.Connection:
    """Another connection inside a read transaction: the WAL cannot be checkpointed past its snapshot."""
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    assert reader.execute("SELECT count(*) FROM records").fetchone()[0] > 0
    return reader


def release(reader: sqlite3.Connection) -> None:
    reader.execute("COMMIT")
    reader.close()


def quick(db: Path) -> AgentMemory:
    """A store that waits only briefly for a blocked checkpoint, so these tests stay fast."""
    return AgentMemory(SQLiteStore(db, timeout=0.5), embedder=HashEmbedder())


@pytest.mark.process
def test_forget_blocked_by_a_reader_says_so_and_a_write_in_another_process_completes_the_wipe(tmp_path):
    db = tmp_path / "m.db"
    memory = quick(db)
    keep(memory)
    user, _, words = victim(memory, "4")
    assert_present(db, words)
    reader = snapshot(db)
    result = memory.forget(user)
    assert (result.records, result.sessions, result.wiped) == (13, 2, False)  # it says the wipe is pending
    assert memory.sessions(user) == [] and user not in memory.store.users()
    release(reader)
    assert left_on_disk(db, words)  # the snapshot kept them: what follows has a wipe to do
    p = spawn("write-vanish", str(db), "carol")  # exits without closing: its write has to finish the wipe
    assert p.communicate(timeout=60)[0].strip() == "done"
    assert_absent(db, words)  # with the forgetting store still open
    memory.close()
    assert_absent(db, words)


def test_forget_blocked_by_a_reader_is_wiped_when_the_forgetting_store_closes(tmp_path):
    db = tmp_path / "m.db"
    memory = quick(db)
    keep(memory)
    user, _, words = victim(memory, "5")
    reader = snapshot(db)
    result = memory.forget(user)
    assert not result.wiped and result.records == 13
    release(reader)
    other = SQLiteStore(db)  # keeps the file open, so SQLite's own last-close checkpoint cannot do the wipe
    assert left_on_disk(db, words)
    memory.close()
    assert_absent(db, words)
    assert other.list_sessions(user) == [] and user not in other.users()
    other.close()


def test_forget_run_again_by_another_store_finishes_a_pending_wipe_even_with_nothing_left_to_erase(tmp_path):
    """What a process killed after the erasing transaction leaves (the erasure committed, its wipe not
    done), made deterministic: a reader blocks the wipe and the forgetting store never gets to write or
    close again. Running the forget again elsewhere erases nothing, and still has to finish the wipe
    before it reports ``wiped``."""
    db = tmp_path / "m.db"
    memory = quick(db)
    keep(memory)
    user, _, words = victim(memory, "8")
    reader = snapshot(db)
    assert not memory.forget(user).wiped
    release(reader)
    other = SQLiteStore(db)
    assert left_on_disk(db, words)
    result = other.forget(user)
    assert (result.records, result.sessions) == (0, 0)
    assert_absent(db, words)  # with both stores still open
    assert result.wiped
    other.close()
    memory.close()


@pytest.mark.heavy
def test_cli_forget_blocked_by_a_reader_prints_that_the_wipe_is_pending(tmp_path, capsys):
    db = tmp_path / "m.db"
    with AgentMemory.open(db, embedder=HashEmbedder()) as memory:
        keep(memory)
        user, _, words = victim(memory, "6")
    holder = SQLiteStore(db)  # keeps the file open: no last-close checkpoint by SQLite does the wipe
    reader = snapshot(db)
    assert main(["forget", "--db", str(db), "--user", user]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["forgotten_records"] == 13 and out["wiped"] is False, out
    release(reader)
    assert left_on_disk(db, words)  # the snapshot kept them, and the CLI's process is done
    with AgentMemory.open(db, embedder=HashEmbedder()) as memory:  # a fresh store: the pending wipe is in the file
        assert memory.sessions(user) == [] and user not in memory.store.users()
        memory.add_session("carol", "c1", session("carol"), date="2023-05-09")
        assert_absent(db, words)  # done by that write, with the file still open
    holder.close()
    assert_absent(db, words)
    assert_present(db, [token("bob")])


def test_a_user_forgotten_and_written_again_is_not_served_from_another_stores_cache(tmp_path):
    """A second store warmed its cache of the user before the forget; the user's new memories must not
    be mistaken for the old ones it holds (the user's row is deleted and written again, so its counters
    must not start over)."""
    db = tmp_path / "m.db"
    memory = AgentMemory.open(db, embedder=HashEmbedder())
    user = token("u7")
    old = private_session(memory, user, "7o")
    other = SQLiteStore(db)
    q = HashEmbedder().embed_query(old["text"])
    assert {h.record.session_id for h in other.search(Signal.VECTOR, user, q, 50)} == {old["session"]}  # warm
    assert other.search(Signal.BM25, user, old["text"], 50)
    memory.forget(user)
    new = private_session(memory, user, "7n")  # one write, as before the forget
    for hits in (other.search(Signal.VECTOR, user, q, 50), other.search(Signal.BM25, user, f"{old['text']} {new['text']}", 50)):
        assert {h.record.session_id for h in hits} == {new["session"]}
        assert not any(old["text"] in h.record.text for h in hits)
    other.close()
    memory.close()


# ------------------------------------------------------------------ SIGKILL inside a forget

KILL_TURNS = 100  # per session, two sessions per user: a forget then takes tens of milliseconds


def forget_seconds(db: Path) -> float:
    """How long a child takes from its announcement to the end of its forget and close, to spread the
    kills over all of it (measured on a child, as the kills are)."""
    with AgentMemory.open(db, embedder=HashEmbedder()) as memory:
        keep(memory)
        user, _, _ = victim(memory, "cal", KILL_TURNS)
    p = spawn("forget-close", str(db), user)
    assert p.stdout.readline().strip() == "start"
    start = time.perf_counter()
    assert p.stdout.readline().startswith("forgot")
    took = time.perf_counter() - start
    p.communicate(timeout=30)
    return took


def run_forget_kills(tmp_path: Path, kills: int) -> Counter:
    """Kill a forgetting child at moments spread over its forget, wipe and close; after each kill the file
    passes its integrity check, the user is all there or all gone (records, sessions, user row), another user
    is untouched, and a forget run again erases every byte. Every kill's problems are gathered and reported
    together."""
    db = tmp_path / "kill.db"
    window = 3 * forget_seconds(tmp_path / "calibrate.db")  # a child's timing varies, either way
    rng = random.Random(4321)
    with AgentMemory.open(db, embedder=HashEmbedder()) as memory:
        keep(memory)
    seen: Counter = Counter()
    problems: list[str] = []
    for r in range(kills):
        with AgentMemory.open(db, embedder=HashEmbedder()) as memory:
            user, sessions, words = victim(memory, f"{r}k", KILL_TURNS)
            total = memory.store.count(user)
        assert_present(db, words)
        p = spawn("forget-close", str(db), user)
        assert p.stdout.readline().strip() == "start"
        time.sleep(window * ((r + rng.random()) / kills) ** 2)  # denser early, where the transaction is
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        p.stdout.close()
        store = SQLiteStore(db)  # the only connection: nothing checkpoints behind the test's back
        try:
            con = sqlite3.connect(db)  # closed while the store's is open: not the last, so no checkpoint
            if (check := con.execute("PRAGMA integrity_check").fetchone()[0]) != "ok":
                problems.append(f"kill {r}: the file fails its integrity check: {check}")
            con.close()
            state = (store.count(user), {s.session_id for s in store.list_sessions(user)}, user in store.users())
            there, gone = state == (total, set(sessions), True), state == (0, set(), False)
            seen["there" if there else "gone" if gone else "partial"] += 1
            if not (there or gone):
                problems.append(f"kill {r}: half erased: {state[0]} of {total} records, "
                                f"{len(state[1])} of 2 sessions, user listed: {state[2]}")
            result = store.forget(user)  # run again: completes the erasure and whatever wipe was pending
            if left := left_on_disk(db, words):
                problems.append(f"kill {r}: after the forget ran again, still on disk: {left}")
            got = tuple(getattr(result, f, result) for f in ("records", "sessions", "wiped"))
            want = (state[0], len(state[1]), True)
            if got != want:
                problems.append(f"kill {r}: forget run again returned {result!r}, expected {want}")
            assert store.count("bob") == 6 and [s.session_id for s in store.list_sessions("bob")] == ["b1"]
        finally:
            store.close()
        if left := left_on_disk(db, words):
            problems.append(f"kill {r}: after close, still on disk: {left}")
    assert_present(db, [token("bob")])
    assert not problems, f"{dict(seen)}\n" + "\n".join(problems)
    return seen


@pytest.mark.process
def test_sigkill_during_forget_leaves_all_or_nothing_and_a_rerun_erases_every_byte(tmp_path):
    run_forget_kills(tmp_path, 8)


@pytest.mark.slow
def test_sigkill_during_forget_soak(tmp_path):
    seen = run_forget_kills(tmp_path, 60)
    assert seen["there"] and seen["gone"], seen  # the kills landed before, inside and after the erasure
