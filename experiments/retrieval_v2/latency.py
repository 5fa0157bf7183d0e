"""Search latency of recipes on an evaluation store (LoCoMo dev at a haystack scale), in a process that
holds nothing else: each question's vector is computed first, then every recipe searches every question
(k=10) in turn, and the wall time of ``retrieve`` alone is kept (the query embedding excluded, as the
evaluation's ``latency_ms``; a recipe with the sparse signal encodes the query's sparse vector inside, and
that is timed). Each recipe searches the store of its own ingest settings. Prints p50/p95 per recipe and the
records per user.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/latency.py --scale 10 --n 300
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cbmemory.dates import utcnow
from cbmemory.embedding.onnx import MiniLMEmbedder
from cbmemory.embedding.splade import encoder_named
from cbmemory.recipes import all_recipes, recipe_hits
from experiments.retrieval_v2.harness import open_store


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=1)
    p.add_argument("--n", type=int, default=300, help="questions (every n-th of the set)")
    p.add_argument("--cache-dir", type=Path, default=Path("/tmp/rv2_stores"))
    p.add_argument("--recipes", default="default,default_v2")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    names = args.recipes.split(",")
    stores = {n: open_store(args.cache_dir, args.scale, all_recipes()[n].ingest)[0] for n in names}
    store, es = open_store(args.cache_dir, args.scale)
    sparse = {n: encoder_named(all_recipes()[n].ingest.sparse).encode_query for n in names if all_recipes()[n].ingest.sparse}
    for encode in sparse.values():
        encode("warm up")
    users = {u for u in es.haystacks if store.count(u) == es.haystacks[u].turns}
    questions = [q for q in es.questions if q.user_id in users]
    questions = questions[:: max(1, len(questions) // args.n)]
    emb = MiniLMEmbedder()
    vecs = [emb.embed_query(q.question) for q in questions]
    print(f"x{args.scale}: {len(questions)} questions of {sorted(users)}; records per user "
          f"{min(store.count(u) for u in users)}-{max(store.count(u) for u in users)}")
    now = utcnow()
    lat: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(args.rounds):  # interleaved, so load changes hit every recipe alike
        for q, v in zip(questions, vecs, strict=True):
            for name in names:
                start = time.perf_counter()
                recipe_hits(stores[name], lambda _q, v=v: v, all_recipes()[name], q.user_id, q.question, k=10,
                         reference_date=q.question_date, now=now, encode_sparse=sparse.get(name))
                lat[name].append((time.perf_counter() - start) * 1000)
    for name, v in lat.items():
        print(f"{name}: p50 {np.percentile(v, 50):.2f} ms, p95 {np.percentile(v, 95):.2f} ms ({len(v)} searches)")


if __name__ == "__main__":
    main()
