"""Reliability layer: real processes on a real SQLite file (WAL). A writer killed with SIGKILL mid-batch
leaves the file clean with each batch all-or-nothing; concurrent writers lose and duplicate nothing and
readers never see half a batch."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from cbmemory import AgentMemory
from cbmemory.store import SQLiteStore

from .workers import HashEmbedder, batch

ROOT = Path(__file__).resolve().parents[2]
BATCH = 400
PER_RUN = 3


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tests.reliability.workers", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def batch_sizes(path: Path) -> Counter:
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    sizes = Counter(dict(con.execute(
        "SELECT json_extract(annotations, '$.batch'), count(*) FROM records GROUP BY 1").fetchall()))
    # every record carries its full-text terms (written in the same row, so in the same transaction)
    empty = con.execute("SELECT count(*) FROM records WHERE length(terms) < 16").fetchone()[0]
    con.close()
    assert empty == 0
    return sizes


def kill_during_a_batch(path: Path, rng: random.Random, first: int) -> int:
    p = spawn("crash", str(path), str(first), str(PER_RUN), str(BATCH))
    assert p.stdout.readline().strip() == "ready"
    target = first + rng.randrange(PER_RUN)
    for line in p.stdout:
        if line.strip() == f"start {target}":
            time.sleep(rng.uniform(0, 0.01))
            break
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    return target


def run_kills(tmp_path: Path, kills: int) -> None:
    rng = random.Random(1234)
    path = tmp_path / "crash.db"
    interrupted = 0
    for kill in range(kills):
        target = kill_during_a_batch(path, rng, kill * PER_RUN)
        sizes = batch_sizes(path)
        assert all(n == BATCH for n in sizes.values()), sizes  # all or nothing
        interrupted += str(target) not in sizes
    assert interrupted >= kills // 4  # most kills really landed inside the announced batch
    # ingest resumes idempotently: writing every batch again completes the set without duplicates
    store = SQLiteStore(path)
    store.bind_embedder(HashEmbedder.name, 16)
    for b in range(kills * PER_RUN):
        sess, recs, vecs = batch("victim", b, BATCH)
        store.write([sess], recs, vecs)
    store.close()
    assert batch_sizes(path) == Counter({str(b): BATCH for b in range(kills * PER_RUN)})


@pytest.mark.process
def test_sigkill_mid_batch_leaves_batches_all_or_nothing(tmp_path):
    run_kills(tmp_path, 20)


@pytest.mark.slow
def test_sigkill_soak(tmp_path):
    run_kills(tmp_path, 200)


@pytest.mark.process
def test_concurrent_writers_lose_nothing_and_readers_never_see_half_a_batch(tmp_path):
    path = tmp_path / "shared.db"
    AgentMemory.open(path, embedder=HashEmbedder()).close()  # create the file once
    writers, turns, per_call = 4, 120, 6
    procs = [spawn("append", str(path), str(w), str(turns), str(per_call)) for w in range(writers)]
    reader = spawn("read", str(path), "40", str(per_call))
    for p in procs:
        assert p.communicate(timeout=300)[0].strip() == "done"
    out = reader.communicate(timeout=300)[0].strip()
    assert out == "partial 0", out
    store = SQLiteStore(path)
    shared = store.list_records("shared-user")
    texts = [r.text for r in shared]
    assert len(texts) == writers * turns and len(set(texts)) == writers * turns
    for w in range(writers):
        assert store.count(f"user-{w}") == turns
    store.close()
