"""default_sparse's other numbers under CV over both haystack scales at once (issue 16): the vector weight
(1 / 0.75 / 0.5), the sparse weight (0.5 / 0.75 / 1) and the session weight (0.5 / 1), window 1. Each fold
picks the best mean of its own x1 and x10 recall@10; the pick is scored on the other fold against
default_sparse (1.0, 0.75, 0.5). Needs ``splade_scale.py``'s cached document vectors.

    PYTHONPATH=. OPENBLAS_NUM_THREADS=2 nice -n 5 .venv/bin/python -m experiments.retrieval_v2.splade_joint
"""

from __future__ import annotations

import numpy as np

from cbmemory.embedding.sparse import SparseMatrix
from cbmemory.embedding.splade import SpladeEncoder

from .harness import load
from .splade_scale import MAX_TERMS, doc_vectors
from .splade_signal import three_way
from .windows import run

BASE = (1.0, 0.75, 0.5)  # default_sparse: vector weight, sparse weight, session weight


def main() -> None:
    enc = SpladeEncoder(max_terms=MAX_TERMS)
    res: dict[tuple[int, float, float, float], dict[str, float]] = {}
    for scale in (1, 10):
        docs, corpus = doc_vectors(scale), load(scale)
        mats = {u: SparseMatrix.from_vectors(v) for u, v in docs.items()}
        encoded: dict[str, object] = {}
        sp = {q.qid: mats[q.user_id].scores(encoded.setdefault(q.question, enc.encode_query(q.question)))
              for q in corpus.questions}
        for wv in (1.0, 0.75, 0.5):
            for ws in (0.5, 0.75, 1.0):
                for lam in (0.5, 1.0):
                    def ranker(q, u, wv=wv, ws=ws, lam=lam, sp=sp):
                        return three_way(q, u, sp[q.qid], pool=100, w_vec=wv, w_sp=ws, alpha=0.5, lam=lam)
                    rows = run(corpus, ranker, 10, 1)
                    res[(scale, wv, ws, lam)] = {c: float(np.mean(rows[c]["r"])) for c in ("all", "A", "B")}
                    print(f"x{scale} w_vec {wv} w_sparse {ws} session {lam}: "
                          + ", ".join(f"{c} {v:.3f}" for c, v in res[(scale, wv, ws, lam)].items()), flush=True)
    settings = sorted({key[1:] for key in res})
    for train, test in (("A", "B"), ("B", "A")):
        pick = max(settings, key=lambda s: res[(1, *s)][train] + res[(10, *s)][train])
        print(f"chosen on {train}: {pick}; held out on {test}: x1 {res[(1, *BASE)][test]:.3f} -> "
              f"{res[(1, *pick)][test]:.3f}, x10 {res[(10, *BASE)][test]:.3f} -> {res[(10, *pick)][test]:.3f}")


if __name__ == "__main__":
    main()
