"""Issue 31: the write cost per turn with and without the write-time links (``IngestConfig.link_updates``):
one LoCoMo conversation ingested into a fresh SQLite file with the default recipe's ingest, links off and on,
each timed whole (embedding included: the same in both), per turn. Run it from any checkout to compare
versions (PYTHONPATH picks the product).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/write_cost.py \
        --data ../shared/data/locomo/locomo-dev.json --conversation conv-26
"""

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.recipes import get_recipe
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--conversation", default="conv-26")
    args = ap.parse_args()
    convs = load_locomo(args.data)
    hs = scaled_haystacks([c for c in convs if c.sample_id == args.conversation], 1)[args.conversation]
    emb = MiniLMEmbedder()
    emb.embed(["warm up"])
    base = get_recipe("default").ingest
    for links in (False, True, False, True):
        with tempfile.TemporaryDirectory() as d:
            mem = AgentMemory.open(Path(d) / "m.db", embedder=emb,
                                   ingest=dataclasses.replace(base, link_updates=links))
            t = time.perf_counter()
            mem.add_sessions(hs.user_id, hs.batches())
            took = time.perf_counter() - t
            n = hs.turns
            linked = sum(bool(r.supersedes) for r in mem.session_records(hs.user_id, kinds=None))
            mem.close()
        print(f"links {'on ' if links else 'off'}: {n} turns in {took:.1f} s, {1000 * took / n:.1f} ms a turn, "
              f"{linked} records with links")


if __name__ == "__main__":
    main()
