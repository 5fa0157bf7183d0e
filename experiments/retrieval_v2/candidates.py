"""Every candidate of issue 16 (except SPLADE) under 2-fold CV by conversation on LoCoMo dev x1, one family
at a time (see ``cv.py`` for the protocol); prints one markdown table per family.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/candidates.py [family ...]

Families: fusion, session_boost, session_diversity, session_first, neighbour_smooth, neighbour_slots,
combined (vs default); prf, decomposition, routed_diversity (vs default_v2); routing (per-question-type
choice among default_v2's grid, vs default_v2). ``prf`` and ``decomposition`` score other queries on the
store (``--cache-dir``).
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from experiments.retrieval_v2 import strategies as S
from experiments.retrieval_v2.cv import cv_family, report
from experiments.retrieval_v2.harness import CATEGORIES, FOLD_A, FOLD_B, Corpus, load, score_question

V2 = S.make_v2(100, 0.5, 0.5)


def families(c: Corpus) -> dict[str, tuple[dict, object, str]]:
    """name -> (grid, baseline ranker, metric)."""
    d = S.default_ranker
    return {
        "fusion": ({f"p{p}_wv{w}": S.make_fusion(p, w) for p, w in
                    itertools.product((30, 50, 100, 200), (0.5, 0.75, 1.0, 1.5, 2.0))}, d, "recall@10"),
        "session_boost": ({f"lam{lam}_{a}": S.make_session_boost(lam, a) for lam, a in
                           itertools.product((0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0),
                                             ("max", "topm", "sum"))}, d, "recall@10"),
        "session_diversity": ({f"pen{p}": S.make_session_diverse(p) for p in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)},
                              d, "recall@10"),
        "session_first": ({f"s{n}": S.make_session_first(n) for n in (50, 2, 3, 4, 5, 6)}, d, "recall@10"),
        "neighbour_smooth": ({f"a{a}_{'both' if b else 'next'}": S.make_neighbour_smooth(a, both=b) for a, b in
                              itertools.product((0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5), (True, False))},
                             d, "recall@10"),
        "neighbour_slots": ({f"n{n}_{s}": S.make_neighbour_slots(n, side=s) for n, s in
                             itertools.product((0, 3, 5, 7), ("next", "prev", "both"))}, d, "recall@10"),
        "combined": ({f"p{p}_a{a}_l{lam}": S.make_v2(p, a, lam) for p, a, lam in
                      itertools.product((50, 100), (0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 0.5, 1.0, 1.5, 2.0))},
                     d, "recall@10"),
        "routed_diversity": ({f"pen{p}": S.make_v2_routed(p) for p in (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)}, V2,
                             "recall_all@10"),
        "prf": ({f"m{m}_t{t}_b{b}": S.make_prf(S.PRF(c), m, t, b) for m, t, b in
                 itertools.product((3, 10), (5, 20), (0.0, 0.1, 0.25, 0.5))}, V2, "recall@10"),
        "decomposition": ({f"g{g}": S.make_decomposed(c, g) for g in (0.0, 0.25, 0.5, 1.0, 2.0)}, V2, "recall@10"),
    }


def routing(c: Corpus) -> str:
    """Rule-based question classes (strategies.qtype: temporal / list / other), each routed to the best of a
    grid of default_v2 settings (and the default) on the training fold; scored on the other fold."""
    cands = {f"a{a}_l{lam}": S.make_v2(100, a, lam) for a, lam in itertools.product((0.0, 0.5, 1.0), (0.0, 0.5, 1.0))}
    cands["default"] = S.default_ranker
    qs = [q for q in c.questions if q.evidence]
    per = {n: {q.qid: score_question(q, c.users[q.user_id], r(q, c.users[q.user_id]), 10, c.header_tokens)
               ["recall@10"] for q in qs} for n, r in cands.items()}
    cls = {q.qid: S.qtype(q.question) for q in qs}
    lines = ["classes per category: " + str({cat: dict(Counter(cls[q.qid] for q in qs if q.category == cat))
                                            for cat in CATEGORIES})]
    folds = {"A": FOLD_A, "B": FOLD_B}
    for train, test in (("A", "B"), ("B", "A")):
        def mean(n: str, klass: str, train: str = train) -> float:
            v = [per[n][q.qid] for q in qs if q.user_id in folds[train] and cls[q.qid] == klass]
            return float(np.mean(v)) if v else 0.0
        route = {k: max(cands, key=lambda n, k=k: (mean(n, k), n == "a0.5_l0.5")) for k in ("temporal", "list", "other")}
        rows: dict[str, list[float]] = defaultdict(list)
        base: dict[str, list[float]] = defaultdict(list)
        for q in qs:
            if q.user_id in folds[test]:
                for key in ("overall", q.category):
                    rows[key].append(per[route[cls[q.qid]]][q.qid])
                    base[key].append(per["a0.5_l0.5"][q.qid])
        lines.append(f"held-out {test}, routes chosen on {train}: {route}")
        lines.append("  routed:     " + " ".join(f"{k} {np.mean(rows[k]):.3f}" for k in ("overall", *CATEGORIES)))
        lines.append("  default_v2: " + " ".join(f"{k} {np.mean(base[k]):.3f}" for k in ("overall", *CATEGORIES)))
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("families", nargs="*")
    p.add_argument("--cache-dir", type=Path, default=Path("/tmp/rv2_stores"))
    args = p.parse_args()
    c = load(1, live=True, cache_dir=args.cache_dir)
    fams = families(c)
    for name in args.families or [*fams, "routing"]:
        if name == "routing":
            print("### routing\n" + routing(c))
            continue
        grid, base, metric = fams[name]
        print(report(f"{name} ({metric})", cv_family(c, grid, baseline=base, metric=metric), metric), flush=True)


if __name__ == "__main__":
    main()
