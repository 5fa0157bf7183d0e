"""``HEAD_BEST`` chosen by leave one conversation out on the product's own runs (README.md, "The head's best-read
statements given a place"): per setting and record (`train`, `dev`; ×1, ×10) a run of ``eval locomo-updates
--keep-text`` with ``current_value.HEAD_BEST`` patched; per conversation newest shown, stale only, own value and the
lines of context a question; ``cv.choose`` with ``cv.objective``, a tie to the smaller setting.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/best_cv.py RUNS 0 1 2 3

``RUNS`` holds ``L{setting}_{family}{1,10}/cases-{family}-x{1,10}.jsonl``.
"""

from __future__ import annotations

import sys

from cv import RECORDS, choose, grid_counts


def main(runs: str, settings: list[int]) -> None:
    got, convs = grid_counts(settings, lambda g, f, s: f"{runs}/L{g}_{f}{s[1:]}/cases-{f}-{s}.jsonl")
    choose(got, RECORDS, convs, settings, lambda g: (-g,))


if __name__ == "__main__":
    main(sys.argv[1], [int(x) for x in sys.argv[2:]])
