"""Lock timings (issue 29 item 6): a turn's recall and save while another process holds the store's write
lock, and another user's recall in the same process while a save waits. A fresh memory (nothing bound yet,
as a new worker), MiniLM loaded first. Usage: PYTHONPATH=shared python experiments/locks/lock_timings.py DIR"""
import subprocess
import sys
import threading
import time
from pathlib import Path

from cbmemory import AgentMemory, Message

HOLD = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""
path = Path(sys.argv[1]) / "bench.db"
path.unlink(missing_ok=True)
with AgentMemory.open(path) as m:
    for u in ("alice", "bob"):
        m.add_session(u, "s1", [{"role": "user", "content": f"{u} note {i}: I like topic {i}."} for i in range(20)],
                      date="2024-03-01")
holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
faults: list = []
m = AgentMemory.open(path)
m.embedder.inner.embed_query("load the model")  # binds nothing
t = time.perf_counter()
r = m.recall("What do I like?", "alice", on_error=faults.append)
rec = time.perf_counter() - t
t = time.perf_counter()
m.save("alice", "s2", [Message("user", "I moved to Lyon.")], on_error=faults.append)
sav = time.perf_counter() - t
out = {}


def saver() -> None:
    t = time.perf_counter()
    m.save("alice", "s2", [Message("user", "My sister lives in Paris.")], on_error=faults.append)
    out["save"] = time.perf_counter() - t


th = threading.Thread(target=saver)
th.start()
time.sleep(0.3)
t = time.perf_counter()
rb = m.recall("What do I like?", "bob", on_error=faults.append)
other = time.perf_counter() - t
th.join()
holder.stdin.write("\n")  # type: ignore[union-attr]
holder.stdin.flush()  # type: ignore[union-attr]
holder.wait()
m.save("alice", "s2", [Message("user", "She works at the museum.")], on_error=faults.append)
stored = [x.text for x in m.session_records("alice", "s2")]
print(f"recall while locked: {rec:.2f} s, {len(r.hits)} hits, fault={r.fault is not None}")
print(f"save while locked: {sav:.2f} s")
print(f"bob's recall while alice's save waits: {other:.2f} s, {len(rb.hits)} hits (alice's save: {out['save']:.2f} s)")
print(f"alice's s2 once the lock is released and one more save: {stored}")
print("faults:", [f.detail[:90] for f in faults])
m.close()
