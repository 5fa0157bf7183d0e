"""Issue 31: the time of a one-turn ``add_messages`` on a store written before what user turns state was kept (a
benchmark store of an earlier version), with the backfill of its older turns (``Writing._keep_older``) on or off:
a first write (the file's check), then 8 timed. Works on a copy.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/kept_write_time.py STORE.db conv-41 on|off
"""

import shutil
import statistics
import sys
import time

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.memory import writing

src, user, mode = sys.argv[1], sys.argv[2], sys.argv[3]
copy = f"{src}.{mode}.db"
shutil.copyfile(src, copy)
if mode == "off":
    writing.Writing._keep_older = lambda self, users: None
emb = MiniLMEmbedder()
emb.embed(["warm up"])
mem = AgentMemory.open(copy, embedder=emb)
mem.add_messages(user, "bt", [{"role": "assistant", "content": "first write: the file's check"}])
times = []
for i in range(8):
    t = time.perf_counter()
    mem.add_messages(user, "bt", [{"role": "user", "content": f"I watered the plants again, day {i}."}])
    times.append(time.perf_counter() - t)
mem.close()
print(mode, "per write ms:", " ".join(f"{1000 * x:.0f}" for x in times),
      "median", f"{1000 * statistics.median(times):.0f}")
