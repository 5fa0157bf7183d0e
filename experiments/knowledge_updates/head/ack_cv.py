"""The acknowledgement's constants chosen by leave one conversation out on the product's own runs (README.md, "The
assistant's acknowledgement of a value" and "... a place of its own"): per setting and record (`train`, `dev`; ×1,
×10) a run of ``eval locomo-updates --keep-text`` with ``current_value``'s constants patched; ``cv.choose`` with
``cv.objective``. The first version: ``ACK_FLOOR`` and ``ACK_BONUS``, a tie to the product (0.2, 0), then the higher
floor, the smaller bonus; the second (``places``): ``ACK_PLACES`` and ``ACK_FLOOR``, a tie to the product (0
places), then fewer places, the higher floor.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/ack_cv.py RUNS [places]

``RUNS`` holds ``G{floor}_{bonus}_{family}{1,10}/cases-{family}-x{1,10}.jsonl`` (the product's as ``G0.2_0``), or for
``places`` ``P{places}_{floor}_...`` (the product's as ``P0_0.05``).
"""

from __future__ import annotations

import sys

from cv import RECORDS, choose, grid_counts

SETTINGS = [(0.2, 0), (0.2, 0.1), (0.1, 0), (0.1, 0.1), (0.05, 0), (0.05, 0.1)]  # (floor, bonus)
PLACES = [(0, 0.05), (1, 0.1), (1, 0.05), (2, 0.1), (2, 0.05)]  # (places, floor)


def main(runs: str, places: bool) -> None:
    settings, prefix = (PLACES, "P") if places else (SETTINGS, "G")
    got, convs = grid_counts(settings, lambda g, f, s: f"{runs}/{prefix}{g[0]}_{g[1]}_{f}{s[1:]}/cases-{f}-{s}.jsonl")
    prefer = (lambda g: (g == PLACES[0], -g[0], g[1])) if places else (lambda g: (g == SETTINGS[0], g[0], -g[1]))
    choose(got, RECORDS, convs, settings, prefer)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] == ["places"])
