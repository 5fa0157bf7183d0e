"""Reliability layer: another process holds the store's write lock while agents run their turns (issue 29, item
6). A real second process holds ``BEGIN IMMEDIATE`` on the real SQLite file; the hash embedder (the locks are
under test, not retrieval). A turn's recall never writes, so it answers at once; a save waits at most
``SAVE_WAIT`` then holds its turns, which the next save of the session stores first, in order; a write
waiting for the lock never stops another user's recall in the same process."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from datetime import datetime, timezone

import pytest

from cbmemory import AgentMemory, Message
from cbmemory.agent import SAVE_WAIT
from cbmemory.store import SQLiteStore

from .workers import HashEmbedder

HOLD = """
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""
DAY = datetime(2024, 4, 1, tzinfo=timezone.utc)
TIMEOUT = 8.0  # the store's own wait, for writes outside an agent's save


class Holder:
    """A second process holding the file's write lock until :meth:`release`."""

    def __init__(self, path):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "locked"

    def release(self):
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.write("\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=30)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "locked.db"
    with AgentMemory.open(p, embedder=HashEmbedder()) as m:
        m.add_session("alice", "s1", [{"role": "user", "content": "My sister lives in Paris."}], date="2024-03-01")
        m.add_session("bob", "s1", [{"role": "user", "content": "I keep bees in the garden."}], date="2024-03-01")
    return p


def fresh(path):
    """A memory opened now (as a new worker would): it has bound nothing yet."""
    return AgentMemory(SQLiteStore(path, timeout=TIMEOUT), HashEmbedder())


def test_a_recall_never_writes_so_another_process_holding_the_write_lock_does_not_stall_it(path):
    holder = Holder(path)
    faults = []
    try:
        with fresh(path) as m:
            start = time.perf_counter()
            found = m.recall("Where does my sister live?", "alice", today=DAY, on_error=faults.append)
            took = time.perf_counter() - start
    finally:
        holder.release()
    assert faults == [] and [h.record.text for h in found.hits] == ["My sister lives in Paris."]
    assert took < TIMEOUT / 2  # old: the first recall's bind check waited for the lock (a write transaction)


@pytest.mark.process
def test_a_save_waits_a_bounded_time_then_holds_the_turns_for_the_next_save(path):
    holder = Holder(path)
    faults = []
    try:
        with fresh(path) as m:
            start = time.perf_counter()
            assert m.save("alice", "s2", [Message("user", "My sister moved to Lyon.")], date="2024-04-01",
                          on_error=faults.append) is None
            took = time.perf_counter() - start
            holder.release()
            m.save("alice", "s2", [Message("user", "She works at the museum.")], on_error=faults.append)
            stored = [r.text for r in m.session_records("alice", "s2")]
            day = m.sessions("alice")[-1].occurred_at.date().isoformat()
    finally:
        holder.release()
    assert SAVE_WAIT <= took < SAVE_WAIT + 2.5  # old: the store's whole timeout, then the turn was lost
    assert len(faults) == 1 and "1 turns held" in faults[0].detail and faults[0].stage == "save"
    assert stored == ["My sister moved to Lyon.", "She works at the museum."]  # in the order said
    assert day == "2024-04-01"  # the held turn kept its step's date


def test_a_write_waiting_for_the_lock_does_not_stop_another_users_recall_in_the_process(path):
    with fresh(path) as m:
        m.recall("bees", "bob")  # warm: the user's columns are loaded
        holder = Holder(path)
        errors = []

        def write():
            try:  # outside an agent's save: waits the store's timeout for the lock, then raises
                m.add_messages("alice", "s1", [{"role": "user", "content": "Another line."}])
            except Exception as exc:  # noqa: BLE001 - the expected StoreUnavailableError
                errors.append(exc)

        writer = threading.Thread(target=write)
        try:
            writer.start()
            time.sleep(0.5)  # the writer is waiting for the lock
            start = time.perf_counter()
            found = m.recall("What do I keep in the garden?", "bob")
            took = time.perf_counter() - start
            waiting = writer.is_alive()
        finally:
            holder.release()
            writer.join(timeout=TIMEOUT + 5)
    assert [h.record.text for h in found.hits] == ["I keep bees in the garden."] and found.fault is None
    assert waiting and took < 2.0  # old: bob's recall waited behind alice's write (the store's whole timeout)
