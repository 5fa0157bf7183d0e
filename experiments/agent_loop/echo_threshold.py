"""Issue 24 item 2: choose the echo threshold (``cbmemory.ingest.echoes.RESTATES``: the share of a turn's words found in
what its step was shown for the turn to be stored as an echo, which retrieval then leaves out) on the agent-loop
benchmark, by 2-fold cross-validation by conversation (fold A = conv-26/41/43/47, B = conv-30/42/44/48): each
fold picks the threshold with the best loop source recall@10 on its own four conversations, scored on the
other four; the final value is the one both folds' picks bracket, the larger on a tie (fewer turns counted
as echoes). Every threshold's figures are printed per fold, with the wrong-echo figure.

    PYTHONPATH=. .venv/bin/python -m experiments.agent_loop.echo_threshold --data ../shared/data/locomo/locomo-dev.json \
        --out /tmp/echo_cv --cache-dir /tmp/loop_stores
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cbmemory.ingest.echoes as echoes
from cbmemory_eval.loop_cli import loop_benchmark

FOLDS = {"A": ("conv-26", "conv-41", "conv-43", "conv-47"), "B": ("conv-30", "conv-42", "conv-44", "conv-48")}
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)  # 1.01: nothing is an echo (the loop before the fix)


def fold_recall(out: Path, variant: str, convs: tuple[str, ...]) -> float:
    rows = [json.loads(x) for x in (out / "questions" / f"default--{variant}.jsonl").read_text().splitlines()]
    vals = [r["metrics"]["source_recall@10"] for r in rows if r["user_id"] in convs
            and r["metrics"].get("source_recall@10") is not None]
    return sum(vals) / len(vals)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--cache-dir", required=True)
    args = p.parse_args()
    table = {}
    for t in THRESHOLDS:
        echoes.RESTATES = t
        out = Path(args.out) / f"t{t}"
        if not (out / "loop_summary.json").exists():  # a threshold already run is read back
            loop_benchmark(args.data, out, ["default"], cache_dir=args.cache_dir, progress=False)
        summary = json.loads((out / "loop_summary.json").read_text())["results"]["default"]
        table[t] = {f: {v: fold_recall(out, v, convs) for v in ("no_loop", "loop", "loop_wrong5")}
                    for f, convs in FOLDS.items()}
        table[t]["all"] = {v: summary[v]["overall"]["source_recall@10"] for v in ("no_loop", "loop", "loop_wrong5")}
        table[t]["wrong_echo"] = summary["loop_wrong5"].get("wrong_echo")
        print(t, json.dumps(table[t]), flush=True)
    picks = {f: max(THRESHOLDS, key=lambda t: (round(table[t][f]["loop"], 4), t)) for f in FOLDS}
    for f, t in picks.items():
        other = "B" if f == "A" else "A"
        print(f"fold {f} picks {t}: held out on {other}: loop {table[1.01][other]['loop']:.3f} -> "
              f"{table[t][other]['loop']:.3f} (no loop {table[t][other]['no_loop']:.3f})")
    (Path(args.out) / "cv.json").write_text(json.dumps({"table": {str(k): v for k, v in table.items()},
                                                         "picks": picks}, indent=1))


if __name__ == "__main__":
    main()
