"""In-process harness for retrieval v3 (issue 25) on LoCoMo dev: the real engine (``retrieve``) on the
evaluation's own cached store, every question, with the metrics of ``cbmemory eval`` (recall@10 and
recall_all@10 over what the reader gets, hits with their windows; session recall@10; recall at equal tokens),
per conversation, so a choice can be cross-validated leave-one-conversation-out.

The store is the evaluation's x1 store for the default's ingest (turns indexed with the turn they answer),
built by ``cbmemory eval locomo --data ../shared/data/locomo/locomo-dev.json --cache-dir DIR``; give its file
with ``--store``. Question vectors are cached in ``--cache`` (MiniLM, computed once).

    PYTHONPATH=. .venv/bin/python -m experiments.retrieval_v3.harness --store /tmp/v3/x1_paired.db --recipes default
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cbmemory.context import fit
from cbmemory.models import Hit
from cbmemory.recipes import Recipe, get_recipe, recipe_hits
from cbmemory.store import SQLiteStore
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.metrics import recall, recall_all, session_units
from cbmemory_eval.questions import EvalQuestion, from_locomo
from cbmemory_eval.run_state import _units

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
NOW = None
BUDGETS = (512, 1024, 2048)


def questions() -> list[EvalQuestion]:
    return list(from_locomo(load_locomo(DATA)).questions)


def query_vectors(qs: Sequence[EvalQuestion], cache: Path) -> dict[str, np.ndarray]:
    if cache.exists():
        data = np.load(cache, allow_pickle=False)
        return {str(t): v for t, v in zip(data["texts"], data["vectors"], strict=True)}
    from cbmemory.embedding import MiniLMEmbedder

    emb = MiniLMEmbedder()
    texts = sorted({q.question for q in qs})
    vecs = np.stack([emb.embed_query(t) for t in texts])
    np.savez(cache, texts=np.array(texts), vectors=vecs)
    return dict(zip(texts, vecs, strict=True))


Search = Callable[[EvalQuestion, int], list[Hit]]


def recipe_search(store: SQLiteStore, recipe: Recipe, vecs: dict[str, np.ndarray]) -> Search:
    def search(q: EvalQuestion, k: int) -> list[Hit]:
        return recipe_hits(store, lambda _t: vecs[q.question], recipe, q.user_id, q.question, k=k,
                        reference_date=q.question_date)
    return search


def measure(search: Search, qs: Sequence[EvalQuestion], k: int = 10, deep: int = 0) -> list[dict[str, Any]]:
    """Per question: recall@k, recall_all@k, session recall@k (what the reader gets at k), and with ``deep``
    recall / recall_all at 512, 1,024 and 2,048 tokens (a list of ``deep`` hits cut by the context stage's
    rule)."""
    rows = []
    for q in qs:
        if not q.evidence:
            continue
        t0 = time.perf_counter()
        hits = search(q, k)
        ms = (time.perf_counter() - t0) * 1000
        turns, sessions = _units(hits)
        row = {"user": q.user_id, "category": q.category, "r": recall(q.evidence, turns, k),
               "ra": recall_all(q.evidence, turns, k), "ms": ms,
               "s": recall(q.evidence_sessions, session_units(sessions), k)}
        if deep:
            more = search(q, deep)
            t2, _ = _units(more)
            for b in BUDGETS:
                n = len(fit(more, b))
                row[f"r_{b}t"], row[f"ra_{b}t"] = recall(q.evidence, t2, n), recall_all(q.evidence, t2, n)
        rows.append(row)
    return rows


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    def m(key: str, where: Callable[[dict[str, Any]], bool] = lambda r: True) -> float:
        vals = [r[key] for r in rows if where(r) and r.get(key) is not None]
        return float(np.mean(vals)) if vals else float("nan")
    out = {"recall@10": m("r"), "session@10": m("s"), "multi_all@10": m("ra", lambda r: r["category"] == "multi-hop"),
           "ms_p50": float(np.median([r["ms"] for r in rows]))}
    for b in BUDGETS:
        if rows and f"r_{b}t" in rows[0]:
            out[f"recall@{b}t"] = m(f"r_{b}t")
            out[f"multi_all@{b}t"] = m(f"ra_{b}t", lambda r: r["category"] == "multi-hop")
    return out


def by_user(rows: Sequence[dict[str, Any]], key: str = "r") -> dict[str, float]:
    users = sorted({r["user"] for r in rows})
    return {u: float(np.mean([r[key] for r in rows if r["user"] == u and r[key] is not None])) for u in users}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--store", required=True)
    p.add_argument("--cache", default="/tmp/v3/qvecs.npz")
    p.add_argument("--recipes", default="default")
    p.add_argument("--deep", type=int, default=0)
    args = p.parse_args()
    qs = questions()
    vecs = query_vectors(qs, Path(args.cache))
    store = SQLiteStore(args.store, read_only=True)
    for name in args.recipes.split(","):
        rows = measure(recipe_search(store, get_recipe(name), vecs), qs, deep=args.deep)
        print(name, json.dumps({k: round(v, 4) for k, v in summary(rows).items()}),
              json.dumps({u: round(v, 3) for u, v in by_user(rows).items()}))


if __name__ == "__main__":
    main()
