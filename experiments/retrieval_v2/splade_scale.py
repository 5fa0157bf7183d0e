"""SPLADE-tiny as a third fused list at x1 and x10, read the way the default reads (window 1), under 2-fold CV
by conversation: does the learned sparse signal hold up where the vector list fails (the x10 haystack)?

The document vectors are the records' indexed texts as the store holds them (``index_text``: date, speaker,
the turn before), encoded with ``SpladeEncoder(max_terms=128)`` and cached per scale in
``/tmp/rv2_cache/splade_x{scale}.npz`` (the x10 encoding takes minutes). Queries are encoded here.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=2 nice -n 15 .venv/bin/python -m experiments.retrieval_v2.splade_scale \
        --scales 1,10
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from cbmemory.embedding.sparse import SparseMatrix, SparseVector
from cbmemory.embedding.splade import SpladeEncoder

from .harness import CACHE, CATEGORIES, load
from .splade_signal import three_way
from .windows import run

MAX_TERMS = 128
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)


def doc_vectors(scale: int) -> dict[str, list[SparseVector]]:
    path = CACHE / f"splade_x{scale}.npz"
    corpus = load(scale, live=True)
    if not path.exists():
        enc = SpladeEncoder(max_terms=MAX_TERMS)
        arrays: dict[str, np.ndarray] = {}
        for uid, u in corpus.users.items():
            start = time.perf_counter()
            recs = {r.record_id: r for r in corpus.store.get_records(uid, u.record_ids)}
            texts = [recs[rid].index_text for rid in u.record_ids]
            vecs = enc.encode_documents(texts)
            arrays[f"{uid}/indptr"] = np.cumsum([0, *(len(v) for v in vecs)])
            arrays[f"{uid}/ids"] = np.concatenate([v.ids for v in vecs])
            arrays[f"{uid}/weights"] = np.concatenate([v.weights for v in vecs])
            print(f"x{scale} {uid}: {len(texts)} documents in {time.perf_counter() - start:.0f} s",
                  file=sys.stderr, flush=True)
        np.savez(path, **arrays)
    out = {}
    with np.load(path) as z:
        for uid in corpus.users:
            indptr, ids, w = z[f"{uid}/indptr"], z[f"{uid}/ids"], z[f"{uid}/weights"]
            out[uid] = [SparseVector(ids[a:b], w[a:b]) for a, b in zip(indptr[:-1], indptr[1:], strict=True)]
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scales", default="1,10")
    p.add_argument("--encode-only", action="store_true")
    args = p.parse_args()
    enc = SpladeEncoder(max_terms=MAX_TERMS)
    cats = ("all", "A", "B", *CATEGORIES)
    for scale in (int(s) for s in args.scales.split(",")):
        docs = doc_vectors(scale)
        if args.encode_only:
            continue
        corpus = load(scale)
        mats = {uid: SparseMatrix.from_vectors(v) for uid, v in docs.items()}
        qcache: dict[str, SparseVector] = {}
        sp = {}
        for q in corpus.questions:
            if q.question not in qcache:
                qcache[q.question] = enc.encode_query(q.question)
            sp[q.qid] = mats[q.user_id].scores(qcache[q.question])
        print(f"\n## x{scale}: SPLADE-tiny (top {MAX_TERMS} terms) fused into default (pool 100, alpha .5, lam .5), "
              "window 1, k=10\n")
        print("| w_splade | " + " | ".join(cats) + " | MH recall_all | tokens |")
        print("|---" * (len(cats) + 3) + "|")
        table = {}
        for w in WEIGHTS:
            def ranker(q, u, w=w, sp=sp):
                return three_way(q, u, sp[q.qid], pool=100, w_vec=1.0, w_sp=w, alpha=0.5, lam=0.5)
            rows = run(corpus, ranker, 10, 1)
            table[w] = {c: float(np.mean(rows[c]["r"])) for c in cats if c in rows}
            ra = np.mean(rows["multi-hop"]["ra"])
            print(f"| {w} | " + " | ".join(f"{table[w][c]:.3f}" for c in cats if c in table[w])
                  + f" | {ra:.3f} | {np.mean(rows['all']['t']):.0f} |", flush=True)
        for train, test in (("A", "B"), ("B", "A")):
            pick = max(WEIGHTS, key=lambda w: (table[w][train], -w))
            print(f"CV x{scale}: chosen on {train}: w={pick}; held-out {test}: {table[pick][test]:.3f} "
                  f"vs {table[0.0][test]:.3f} ({table[pick][test] - table[0.0][test]:+.3f})")


if __name__ == "__main__":
    main()
