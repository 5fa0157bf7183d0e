"""SPLADE-tiny query encoding restricted to the user's word pieces, on LoCoMo dev: how many pieces a user's
sparse vectors hold, the encoding's time full and restricted, whether the query vectors and the
``default_sparse`` results change, recall, and the search latency of ``default`` and ``default_sparse``.

The store is built once (``--db``; kept for reruns) through ``AgentMemory`` with ``recipe="default_sparse"``
(one user per conversation, as the evaluation does). Per question: the query encoded over all 30,522 pieces
(``encode_query(text)``, what searches paid before) and over the user's (``encode_query(text, terms)`` with
``store.sparse_terms(user)``, what ``AgentMemory.search`` does now), each timed ``--reps`` times (median per
question). Then every question is searched with ``default_sparse`` both ways (``retrieve``, k=10, the
question's date) and its evidence recall@10 (hits with their windows, as the evaluation counts) compared.
Latency: ``default``, ``default_sparse`` (restricted) and ``default_sparse`` over all pieces, each variant over
the timed questions in a block, the blocks in turn ``--rounds`` times, with the dense query vector precomputed
("excluded") and embedded by MiniLM in the call ("included", as ``AgentMemory.search`` pays it, no cache).
BLAS threads: as the environment says (``OPENBLAS_NUM_THREADS=1`` below; unset, OpenBLAS's default).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python experiments/splade_query/locomo_restrict.py --out /tmp/sq.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from cbmemory import AgentMemory, Hit
from cbmemory.dates import utcnow
from cbmemory.embedding.onnx import MiniLMEmbedder
from cbmemory.embedding.splade import SpladeEncoder
from cbmemory.recipes import get_recipe, recipe_hits
from cbmemory_eval.datasets.locomo import default_path, load_locomo
from cbmemory_eval.metrics import retrieval_metrics
from cbmemory_eval.questions import from_locomo


def _median_ms(f: Callable[[], object], reps: int) -> float:
    took = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        took.append(time.perf_counter() - t0)
    return 1000 * float(np.median(took))


def _stats(ms: Sequence[float]) -> dict[str, float]:
    return {"median": round(float(np.median(ms)), 3), "p95": round(float(np.percentile(ms, 95)), 3),
            "mean": round(float(np.mean(ms)), 3)}


def _units(hits: Sequence[Hit]) -> list[frozenset[str]]:
    return [frozenset(r.turn_id or r.record_id for r in (h.record, *h.context)) for h in hits]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(default_path() or ""))
    p.add_argument("--db", default="/tmp/splade_query/locomo_default_sparse.db")
    p.add_argument("--timed", type=int, default=100, help="questions whose encoding is timed")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3, help="latency rounds over the timed questions")
    p.add_argument("--no-recall", action="store_true", help="skip the recall comparison (every question twice)")
    p.add_argument("--out")
    args = p.parse_args()
    es = from_locomo(load_locomo(args.data))
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    fresh = not Path(args.db).exists()
    mem = AgentMemory.open(args.db, recipe="default_sparse")
    if fresh:
        t0 = time.perf_counter()
        for user, hay in es.haystacks.items():
            mem.add_sessions(user, hay.batches())
        print(f"built {args.db} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    store, enc = mem.store, mem.sparse_encoder
    assert isinstance(enc, SpladeEncoder)
    load = {"start": os.getloadavg()}
    terms = {u: store.sparse_terms(u) for u in es.haystacks}
    users = {u: {"records": store.count(u), "terms": int(t.size) if t is not None else None}
             for u, t in terms.items()}
    enc.encode_query("warm up")
    questions = es.questions

    # the vectors: full, restricted, and whether they differ beyond the left-out terms
    beyond, over_cap = 0, 0
    uncut = SpladeEncoder()  # no max_terms: how many terms are positive
    uncut._loaded = enc._load()
    for q in questions:
        t = terms[q.user_id]
        full, restricted = enc.encode_query(q.question), enc.encode_query(q.question, terms=t)
        keep = np.isin(full.ids, t)
        masked = (full.ids[keep], full.weights[keep])
        over_cap += len(uncut.encode_query(q.question)) > (enc.max_terms or 0)
        if not (np.array_equal(masked[0], restricted.ids) and np.allclose(masked[1], restricted.weights, atol=1e-5)):
            beyond += 1

    # encoding time, the first ``timed`` questions, interleaved full / restricted
    timed = questions[: args.timed]
    enc_full, enc_restricted, enc_with_store = [], [], []
    for q in timed:
        t = terms[q.user_id]
        enc_full.append(_median_ms(lambda q=q: enc.encode_query(q.question), args.reps))
        enc_restricted.append(_median_ms(lambda q=q, t=t: enc.encode_query(q.question, terms=t), args.reps))
        enc_with_store.append(_median_ms(
            lambda q=q: enc.encode_query(q.question, terms=store.sparse_terms(q.user_id)), args.reps))

    # recall@10 of default_sparse, full vs restricted query vectors, every question
    emb = MiniLMEmbedder()
    emb.embed_query("warm up")
    vecs = {q.question_id: emb.embed_query(q.question) for q in questions}
    sparse_recipe, default_recipe = get_recipe("default_sparse"), get_recipe("default")
    now = utcnow()
    recall: dict[str, list[float]] = {"full": [], "restricted": []}
    changed = 0
    for q in () if args.no_recall else questions:
        ranked = {}
        for name, encode in (("full", enc.encode_query),
                             ("restricted", lambda text, u=q.user_id: enc.encode_query(text, terms=terms[u]))):
            hits = recipe_hits(store, lambda _t, v=vecs[q.question_id]: v, sparse_recipe, q.user_id, q.question, k=10,
                            reference_date=q.question_date, now=now, encode_sparse=encode)
            ranked[name] = [h.record.record_id for h in hits]
            if q.evidence:
                r = retrieval_metrics(q.evidence, _units(hits), [10])["recall@10"]
                if r is not None:
                    recall[name].append(r)
        changed += ranked["full"] != ranked["restricted"]

    # search latency, default vs default_sparse (restricted, as AgentMemory.search encodes; and over all
    # pieces, as before): each variant over the timed questions in a block of its own, the blocks in turn
    # ``rounds`` times; the runs that call MiniLM after the others (its ONNX threads, and BLAS's after a
    # threaded product, keep spinning after a call, which slows whatever runs next on 2 cores)
    lat: dict[str, list[float]] = {}
    for column, embed_of in (("excluded", lambda v: (lambda _t, v=v: v)), ("included", lambda v: emb.embed_query)):
        for _ in range(args.rounds):
            for name, recipe, over_all in (("default", default_recipe, False), ("default_sparse", sparse_recipe, False),
                                           ("default_sparse, over all pieces", sparse_recipe, True)):
                for q in timed:
                    embed = embed_of(vecs[q.question_id])
                    encode = (None if recipe is default_recipe else enc.encode_query if over_all
                              else lambda text, u=q.user_id: enc.encode_query(text, terms=store.sparse_terms(u)))
                    t0 = time.perf_counter()
                    recipe_hits(store, embed, recipe, q.user_id, q.question, k=10, reference_date=q.question_date,
                             now=now, encode_sparse=encode)
                    lat.setdefault(f"{name} {column}", []).append(1000 * (time.perf_counter() - t0))
    load["end"] = os.getloadavg()
    out = {
        "questions": len(questions), "users": users, "vocab": 30522,
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"), "load": load,
        "vectors": {"differ_beyond_masking": beyond, "over_max_terms": over_cap, "max_terms": enc.max_terms},
        "encode_ms": {"questions": len(timed), "reps": args.reps, "full": _stats(enc_full),
                      "restricted": _stats(enc_restricted), "restricted_with_store_terms": _stats(enc_with_store)},
        "default_sparse_recall@10": {k: round(float(np.mean(v)), 4) if v else None for k, v in recall.items()},
        "recall_questions": len(recall["full"]), "top10_changed": changed,
        "latency_ms": {k: _stats(v) for k, v in lat.items()},
    }
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
