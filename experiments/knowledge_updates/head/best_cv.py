"""``HEAD_BEST`` chosen by leave one conversation out on the product's own runs (README.md, "The head's best-read
statements given a place"): per setting and record (`train`, `dev`; ×1, ×10) a run of ``eval locomo-updates
--keep-text`` with ``current_value.HEAD_BEST`` patched; per conversation newest shown, stale only, own value and the
lines of context a question; ``cv.choose`` with ``cv.objective``, a tie to the smaller setting.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/best_cv.py RUNS 0 1 2 3

``RUNS`` holds ``L{setting}_{family}{1,10}/cases-{family}-x{1,10}.jsonl``.
"""

from __future__ import annotations

import sys

from cv import choose, run_counts


def main(runs: str, settings: list[int]) -> None:
    keys = [(f, s) for f in ("train", "dev") for s in ("x1", "x10")]
    got = {}
    for g in settings:
        for f, s in keys:
            for conv, row in run_counts(f"{runs}/L{g}_{f}{s[1:]}/cases-{f}-{s}.jsonl").items():
                got[g, (f, s), conv] = row
    convs = sorted({c for _, _, c in got})
    choose(got, keys, convs, settings, lambda g: (-g,))


if __name__ == "__main__":
    main(sys.argv[1], [int(x) for x in sys.argv[2:]])
