"""How long one agent save takes when it adopts the sparse binding another process made (issue 29 item 9):
N records stored without sparse vectors, SPLADE bound by another connection, then one ``save``.
Usage: PYTHONPATH=shared python experiments/locks/adoption_timing.py DIR [N]"""
import sys
import time
from pathlib import Path

from cbmemory import AgentMemory, Message
from cbmemory.recipes import RECIPES
from cbmemory.store import SQLiteStore

path = Path(sys.argv[1]) / "adopt.db"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
path.unlink(missing_ok=True)
with AgentMemory.open(path) as a:
    a.add_session("alice", "s1", [{"role": "user", "content": f"note {i}: I like topic {i} and the weather in town {i}."}
                                  for i in range(n)], date="2024-03-01")
    with SQLiteStore(path) as other:
        other.bind_sparse_encoder(RECIPES["default_sparse"].ingest.sparse)
    t, cpu = time.perf_counter(), time.process_time()
    a.save("alice", "s2", [Message("user", "I moved to Lyon.")])
    took, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"{n} older records: the adopting save took {took:.2f} s ({cpu:.2f} s of CPU); "
          f"{len(a.store.records_without_sparse('alice'))} left without a sparse vector")
