"""Reliability layer: real processes on a real SQLite file, extending test_crash_and_concurrency. A process
killed with SIGKILL inside a forget leaves the user all there or all gone (rows, full-text index) and the
forget can simply be run again; readers searching (vector and full text) while writers append never see
half a batch nor another user's record."""

from __future__ import annotations

import random
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from cbmemory import AgentMemory
from cbmemory.store import SQLiteStore
from cbmemory.store.signals import Signal

from .test_crash_and_concurrency import spawn
from .workers import HashEmbedder, batch

PER_USER = 300


def populate(path: Path, users: int) -> None:
    store = SQLiteStore(path)
    store.bind_embedder(HashEmbedder.name, 16)
    for u in range(users):
        for b in range(2):
            sess, recs, vecs = batch(f"victim-{u}", b, PER_USER // 2)
            store.write([sess], recs, vecs)
    store.close()


def counts(path: Path) -> dict[str, int]:
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    out = dict(con.execute("SELECT user_id, count(*) FROM records GROUP BY user_id").fetchall())
    # sessions and the user's own row go in the same transaction as the records: never one without the other
    with_sessions = {u for (u,) in con.execute("SELECT DISTINCT user_id FROM sessions")}
    with_rows = {u for (u,) in con.execute("SELECT user_id FROM users")}
    assert with_sessions == with_rows == set(out), (with_sessions, with_rows, set(out))
    con.close()
    return out


def run_forget_kills(tmp_path: Path, kills: int) -> int:
    path = tmp_path / "forget.db"
    populate(path, kills)
    rng = random.Random(99)
    interrupted = 0
    for u in range(kills):
        user = f"victim-{u}"
        p = spawn("forget", str(path), user)
        assert p.stdout.readline().strip() == "start"
        time.sleep(rng.uniform(0, 0.02))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        have = counts(path)
        assert have.get(user, 0) in (0, PER_USER), have  # all or nothing
        assert all(have[f"victim-{v}"] == PER_USER for v in range(u + 1, kills))  # others untouched
        interrupted += user in have
        store = SQLiteStore(path)  # the file always opens; the forget is simply run again
        assert store.forget(user).records == have.get(user, 0)
        assert store.count(user) == 0 and store.search(Signal.BM25, user, "batch turn", 10) == []
        store.close()
    assert counts(path) == {}
    return interrupted


def test_sigkill_inside_forget_leaves_the_user_all_there_or_all_gone(tmp_path):
    run_forget_kills(tmp_path, 6)  # interruptions are counted in the soak: a forget takes milliseconds


@pytest.mark.slow
def test_sigkill_inside_forget_soak(tmp_path):
    assert run_forget_kills(tmp_path, 60) >= 1  # some kills really land inside the erasure


def test_searching_readers_never_see_half_a_batch_nor_another_user(tmp_path):
    path = tmp_path / "shared.db"
    AgentMemory.open(path, embedder=HashEmbedder()).close()
    writers, turns, per_call = 4, 48, 6
    procs = [spawn("append", str(path), str(w), str(turns), str(per_call)) for w in range(writers)]
    readers = [spawn("search-read", str(path), "10", str(per_call))]
    for p in procs:
        assert p.communicate(timeout=300)[0].strip() == "done"
    for r in readers:
        out = r.communicate(timeout=300)[0].strip().split()
        assert out[:2] == ["partial", "0"] and int(out[3]) > 0, out
    store = SQLiteStore(path)
    for w in range(writers):
        assert store.count(f"user-{w}") == turns
    assert len({r.text for r in store.list_records("shared-user")}) == writers * turns
    store.close()
