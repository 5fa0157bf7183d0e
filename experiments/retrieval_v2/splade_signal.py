"""SPLADE-tiny as a third fused signal (read-only use of ``cbmemory.embedding.splade``), under 2-fold CV by
conversation at x1: its weight in the min-max weighted fusion on top of default_v2 and default_v2_scale.

The document vectors come from ``experiments/splade_alone.py``'s cache (``/tmp/splade_cache.npz``, variant
``context``: the texts the default recipe indexes); queries are encoded here. SPLADE's own top ``pool`` joins
the fusion like the other two lists.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/splade_signal.py
"""

from __future__ import annotations

import numpy as np

from cbmemory.embedding.sparse import SparseMatrix, SparseVector
from cbmemory.embedding.splade import SpladeEncoder
from experiments.retrieval_v2 import strategies as S
from experiments.retrieval_v2.cv import cv_family, report
from experiments.retrieval_v2.harness import Question, User, load


def splade_scores(corpus, path: str = "/tmp/splade_cache.npz", variant: str = "context") -> dict[str, np.ndarray]:
    with np.load(path) as z:
        indptr, ids, weights = z[f"{variant}/indptr"], z[f"{variant}/ids"], z[f"{variant}/weights"]
        users, turns = z[f"{variant}/users"], z[f"{variant}/turns"]
    vecs = [SparseVector(ids[a:b], weights[a:b]) for a, b in zip(indptr[:-1], indptr[1:], strict=True)]
    enc = SpladeEncoder()
    out = {}
    mats = {}
    for uid, u in corpus.users.items():
        pos = {(str(us), str(t)): i for i, (us, t) in enumerate(zip(users, turns, strict=True)) if us == uid}
        order = [pos[(uid, t)] for t in u.turn_ids]
        mats[uid] = SparseMatrix.from_vectors([vecs[i] for i in order])
    for q in corpus.questions:
        out[q.qid] = mats[q.user_id].scores(enc.encode_query(q.question))
    return out


def three_way(q: Question, u: User, sp: np.ndarray, *, pool: int, w_vec: float, w_sp: float, alpha: float,
              lam: float) -> list[int]:
    fused, union, best = S.fused_scores(q, u, pool=pool, w_vec=w_vec)
    if w_sp > 0:
        idx = S.top(sp, pool, positive=True)
        if idx.size:
            vals = sp[idx].astype(np.float64)
            lo, hi = vals.min(), vals.max()
            fused = fused.copy()
            fused[idx] += w_sp * ((vals - lo) / (hi - lo) if hi > lo else 1.0)
            for r, i in enumerate(idx.tolist(), 1):
                best[i] = min(best.get(i, r), r)
            union = np.unique(np.concatenate([union, idx]))
    return S._v2_order(fused, union, best, u, alpha, lam)


def main() -> None:
    c = load(1)
    sp = splade_scores(c)
    for base_name, (pool, w_vec, alpha, lam) in (("default_v2", (100, 1.0, 0.5, 0.5)),
                                                  ("default_v2_scale", (200, 0.75, 0.5, 1.0))):
        fam = {f"w_splade{w}": (lambda q, u, w=w, pool=pool, w_vec=w_vec, alpha=alpha, lam=lam: three_way(
                   q, u, sp[q.qid], pool=pool, w_vec=w_vec, w_sp=w, alpha=alpha, lam=lam))
               for w in (0.0, 0.25, 0.5, 0.75, 1.0)}
        base = fam["w_splade0.0"]
        print(report(f"SPLADE-tiny as a third fused list on {base_name} (baseline: {base_name})",
                     cv_family(c, fam, baseline=base)), flush=True)


if __name__ == "__main__":
    main()
