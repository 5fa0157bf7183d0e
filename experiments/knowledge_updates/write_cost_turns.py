"""Issue 31: the write cost per turn of the checkout on PYTHONPATH, before and after the issue's work alike (a checkout
without write-time links times them off only). MODE ``sessions``: ``add_sessions`` of the whole conversation in one
call; ``turns``: ``add_messages`` of one user and assistant pair per call, as an agent's saves write. Fresh SQLite
files, the default recipe's ingest, the offline MiniLM, embedding included.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/write_cost_turns.py DATA CONV MODE
"""
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks

data, conv, mode = sys.argv[1:4]
convs = load_locomo(data)
hs = scaled_haystacks([c for c in convs if c.sample_id == conv], 1)[conv]
emb = MiniLMEmbedder()
emb.embed(["warm up"])
base = get_recipe("default").ingest
settings = [False] + ([True] if hasattr(base, "link_updates") else [])
for links in settings:
    ing = dataclasses.replace(base, link_updates=True) if links else base
    with tempfile.TemporaryDirectory() as d:
        mem = AgentMemory.open(Path(d) / "m.db", embedder=emb, ingest=ing)
        t = time.perf_counter()
        if mode == "sessions":
            mem.add_sessions(hs.user_id, hs.batches())
        else:
            for sid, msgs, date in hs.batches():
                for i in range(0, len(msgs), 2):
                    mem.add_messages(hs.user_id, sid, list(msgs[i:i + 2]), date=date)
        took = time.perf_counter() - t
        mem.close()
    print(f"{mode} links={'on' if links else 'off'} {1000 * took / hs.turns:.1f} ms/turn ({hs.turns} turns)", flush=True)
