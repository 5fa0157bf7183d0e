"""``ACK_FLOOR`` and ``ACK_BONUS`` chosen by leave one conversation out on the product's own runs (README.md, "The
assistant's acknowledgement of a value"): per setting and record (`train`, `dev`; ×1, ×10) a run of ``eval
locomo-updates --keep-text`` with ``current_value.ACK_FLOOR`` and ``ACK_BONUS`` patched; ``cv.choose`` with
``cv.objective``, a tie to the product (0.2, 0), then the higher floor, the smaller bonus.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/ack_cv.py RUNS

``RUNS`` holds ``G{floor}_{bonus}_{family}{1,10}/cases-{family}-x{1,10}.jsonl``, the product's as ``G0.2_0``.
"""

from __future__ import annotations

import sys

from cv import choose, run_counts

SETTINGS = [(0.2, 0), (0.2, 0.1), (0.1, 0), (0.1, 0.1), (0.05, 0), (0.05, 0.1)]


def main(runs: str) -> None:
    keys = [(f, s) for f in ("train", "dev") for s in ("x1", "x10")]
    got = {}
    for g in SETTINGS:
        for f, s in keys:
            for conv, row in run_counts(f"{runs}/G{g[0]}_{g[1]}_{f}{s[1:]}/cases-{f}-{s}.jsonl").items():
                got[g, (f, s), conv] = row
    convs = sorted({c for _, _, c in got})
    choose(got, keys, convs, SETTINGS, lambda g: (g == SETTINGS[0], g[0], -g[1]))


if __name__ == "__main__":
    main(sys.argv[1])
