"""Integration layer (cli): the command line as a process, where a signal or a closed pipe meets it. Output into a
pipe whose reader has gone (``cbmemory recipes | head``) ends quietly, with no traceback and no "Exception
ignored"; Ctrl-C during an ingest exits 130 with one line saying how many conversations were kept, and every
kept conversation is whole (each is written in one transaction)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cbmemory import AgentMemory
from cbmemory.errors import CbMemoryError
from cbmemory.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[3]
CLI = [sys.executable, "-m", "cbmemory.cli"]
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and pipes")


def run_into_a_closed_pipe(*argv: str) -> subprocess.CompletedProcess:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte is written
    try:
        return subprocess.run([*CLI, *argv], cwd=ROOT, stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)


@pytest.fixture
def small_store(tmp_path, minilm) -> Path:
    path = tmp_path / "m.db"
    with AgentMemory.open(path, embedder=minilm) as m:
        for u in range(30):
            m.add_session(f"user-{u:02d}", "s1", [{"role": "user", "content": f"note {u}"}], date="2023-05-08")
    return path


@pytest.mark.process
@pytest.mark.parametrize("argv", [["recipes"], ["recipes", "--json"], ["stats", "--db", "STORE"]],
                         ids=["recipes", "recipes --json", "stats"])
def test_a_closed_pipe_ends_quietly(small_store, argv):
    r = run_into_a_closed_pipe(*[str(small_store) if a == "STORE" else a for a in argv])
    assert r.returncode == 1 and r.stderr == "", r.stderr


def conversations(n: int, sessions: int = 2, turns: int = 12) -> list[dict]:
    def session(c: int, s: int) -> list[dict]:
        return [{"speaker": "Ann" if t % 2 == 0 else "Bob", "dia_id": f"D{s}:{t + 1}",
                 "text": f"Conversation {c}, session {s}, turn {t}: about the garden and the {t}th tomato."}
                for t in range(turns)]

    out = []
    for c in range(n):
        conv = {"speaker_a": "Ann", "speaker_b": "Bob"}
        for s in range(1, sessions + 1):
            conv[f"session_{s}_date_time"] = f"1:56 pm on {s} May, 2023"
            conv[f"session_{s}"] = session(c, s)
        out.append({"sample_id": f"conv-{c:03d}", "conversation": conv, "qa": []})
    return out


def stored_users(db: Path) -> list[str]:
    try:
        with SQLiteStore(db, create=False, read_only=True) as store:
            return store.users()
    except CbMemoryError:  # not created yet, or its schema not yet written
        return []


@pytest.mark.process
def test_ctrl_c_during_ingest_exits_130_and_keeps_whole_conversations(tmp_path):
    data, db = tmp_path / "many.json", tmp_path / "m.db"
    data.write_text(json.dumps(conversations(200)))
    proc = subprocess.Popen([*CLI, "ingest-dataset", "locomo", str(data), "--db", str(db), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while not stored_users(db) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # until the first conversation is committed
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    kept = stored_users(db)
    assert 1 <= len(kept) < 200
    assert err.startswith(f"cbmemory: interrupted; {len(kept)} of 200 conversations are stored in {db}, each whole")
    with SQLiteStore(db, create=False, read_only=True) as store:
        for user in kept:  # nothing half-written: every kept conversation has all its sessions and turns
            assert len(store.list_sessions(user)) == 2 and store.count(user) == 24
