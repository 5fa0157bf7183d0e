"""Issue 30: the relevance floor's constant, by leave-one-conversation-out cross-validation on LoCoMo dev.

Every dev question (with evidence) through the real engine (``retrieve``) on the evaluation's x1 store of the
default's ingest, for the default recipe with each candidate floor (``FilterConfig.floor``, a cosine) and
without one; recall@10 over what the reader gets (hits with their windows), scored by
``experiments.retrieval_v3.harness.measure`` (``cbmemory eval``'s own functions). Each fold picks, on the 7
conversations it sees, the highest floor whose recall@10 there is at most 0.5 points below no floor's, and is
scored on the one left out. Rows per (floor, question) go to ``--out`` (JSONL), so the CV reruns from them.

    PYTHONPATH=shared:. .venv/bin/python -m experiments.relevance_floor.cv --store STORE.db \
        --data ../shared/data/locomo/locomo-dev.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cbmemory.retrieval import get_recipe
from cbmemory.store import SQLiteStore
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.questions import from_locomo
from experiments.retrieval_v3.harness import measure, query_vectors, recipe_search

FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
MAX_LOSS = 0.005  # recall@10 a floor may cost on the conversations a fold sees


def mean_by_user(rows: Sequence[dict[str, Any]], users: set[str]) -> float:
    return float(np.mean([r["r"] for r in rows if r["user"] in users]))


def cross_validate(by_floor: dict[float | None, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    users = sorted({r["user"] for r in by_floor[None]})
    folds = []
    for held in users:
        seen = set(users) - {held}
        base = mean_by_user(by_floor[None], seen)
        ok = [f for f in FLOORS if f in by_floor and base - mean_by_user(by_floor[f], seen) <= MAX_LOSS]
        pick = max(ok) if ok else None
        folds.append({"held_out": held, "floor": pick,
                      "seen_loss": round(base - mean_by_user(by_floor[pick], seen), 4),
                      "held_no_floor": round(mean_by_user(by_floor[None], {held}), 4),
                      "held_floor": round(mean_by_user(by_floor[pick], {held}), 4)})
    return folds


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--cache", default="/tmp/h30b/qvecs.npz")
    p.add_argument("--out", default="/tmp/h30b/floor_rows.jsonl")
    p.add_argument("--floors", default=",".join(str(f) for f in FLOORS))
    args = p.parse_args()
    qs = list(from_locomo(load_locomo(Path(args.data))).questions)
    vecs = query_vectors(qs, Path(args.cache))
    store = SQLiteStore(args.store, read_only=True)
    out = Path(args.out)
    done: dict[float | None, list[dict[str, Any]]] = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done.setdefault(row["floor"], []).append(row)
    base = get_recipe("default").with_(floor=None)
    for floor in [None, *(float(f) for f in args.floors.split(","))]:
        if floor in done:
            continue
        rows = measure(recipe_search(store, base.with_(floor=floor), vecs), qs)
        with out.open("a") as f:
            for row in rows:
                f.write(json.dumps({**row, "floor": floor}) + "\n")
        done[floor] = rows
        print(f"floor {floor}: recall@10 {np.mean([r['r'] for r in rows]):.4f}, "
              f"p50 {np.median([r['ms'] for r in rows]):.1f} ms", flush=True)
    for fold in cross_validate(done):
        print(json.dumps(fold))


if __name__ == "__main__":
    main()
