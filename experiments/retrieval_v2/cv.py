"""Cross-validated comparison of a family of rankers against the default (see ``harness.py``).

For a family (a grid of one strategy's settings), each fold picks the setting with the best overall
recall@10 on its own 4 conversations; that pick is scored on the other 4 and set beside the default's
score there. A family counts as a gain only if both held-out halves improve.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from .harness import CATEGORIES, FOLD_A, FOLD_B, Corpus, Ranker, evaluate
from .strategies import default_ranker

CATS = ("overall", *CATEGORIES)


def cv_family(corpus: Corpus, family: Mapping[str, Ranker], *, metric: str = "recall@10",
              baseline: Ranker = default_ranker) -> dict[str, Any]:
    start = time.perf_counter()
    folds = {"A": FOLD_A, "B": FOLD_B}
    res: dict[str, dict[str, Any]] = {f: {name: evaluate(corpus, r, users=us) for name, r in family.items()}
                                      for f, us in folds.items()}
    base = {f: evaluate(corpus, baseline, users=us) for f, us in folds.items()}
    out: dict[str, Any] = {"held_out": {}, "seconds": 0.0}
    for train, test in (("A", "B"), ("B", "A")):
        pick = max(family, key=lambda n: (res[train][n]["overall"][metric], n == next(iter(family))))
        out["held_out"][test] = {"pick": pick, "pick_train": res[train][pick]["overall"][metric],
                                 "test": res[test][pick], "base_test": base[test]}
    out["all"] = {name: {f: res[f][name]["overall"][metric] for f in folds} for name in family}
    out["seconds"] = time.perf_counter() - start
    return out


def report(name: str, out: dict[str, Any], metric: str = "recall@10") -> str:
    lines = [f"### {name}  ({out['seconds']:.0f} s)", "",
             "| held-out fold | pick (chosen on other fold) | " + " | ".join(CATS) + " |",
             "|---" * (len(CATS) + 2) + "|"]
    for test, h in out["held_out"].items():
        b, t = h["base_test"], h["test"]
        lines.append(f"| {test} default | - | " + " | ".join(f"{b[c][metric]:.3f}" for c in CATS) + " |")
        lines.append(f"| {test} pick | {h['pick']} | " + " | ".join(
            f"{t[c][metric]:.3f} ({t[c][metric] - b[c][metric]:+.3f})" for c in CATS) + " |")
    gains = [h["test"]["overall"][metric] - h["base_test"]["overall"][metric] for h in out["held_out"].values()]
    verdict = "both halves gain" if all(g > 0 for g in gains) else "NOT a gain on both halves"
    lines.append(f"\nheld-out overall change: {', '.join(f'{g:+.3f}' for g in gains)} -> {verdict}")
    lines.append("\nper setting, fold A / fold B overall: " + "; ".join(
        f"{n} {v['A']:.3f}/{v['B']:.3f}" for n, v in out["all"].items()))
    return "\n".join(lines)
