"""Issue 31, "A value named for the first time, after the matter's best-ranked statement" (README): leave one
conversation out over the product's runs of each setting (``train`` and ``dev``, x1 and x10), ``head/cv.py``'s
objective: the sum over (family, scale) of (newest shown - stale only) / changes, less 0.01 x the lines of context
added a question against off. A tie to off, then the fewer places, then the higher floor.

    python3 experiments/knowledge_updates/anew/anew_cv.py OFF_PREFIX GRID_PREFIX

``OFF_PREFIX``: runs ``{OFF_PREFIX}_{train1,dev1,train10,dev10}`` (off); ``GRID_PREFIX``: runs
``{GRID_PREFIX}_{places}_{floor}_{...}``, each with ``--keep-text``.
"""

import glob
import json
import sys
from collections import defaultdict

KEYS = ("train1", "dev1", "train10", "dev10")
GRID = [(a, f) for a in (1, 2) for f in ("0", "0.05", "0.1")]


def rows(run: str) -> dict[str, dict]:
    path = glob.glob(f"{run}/cases-*.jsonl")[0]
    return {r["case_id"]: r for r in map(json.loads, open(path))}


def outcome(run: dict[str, dict], off: dict[str, dict]) -> dict[str, list[float]]:
    """Per conversation: newest shown, stale only, changes, own shown, others, lines added (sum)."""
    out: dict[str, list[float]] = defaultdict(lambda: [0.0] * 6)
    for cid, r in run.items():
        o = out[r["user_id"]]
        if r["is_change"]:
            o[0] += r["new_shown"]
            o[1] += r["stale_only"]
            o[2] += 1
        else:
            o[3] += r["new_shown"]
            o[4] += 1
        o[5] += len(r["text"].splitlines()) - len(off[cid]["text"].splitlines())
    return out


def objective(got: dict, g, among: list[str]) -> float:
    total = 0.0
    for k in KEYS:
        rs = [got[g, k][c] for c in among]
        asked = sum(r[2] + r[4] for r in rs)
        total += sum(r[0] - r[1] for r in rs) / sum(r[2] for r in rs)
        total -= 0.01 * sum(r[5] for r in rs) / asked
    return total


def prefer(g) -> tuple:
    """Larger is preferred on a tie: off, then fewer places, then the higher floor."""
    return (1, 0, 0.0) if g == "off" else (0, -g[0], float(g[1]))


def main(off_prefix: str, grid_prefix: str) -> None:
    offs = {k: rows(f"{off_prefix}_{k}") for k in KEYS}
    got = {("off", k): outcome(offs[k], offs[k]) for k in KEYS}
    for g in GRID:
        for k in KEYS:
            got[g, k] = outcome(rows(f"{grid_prefix}_{g[0]}_{g[1]}_{k}"), offs[k])
    convs = sorted(got["off", "train1"])
    settings = ["off", *GRID]
    held = defaultdict(lambda: [0.0] * 6)
    for c in convs:
        rest = [x for x in convs if x != c]
        best = max(settings, key=lambda g: (round(objective(got, g, rest), 9), *prefer(g)))
        print(f"fold {c}: chose {best}")
        for k in KEYS:
            for i, v in enumerate(got[best, k][c]):
                held[k][i] += v
    for k in KEYS:
        h = held[k]
        print(f"held out {k}: newest {h[0]:.0f} / stale only {h[1]:.0f} of {h[2]:.0f}, own {h[3]:.0f} of {h[4]:.0f}, "
              f"lines added {h[5]:.0f}")
    for g in settings:
        per = {k: [sum(got[g, k][c][i] for c in convs) for i in range(6)] for k in KEYS}
        print(g, round(objective(got, g, convs), 4),
              "  ".join(f"{k} {p[0]:.0f}/{p[1]:.0f},{p[3]:.0f} +{p[5] / (p[2] + p[4]):.2f}l" for k, p in per.items()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
