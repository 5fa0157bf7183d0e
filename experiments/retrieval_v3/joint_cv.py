"""Leave-one-conversation-out CV of the default's constants over both haystack scales at once (issue 25
items 4 and 5): a setting's score on a conversation is the mean of its recall@10 at x1 and at x10; each fold
picks the setting whose worst training conversation is best, and is scored on the one left out (both
scales). The x10 store is the evaluation's (``cbmemory eval ... --scale 10``), its file named in
``stores.json`` for ``prev=1`` at ``x10``.

    PYTHONPATH=. .venv/bin/python -m experiments.retrieval_v3.joint_cv --x1 X1.db --x10 X10.db
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import numpy as np

from cbmemory.recipes import get_recipe
from cbmemory.store import SQLiteStore
from experiments.retrieval_v3.harness import (
    by_user,
    measure,
    query_vectors,
    questions,
    recipe_search,
    summary,
)


def grid() -> list[dict[str, float]]:
    return [{"pool": p, "nw": nw, "sw": sw, "vw": vw}
            for p, nw, sw, vw in itertools.product((100, 200), (0.5, 1.0), (0.5, 1.0), (0.5, 0.75, 1.0))]


def recipe_of(s: dict[str, float]):
    return get_recipe("default").with_(vector_pool=int(s["pool"]), text_pool=int(s["pool"]), neighbour_weight=s["nw"],
                                       session_weight=s["sw"], weights={"vector": s["vw"], "bm25": 1.0})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--x1", required=True)
    p.add_argument("--x10", required=True)
    p.add_argument("--cache", default="/tmp/v3/qvecs.npz")
    p.add_argument("--out", default="/tmp/v3/joint_cv.jsonl")
    args = p.parse_args()
    qs = questions()
    vecs = query_vectors(qs, Path(args.cache))
    stores = {"x1": SQLiteStore(args.x1, read_only=True), "x10": SQLiteStore(args.x10, read_only=True)}
    done = {}
    if Path(args.out).exists():
        for line in Path(args.out).read_text().splitlines():
            r = json.loads(line)
            done[json.dumps(r["setting"], sort_keys=True)] = r
    with open(args.out, "a") as out:
        for s in grid():
            key = json.dumps(s, sort_keys=True)
            if key in done:
                continue
            rec: dict = {"setting": s}
            for scale, store in stores.items():
                rows = measure(recipe_search(store, recipe_of(s), vecs), qs)
                rec[scale] = {**summary(rows), "by_user": by_user(rows)}
            done[key] = rec
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(key, round(rec["x1"]["recall@10"], 4), round(rec["x10"]["recall@10"], 4), flush=True)
    results = list(done.values())
    users = sorted(results[0]["x1"]["by_user"])

    def score(r: dict, u: str) -> float:
        return (r["x1"]["by_user"][u] + r["x10"]["by_user"][u]) / 2

    for held in users:
        train = [u for u in users if u != held]
        best = max(results, key=lambda r: (min(score(r, u) for u in train), np.mean([score(r, u) for u in train])))
        print(json.dumps({"held_out": held, "chosen": best["setting"], "train_worst": min(score(best, u) for u in train),
                          "held_out_x1": best["x1"]["by_user"][held], "held_out_x10": best["x10"]["by_user"][held]}))
    final = max(results, key=lambda r: (min(score(r, u) for u in users), 0))
    print("chosen on all 8:", json.dumps(final["setting"]), round(final["x1"]["recall@10"], 4),
          round(final["x10"]["recall@10"], 4))


if __name__ == "__main__":
    main()
