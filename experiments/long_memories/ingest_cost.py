"""Issue 29 item 4: the ingest cost of one 50,000-character message (wall and CPU, records stored), twice.

PYTHONPATH=shared:. .venv/bin/python experiments/long_memories/ingest_cost.py
"""

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from cbmemory import AgentMemory
from tests.support.needles import NEEDLES, with_needle

out = []
for i in range(2):
    with tempfile.TemporaryDirectory() as tmp:
        m = AgentMemory.open(str(Path(tmp) / "p.db"))
        m.add_session("w", "w", [{"role": "user", "content": "warm up"}], date="2024-01-01")
        text = with_needle(50_000, 0.5, NEEDLES[0], seed=10 + i)
        t = time.perf_counter()
        cpu = time.process_time()
        r = m.add_session("u", "s", [{"role": "user", "content": text}], date="2024-04-01")
        out.append((time.perf_counter() - t, time.process_time() - cpu, r.inserted))
        m.close()
print([f"wall {a:.2f}s cpu {b:.2f}s records {c}" for a, b, c in out])
