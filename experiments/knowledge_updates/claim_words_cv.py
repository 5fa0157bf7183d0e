"""Issue 31: leave-one-conversation-out on ``train`` over the grid of product runs of ``claim_words.py`` (the rule of
4 December, 20:32 UTC, README): each setting's runs in ``GRID_DIR/b<CLAIMED>_d<CLAIM_DEPTH>_x<scale>/``; the objective
per scale newest shown - stale only - 0.0003 x tokens a question, x1 and x10 weighted equally; a tie to the present
setting (0.1, 0), then the smaller depth, then the smaller weight.

    python3 experiments/knowledge_updates/claim_words_cv.py GRID_DIR
"""

import collections
import glob
import json
import os
import sys

PRESENT = (0.1, 0)
SCALES = ("x1", "x10")


def load(grid: str) -> dict:
    runs = {}
    for d in glob.glob(f"{grid}/b*_x*"):
        b, depth, scale = os.path.basename(d).split("_")
        path = f"{d}/cases-train-{scale}.jsonl"
        if os.path.isdir(d) and os.path.exists(path):
            with open(path) as f:
                runs[(float(b[1:]), int(depth[1:]), scale)] = [json.loads(line) for line in f]
    return runs


def objective(rows: list[dict]) -> float:
    ch = [r for r in rows if r["is_change"]]
    shown = sum(r["new_shown"] for r in ch) - sum(r["stale_only"] for r in ch)
    return shown / len(ch) - 0.0003 * sum(r["tokens"] for r in rows) / len(rows)


def summary(rows: list[dict]) -> str:
    ch = [r for r in rows if r["is_change"]]
    other = [r for r in rows if not r["is_change"]]
    return (f"{sum(r['new_shown'] for r in ch)}/{len(ch)} new, {sum(r['stale_only'] for r in ch)} stale only, own "
            f"{sum(r['new_shown'] for r in other)}/{len(other)}, tokens {sum(r['tokens'] for r in rows) / len(rows):.0f}")


def main() -> None:
    runs = load(sys.argv[1])
    settings = sorted({(b, d) for b, d, _ in runs if all((b, d, s) in runs for s in SCALES)})
    users = sorted({r["user_id"] for r in runs[(*PRESENT, "x1")]})

    def part(g, scale, without=None, only=None):
        return [r for r in runs[(*g, scale)] if r["user_id"] != without and (only is None or r["user_id"] == only)]

    def key(g, without):
        return round(sum(objective(part(g, s, without)) for s in SCALES), 9), g == PRESENT, -g[1], -g[0]

    held: dict[str, list[dict]] = {s: [] for s in SCALES}
    chose: collections.Counter = collections.Counter()
    for u in users:
        best = max(settings, key=lambda g, u=u: key(g, u))
        chose[best] += 1
        print(u, "chose (CLAIMED, CLAIM_DEPTH) =", best)
        for s in SCALES:
            held[s] += part(best, s, only=u)
    for s in SCALES:
        print("held-out train", s, summary(held[s]), "| present", summary(runs[(*PRESENT, s)]))
    print("folds chose", dict(chose))
    for g in settings:
        print(g, " | ".join(f"{s} {summary(runs[(*g, s)])}" for s in SCALES))


if __name__ == "__main__":
    main()
