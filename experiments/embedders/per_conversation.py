"""Per-conversation recall of two `cbmemory eval` runs that differ only in the embedder (README.md here).

    .venv/bin/python experiments/embedders/per_conversation.py OUT_A OUT_B [--recipes vector,default]
        [--metrics recall@10,recall@1024t,recall@2048t]

For each recipe and metric: the mean over questions with evidence (``None`` rows left out, as summary.json
does) per conversation and overall, B - A per conversation, how many conversations B wins, questions B
gains / loses, and a 95% paired bootstrap interval (2,000 resamples of questions, seed 0) of B - A overall.
Markdown on stdout.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def rows(out: Path, recipe: str) -> dict[str, dict]:
    path = out / "questions" / f"{recipe}.jsonl"
    return {r["question_id"]: r for r in map(json.loads, path.read_text().splitlines())}


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def table(a: dict[str, dict], b: dict[str, dict], metric: str) -> list[str]:
    pairs = [(q, a[q]["user_id"], a[q]["metrics"].get(metric), b[q]["metrics"].get(metric)) for q in sorted(a)
             if q in b]
    pairs = [(q, conv, x, y) for q, conv, x, y in pairs if x is not None and y is not None]
    convs = sorted({c for _, c, _, _ in pairs})
    lines = ["| conversation | n | A | B | B - A |", "|---|---|---|---|---|"]
    wins = 0
    for conv in convs:
        xs = [x for _, c, x, _ in pairs if c == conv]
        ys = [y for _, c, _, y in pairs if c == conv]
        d = mean(ys) - mean(xs)
        wins += d > 0
        lines.append(f"| {conv} | {len(xs)} | {mean(xs):.3f} | {mean(ys):.3f} | {d:+.3f} |")
    xs, ys = [p[2] for p in pairs], [p[3] for p in pairs]
    lines.append(f"| **all** | {len(xs)} | {mean(xs):.3f} | {mean(ys):.3f} | {mean(ys) - mean(xs):+.3f} |")
    diffs = [y - x for x, y in zip(xs, ys, strict=True)]
    rng = random.Random(0)
    boots = sorted(mean([diffs[rng.randrange(len(diffs))] for _ in diffs]) for _ in range(2000))
    lines.append("")
    lines.append(f"B wins {wins} of {len(convs)} conversations; questions B gains {sum(d > 0 for d in diffs)}, "
                 f"loses {sum(d < 0 for d in diffs)}; B - A 95% paired bootstrap [{boots[50]:+.3f}, "
                 f"{boots[1949]:+.3f}]")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("a", type=Path)
    ap.add_argument("b", type=Path)
    ap.add_argument("--recipes", default="vector,default_no_window,default")
    ap.add_argument("--metrics", default="recall@10,recall@1024t,recall@2048t")
    args = ap.parse_args()
    for recipe in args.recipes.split(","):
        a, b = rows(args.a, recipe), rows(args.b, recipe)
        for metric in args.metrics.split(","):
            print(f"\n### {recipe}, {metric} (A = {args.a.name}, B = {args.b.name})\n")
            print("\n".join(table(a, b, metric)))


if __name__ == "__main__":
    main()
