"""Issue 31: the write cost per turn with and without the write-time links (``IngestConfig.link_updates``):
one LoCoMo conversation ingested into a fresh SQLite file with the default recipe's ingest, links off and on,
each timed whole (embedding included: the same in both), per turn. Run it from any checkout to compare
versions (PYTHONPATH picks the product; a checkout from before the links times them off only).
``--mode sessions`` (the default): ``add_sessions`` of the whole conversation in one call; ``--mode turns``:
``add_messages`` of one user and assistant pair per call, as an agent's saves write.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/write_cost.py \
        --data ../shared/data/locomo/locomo-dev.json --conversation conv-26 [--mode turns]
"""

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks


def write(mem, hs, mode: str) -> None:
    if mode == "sessions":
        mem.add_sessions(hs.user_id, hs.batches())
        return
    for sid, msgs, date in hs.batches():
        for i in range(0, len(msgs), 2):
            mem.add_messages(hs.user_id, sid, list(msgs[i:i + 2]), date=date)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--mode", choices=("sessions", "turns"), default="sessions")
    args = ap.parse_args()
    convs = load_locomo(args.data)
    hs = scaled_haystacks([c for c in convs if c.sample_id == args.conversation], 1)[args.conversation]
    emb = MiniLMEmbedder()
    emb.embed(["warm up"])
    base = get_recipe("default").ingest
    linking = hasattr(base, "link_updates")
    for links in (False, True, False, True) if linking else (False, False):
        with tempfile.TemporaryDirectory() as d:
            ingest = dataclasses.replace(base, link_updates=links) if linking else base
            mem = AgentMemory.open(Path(d) / "m.db", embedder=emb, ingest=ingest)
            t = time.perf_counter()
            write(mem, hs, args.mode)
            took = time.perf_counter() - t
            n = hs.turns
            linked = sum(bool(getattr(r, "supersedes", ())) for r in mem.session_records(hs.user_id, kinds=None))
            mem.close()
        print(f"{args.mode}, links {'on ' if links else 'off'}: {n} turns in {took:.1f} s, {1000 * took / n:.1f} ms a "
              f"turn, {linked} records with links", flush=True)


if __name__ == "__main__":
    main()
