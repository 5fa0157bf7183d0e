"""Issue 30: the floor's search cost in CPU time (not wall clock: the machine was shared at load ~30), the
default and default_no_floor interleaved question by question on LoCoMo dev's x1 store (question vectors
cached, so embedding is excluded).

    PYTHONPATH=shared:. .venv/bin/python -m experiments.relevance_floor.cpu_time --store X1.db --data ... --n 300
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cbmemory.recipes import get_recipe, recipe_hits
from cbmemory.store import SQLiteStore
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.questions import from_locomo
from experiments.retrieval_v3.harness import query_vectors


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--cache", default="/tmp/h30b/qvecs.npz")
    p.add_argument("--n", type=int, default=300)
    args = p.parse_args()
    qs = [q for q in from_locomo(load_locomo(Path(args.data))).questions if q.evidence]
    qs = qs[:: max(1, len(qs) // args.n)][: args.n]
    vecs = query_vectors(qs, Path(args.cache))
    store = SQLiteStore(args.store, read_only=True)
    recipes = {name: get_recipe(name) for name in ("default", "default_no_floor")}
    cpu: dict[str, list[float]] = {name: [] for name in recipes}
    for q in qs[:20]:  # warm the store's caches for both
        for r in recipes.values():
            recipe_hits(store, lambda _t, q=q: vecs[q.question], r, q.user_id, q.question, k=10)
    for i, q in enumerate(qs):
        order = list(recipes) if i % 2 == 0 else list(reversed(recipes))
        for name in order:
            t0 = time.process_time()
            recipe_hits(store, lambda _t, q=q: vecs[q.question], recipes[name], q.user_id, q.question, k=10,
                     reference_date=q.question_date)
            cpu[name].append((time.process_time() - t0) * 1000)
    for name, ms in cpu.items():
        print(f"{name}: CPU ms per search p50 {np.median(ms):.2f}, p95 {np.percentile(ms, 95):.2f}, "
              f"mean {np.mean(ms):.2f} ({len(ms)} searches)")


if __name__ == "__main__":
    main()
