"""Check that the engine's recipe returns what the harness's strategy ranks (same top k on every question),
and time both the default and the new recipe's search on the evaluation's x1 store.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/check_engine.py --recipe default_v2
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

import numpy as np

from cbmemory.dates import utcnow
from cbmemory.recipes import all_recipes, recipe_hits
from experiments.retrieval_v2 import strategies as S
from experiments.retrieval_v2.harness import load, open_store


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--recipe", default="default_v2")
    p.add_argument("--scale", type=int, default=1)
    args = p.parse_args()
    corpus = load(args.scale)
    store, _ = open_store(__import__("pathlib").Path("/tmp/rv2_stores"), args.scale)
    recipe = all_recipes()[args.recipe]
    cfg = recipe.retrieval
    w = {s.name.value: s.weight for s in cfg.signals}
    ranker = S.make_v2(cfg.spec("vector").pool, cfg.context_boost.neighbour_weight, cfg.context_boost.session_weight,
                       w_vec=w.get("vector", 1.0) / w.get("bm25", 1.0)) if args.recipe != "default" else S.default_ranker
    same = 0
    lat: dict[str, list[float]] = {"default": [], args.recipe: []}
    now = utcnow()
    for q in corpus.questions:
        u = corpus.users[q.user_id]
        want = [u.record_ids[i] for i in ranker(q, u)[:10]]
        qvec = q.qvec
        for name in lat:
            start = time.perf_counter()
            hits = recipe_hits(store, lambda _q, v=qvec: v, all_recipes()[name], q.user_id, q.question, k=10,
                            reference_date=datetime.fromtimestamp(q.qdate, timezone.utc), now=now)
            lat[name].append((time.perf_counter() - start) * 1000)
        same += [h.record.record_id for h in hits] == want
    print(f"same top 10 as the harness: {same}/{len(corpus.questions)}")
    for name, v in lat.items():
        print(f"{name}: search p50 {np.percentile(v, 50):.2f} ms, p95 {np.percentile(v, 95):.2f} ms")


if __name__ == "__main__":
    main()
