"""Neighbour windows as context (issue 16): each of the k hits brings the turns up to ``w`` before and after it
in its session; recall counts the evidence anywhere in what the reader gets, tokens@k counts every turn once.
Compared with plain hits at a larger k for the same tokens, per CV fold, at x1 and x10.

    PYTHONPATH=. nice -n 15 .venv/bin/python -m experiments.retrieval_v2.windows [--scale 10]
"""

from __future__ import annotations

import argparse

import numpy as np

from cbmemory_eval.metrics import retrieval_metrics

from .harness import CATEGORIES, FOLD_A, load
from .strategies import make_v2


def window(u, i: int, w: int, before: bool = True) -> list[int]:
    out = [i]
    a = b = i
    for _ in range(w):
        if before and a >= 0:
            a = int(u.prev[a])
            if a >= 0:
                out.append(a)
        if b >= 0:
            b = int(u.next[b])
            if b >= 0:
                out.append(b)
    return out


def run(corpus, ranker, k: int, w: int, before: bool = True):
    rows: dict[str, dict[str, list[float]]] = {}
    for q in corpus.questions:
        if not q.evidence:
            continue
        u = corpus.users[q.user_id]
        top = ranker(q, u)[:k]
        units = [frozenset(u.turn_ids[j] for j in window(u, i, w, before)) for i in top]
        m = retrieval_metrics(q.evidence, units, [k])
        seen = {j for i in top for j in window(u, i, w, before)}
        tokens = corpus.header_tokens + sum(int(u.tokens[j]) for j in seen)
        fold = "A" if q.user_id in FOLD_A else "B"
        for key in ("all", fold, q.category):
            r = rows.setdefault(key, {"r": [], "ra": [], "t": []})
            r["r"].append(m[f"recall@{k}"])
            if q.category == "multi-hop":
                r["ra"].append(m[f"recall_all@{k}"])
            r["t"].append(tokens)
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=1)
    args = p.parse_args()
    corpus = load(args.scale)
    ranker = make_v2(pool=100, alpha=0.5, lam=0.5)
    cats = ("all", "A", "B", *CATEGORIES)
    print("| k | window | " + " | ".join(cats) + " | MH recall_all | tokens |")
    print("|---" * (len(cats) + 4) + "|")
    for k, w, before in ((10, 0, True), (10, 1, False), (10, 1, True), (10, 2, True), (10, 3, True),
                         (20, 0, True), (30, 0, True), (40, 0, True), (50, 0, True), (5, 1, True), (5, 2, True)):
        rows = run(corpus, ranker, k, w, before)
        cells = " | ".join(f"{np.mean(rows[c]['r']):.3f}" if c in rows else "-" for c in cats)
        ra = np.mean(rows["multi-hop"]["ra"])
        print(f"| {k} | {'+' if not before else '±'}{w} | {cells} | {ra:.3f} | {np.mean(rows['all']['t']):.0f} |",
              flush=True)


if __name__ == "__main__":
    main()


def cv_window(scale: int = 1) -> None:
    """The window chosen per fold by one rule fixed in advance: the widest window whose recall@10 is at least
    that of plain hits given as many tokens or more (the smallest k with tokens >= the window's), i.e. a
    window is kept only while it is no worse a use of tokens than more hits. Reported on the other fold."""
    corpus = load(scale)
    ranker = make_v2(pool=100, alpha=0.5, lam=0.5)
    res = {}
    for w in (0, 1, 2, 3, 4):
        res[("w", w)] = run(corpus, ranker, 10, w)
    for k in range(10, 61, 2):
        res[("k", k)] = run(corpus, ranker, k, 0)
    for train, test in (("A", "B"), ("B", "A")):
        def m(key, fold, what):
            return float(np.mean(res[key][fold][what]))
        keep = 0
        for w in (1, 2, 3, 4):
            t = m(("w", w), train, "t")
            plain = min((key for key in res if key[0] == "k" and m(key, train, "t") >= t), key=lambda x: x[1])
            ok = m(("w", w), train, "r") >= m(plain, train, "r")
            print(f"train {train}: ±{w} recall {m(('w', w), train, 'r'):.3f} at {t:.0f} tokens; "
                  f"k={plain[1]} {m(plain, train, 'r'):.3f} at {m(plain, train, 't'):.0f}: {'keep' if ok else 'stop'}")
            if not ok:
                break
            keep = w
        print(f"fold {train} picks ±{keep}; held out on {test}: recall@10 {m(('w', keep), test, 'r'):.3f} "
              f"(±0: {m(('w', 0), test, 'r'):.3f}), tokens {m(('w', keep), test, 't'):.0f}")
