"""2-fold CV by conversation of default_v2's numbers over both haystack scales at once: each fold picks the
setting with the best mean of its x1 and x10 overall recall@10 (its own conversations only), and the pick
is scored on the other fold at both scales, beside default_v2 and default. The x10 cache may hold only some
conversations (those fully ingested); each fold then counts the ones it has.

    PYTHONPATH=. nice -n 15 .venv/bin/python experiments/retrieval_v2/joint_cv.py
"""

from __future__ import annotations

import itertools

from experiments.retrieval_v2 import strategies as S
from experiments.retrieval_v2.harness import CATEGORIES, FOLD_A, FOLD_B, evaluate, load

CATS = ("overall", *CATEGORIES)


def main() -> None:
    corpora = {"x1": load(1), "x10": load(10)}
    grid = {f"p{p}_wv{w}_a{a}_l{lam}": S.make_v2(p, a, lam, w_vec=w)
            for p, w, a, lam in itertools.product((100, 200), (1.0, 0.75, 0.5), (0.5, 1.0), (0.5, 1.0, 1.5))}
    refs = {"default": S.default_ranker, "default_v2": S.make_v2(100, 0.5, 0.5)}
    folds = {"A": FOLD_A, "B": FOLD_B}
    res = {(name, f, sc): evaluate(c, r, users=us)
           for name, r in {**grid, **refs}.items() for f, us in folds.items() for sc, c in corpora.items()}

    def objective(name: str, f: str) -> float:
        return (res[(name, f, "x1")]["overall"]["recall@10"] + res[(name, f, "x10")]["overall"]["recall@10"]) / 2

    for train, test in (("A", "B"), ("B", "A")):
        pick = max(grid, key=lambda n: objective(n, train))
        print(f"\nheld-out {test}: pick (chosen on {train}) {pick}, its training objective {objective(pick, train):.3f}")
        print("| row | scale | " + " | ".join(CATS) + " |")
        for name in ("default", "default_v2", pick):
            for sc in corpora:
                r = res[(name, test, sc)]
                print(f"| {name} | {sc} | " + " | ".join(f"{r[c]['recall@10']:.3f}" for c in CATS) + " |")
    print("\nobjective per setting (A / B):")
    for name in grid:
        print(f"  {name}: {objective(name, 'A'):.3f} / {objective(name, 'B'):.3f}")


if __name__ == "__main__":
    main()
