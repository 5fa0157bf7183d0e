"""Issue 30: the relevance floor's constant, by leave-one-conversation-out cross-validation on LoCoMo dev.

Every dev question (with evidence) through the real engine (``retrieve``) on the evaluation's x1 store of the
default's ingest, for the default recipe with each candidate floor (``FilterConfig.floor``, a cosine) and
without one; recall@10 over what the reader gets (hits with their windows), scored with ``cbmemory eval``'s
own functions. To run every floor from one search per question, the ranking ``retrieve`` hands to
``engine.above_floor`` is kept and each floor's hits are made from it by the engine's own steps for the
default (``above_floor``, ``apart``, ``with_window``, ``fit``); ``--check N`` compares that with ``retrieve``
itself at each floor on the first N questions. Each fold picks, on the 7
conversations it sees, the highest floor whose recall@10 there is at most 0.5 points below no floor's, and is
scored on the one left out (rule ``mean``, then ``worst``: ``cross_validate``). Rows per (floor, question) go to ``--out`` (JSONL), so the CV reruns from them.

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

from cbmemory.context import fit
from cbmemory.models import Hit, SearchFilters
from cbmemory.recipes import Recipe, get_recipe, recipe_hits
from cbmemory.retrieval import engine
from cbmemory.retrieval.ranking import apart
from cbmemory.store import SQLiteStore
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.metrics import recall
from cbmemory_eval.questions import EvalQuestion, from_locomo
from cbmemory_eval.run_state import _units
from experiments.retrieval_v3.harness import query_vectors

FLOORS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
BM25_PASSES = False  # --gate cosine_or_bm25: the floor applies to candidates BM25 did not match
MAX_LOSS = 0.005  # recall@10 a floor may cost on the conversations a fold sees


def every_floor(store: SQLiteStore, recipe: Recipe, q: EvalQuestion, vec: np.ndarray,
                floors: Sequence[float | None], k: int = 10) -> dict[float | None, list[Hit]]:
    """The default's hits for ``q`` at each floor (``None``: none), from one search."""
    kept: dict[str, Any] = {}
    real = engine.above_floor

    def spy(ranking: Any, floor: float, vector: Any, cut: bool) -> Any:
        kept.update(ranking=ranking, vector=vector, cut=cut)
        return real(ranking, floor, vector, cut)

    engine.above_floor = spy
    try:
        recipe_hits(store, lambda _t: vec, recipe.with_(floor=-1.0), q.user_id, q.question, k=k,
                 reference_date=q.question_date)
    finally:
        engine.above_floor = real
    cfg = recipe.retrieval
    out = {}
    for floor in floors:
        ranking = kept["ranking"] if floor is None else real(kept["ranking"], floor, kept["vector"], kept["cut"])
        if BM25_PASSES and floor is not None:  # the variant: a BM25 match passes whatever its cosine
            r = kept["ranking"]
            sim = np.where(r.pool.ranks["bm25"] > 0, np.inf, r.pool.signals["vector"])
            unranked = float(kept["vector"].scores[-1]) if kept["cut"] else -np.inf
            ranking = r.above(floor, sim, unranked)
        hits = ranking.hits(store, apart(ranking.places(), k, cfg.window))
        hits = engine.with_window(store, q.user_id, hits, cfg.window, SearchFilters(), None)
        out[floor] = fit(hits, recipe.context.token_budget, recipe.context)
    return out


def mean_by_user(rows: Sequence[dict[str, Any]], users: set[str]) -> float:
    return float(np.mean([r["r"] for r in rows if r["user"] in users]))


def cross_validate(by_floor: dict[float | None, list[dict[str, Any]]], rule: str) -> list[dict[str, Any]]:
    """Each fold's floor and its held-out recall@10. ``rule``: ``mean``, the highest floor costing at most
    ``MAX_LOSS`` on the 7 conversations together; ``worst``, the highest costing at most ``MAX_LOSS`` on each
    of the 7 (the rule shipped: ``mean`` lost 0.70 points held out, above the issue's 0.5)."""
    users = sorted({r["user"] for r in by_floor[None]})
    floors = sorted(f for f in by_floor if f is not None)

    def loss(f: float, seen: set[str]) -> float:
        if rule == "mean":
            return mean_by_user(by_floor[None], seen) - mean_by_user(by_floor[f], seen)
        return max(mean_by_user(by_floor[None], {u}) - mean_by_user(by_floor[f], {u}) for u in seen)

    folds = []
    for held in users:
        seen = set(users) - {held}
        ok = [f for f in floors if loss(f, seen) <= MAX_LOSS]
        pick = max(ok) if ok else None
        folds.append({"rule": rule, "held_out": held, "floor": pick,
                      "seen_loss": round(loss(pick, seen), 4) if pick is not None else 0.0,
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
    p.add_argument("--check", type=int, default=0, help="compare with retrieve on the first N questions")
    p.add_argument("--gate", choices=("cosine", "cosine_or_bm25"), default="cosine")
    args = p.parse_args()
    global BM25_PASSES
    BM25_PASSES = args.gate == "cosine_or_bm25"
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
    floors = [f for f in [None, *(float(x) for x in args.floors.split(","))] if f not in done]
    if args.check and not BM25_PASSES:
        for q in [q for q in qs if q.evidence][: args.check]:
            fast = every_floor(store, base, q, vecs[q.question], floors)
            for floor in floors:
                slow = recipe_hits(store, lambda _t, q=q: vecs[q.question], base.with_(floor=floor), q.user_id,
                                q.question, k=10, reference_date=q.question_date)
                assert [h.record.record_id for h in slow] == [h.record.record_id for h in fast[floor]], (q, floor)
        print(f"checked: {args.check} questions, every floor, the same hits as retrieve", flush=True)
    rows: dict[float | None, list[dict[str, Any]]] = {f: [] for f in floors}
    for q in qs:
        if not q.evidence:
            continue
        for floor, hits in every_floor(store, base, q, vecs[q.question], floors).items():
            turns, _ = _units(hits)
            rows[floor].append({"user": q.user_id, "category": q.category, "r": recall(q.evidence, turns, 10),
                                "hits": len(hits), "floor": floor})
    with out.open("a") as f:
        for floor in floors:
            for row in rows[floor]:
                f.write(json.dumps(row) + "\n")
            done[floor] = rows[floor]
    for floor in sorted(done, key=lambda x: -2 if x is None else x):
        print(f"floor {floor}: recall@10 {np.mean([r['r'] for r in done[floor]]):.4f}, mean hits "
              f"{np.mean([r['hits'] for r in done[floor]]):.2f}", flush=True)
    for rule in ("mean", "worst"):
        folds = cross_validate(done, rule)
        for fold in folds:
            print(json.dumps(fold))
        before = np.mean([f["held_no_floor"] for f in folds])
        after = np.mean([f["held_floor"] for f in folds])
        print(f"{rule}: held-out recall@10 {before:.4f} -> {after:.4f} ({100 * (before - after):.2f} points lost)")


if __name__ == "__main__":
    main()
