"""Diversity of what the default shows (issue 25 item 3), on the real engine: the default's ranking without
its window (k deep), then a selection of k, then each chosen hit's window, as the reader gets it.

Selections (``select``):
- ``skip_shown``: a candidate inside the window of one already chosen (same session and kind, within
  ``window`` positions) is shown anyway: skip it and take the next.
- ``penalty`` (MMR across sessions): greedy; each candidate's score less ``penalty`` x the best score x the
  number of hits already chosen from its session.

    PYTHONPATH=. .venv/bin/python -m experiments.retrieval_v3.diversity --store /tmp/v3/x1_paired.db
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from cbmemory.models import Hit, SearchFilters
from cbmemory.recipes import Recipe, get_recipe, recipe_hits
from cbmemory.retrieval.engine import with_window
from cbmemory.store import SQLiteStore
from cbmemory_eval.questions import EvalQuestion
from experiments.retrieval_v3.harness import by_user, measure, query_vectors, questions, summary

DEEP = 60


def select(ranked: Sequence[Hit], k: int, window: int, skip_shown: bool, penalty: float) -> list[Hit]:
    chosen: list[Hit] = []
    left = list(ranked)
    best = max((h.score for h in ranked), default=0.0)
    while left and len(chosen) < k:
        if skip_shown:
            left = [h for h in left if not any(
                c.record.session_id == h.record.session_id and c.record.kind == h.record.kind
                and abs(c.record.position - h.record.position) <= window for c in chosen)]
            if not left:
                break
        if penalty:
            count = {}
            for c in chosen:
                count[c.record.session_id] = count.get(c.record.session_id, 0) + 1
            i = max(range(len(left)), key=lambda j: (left[j].score - penalty * best * count.get(left[j].record.session_id, 0), -j))
        else:
            i = 0
        chosen.append(left.pop(i))
    return chosen


def search_with(store: SQLiteStore, base: Recipe, vecs, window: int, skip_shown: bool, penalty: float):
    ranker = base.with_(window=0, token_budget=None)

    def search(q: EvalQuestion, k: int) -> list[Hit]:
        ranked = recipe_hits(store, lambda _t: vecs[q.question], ranker, q.user_id, q.question, k=max(DEEP, k),
                          reference_date=q.question_date)
        chosen = select(ranked, k, window, skip_shown, penalty)
        return with_window(store, q.user_id, chosen, window, SearchFilters(), None)
    return search


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--cache", default="/tmp/v3/qvecs.npz")
    p.add_argument("--out", default="/tmp/v3/diversity.jsonl")
    args = p.parse_args()
    qs = questions()
    vecs = query_vectors(qs, Path(args.cache))
    store = SQLiteStore(args.store, read_only=True)
    base = get_recipe("default")
    with open(args.out, "a") as out:
        for sw in (0.5, 0.25, 0.0):
            for skip in (False, True):
                for pen in (0.0, 0.05, 0.1, 0.2, 0.4):
                    rows = measure(search_with(store, base.with_(session_weight=sw), vecs, 1, skip, pen), qs)
                    s = summary(rows)
                    rec = {"sw": sw, "skip": skip, "penalty": pen, **{k: round(v, 4) for k, v in s.items()},
                           "by_user": by_user(rows), "by_user_s": by_user(rows, "s"),
                           "by_user_ra_multi": by_user([r for r in rows if r["category"] == "multi-hop"], "ra")}
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    print(sw, skip, pen, json.dumps({k: round(v, 4) for k, v in s.items()}), flush=True)


if __name__ == "__main__":
    main()
