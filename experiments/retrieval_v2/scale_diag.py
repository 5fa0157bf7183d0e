"""What fails at x10: for the conversations in both the x1 and the x10 caches, per recipe (harness
strategies), the share of distractor turns (other conversations' sessions) among the first 10, which signal
ranked them high, and for each evidence turn found at x1 but lost at x10: whether it was still among the
candidates (in either signal's pool) or fell out of both pools, and which signal lost it.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/scale_diag.py
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from experiments.retrieval_v2 import strategies as S
from experiments.retrieval_v2.harness import load


def ranks(scores: np.ndarray) -> np.ndarray:
    order = np.lexsort((np.arange(scores.size), -scores))
    out = np.empty(scores.size, int)
    out[order] = np.arange(scores.size)
    return out


def main() -> None:
    c1, c10 = load(1), load(10)
    by_id1 = {q.qid: q for q in c1.questions}
    recipes = {"default": (S.default_ranker, 50), "default_v2_scale": (S.make_v2(200, .5, 1.0, w_vec=.75), 200)}
    for name, (ranker, pool) in recipes.items():
        st: Counter[str] = Counter()
        dis_sessions = []
        for q in c10.questions:
            if not q.evidence:
                continue
            u10, q1 = c10.users[q.user_id], by_id1[q.qid]
            u1 = c1.users[q.user_id]
            top10 = ranker(q, u10)[:10]
            top1 = ranker(q1, u1)[:10]
            dis = [i for i in top10 if u10.turn_ids[i].startswith("x")]
            st["hits"] += len(top10)
            st["distractor hits"] += len(dis)
            dis_sessions.append(len({int(u10.sess[i]) for i in dis}))
            vr, br = ranks(q.vec), ranks(q.bm25)
            st["distractor hits in vector top 10"] += sum(vr[i] < 10 for i in dis)
            st["distractor hits in bm25 top 10"] += sum(br[i] < 10 and q.bm25[i] > 0 for i in dis)
            idx10 = {t: i for i, t in enumerate(u10.turn_ids)}
            found1 = {u1.turn_ids[i] for i in top1}
            for e in q.evidence:
                if e not in idx10 or e not in found1:
                    continue
                i = idx10[e]
                if i in top10:
                    st["evidence kept"] += 1
                    continue
                st["evidence lost"] += 1
                in_v, in_b = vr[i] < pool, br[i] < pool and q.bm25[i] > 0
                st["  lost, still a candidate" if (in_v or in_b) else "  lost, out of both pools"] += 1
                st["  lost, out of the vector pool"] += not in_v
                st["  lost, out of the bm25 pool"] += not in_b
        print(f"\n{name} (pool {pool}) at x10, {len(c10.users)} conversations:")
        for key, v in st.items():
            print(f"  {key}: {v}")
        print(f"  distinct distractor sessions among a question's distractor hits: mean {np.mean(dis_sessions):.1f}")


if __name__ == "__main__":
    main()
