"""The stage's selection (``TOP``, ``LATEST``) re-chosen with the slot head as then shipped (``cv.first_head``), by
leave-one-conversation-out on the `train` and `dev` phrasings together (README.md, "The stage's selection re-chosen
with the head"): ``mix_cv.py``'s records, replay and objective, the shipped head at its setting; the product's other
lines (told in passing, named again) those of the records' runs less the shipped selection's picks.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/select_cv.py FEATURES_DIR
"""

from __future__ import annotations

import sys

from cv import LATEST, TOP, Replay, choose, first_head_replays, outcome

from cbmemory.retrieval import current_value as C

SHIPPED = (TOP, LATEST)  # the selection of the records' runs
GRID = [SHIPPED] + [(t, n) for t in (10, 15, 20, 30) for n in (6, 8, 10, 12) if n <= t and (t, n) != SHIPPED]


def pick(replay: Replay, n: int, top: int, latest: int) -> list[str]:
    """``Replay.pick`` at the shipped head's setting with another selection."""
    return replay.pick(n, C.HEAD_FLOOR, C.HEAD_WEIGHT, top, latest)


def main(where: str) -> None:
    replays, convs = first_head_replays(where)
    got = {(g, k, c): outcome(r.feats, lambda n, r=r: pick(r, n, *SHIPPED), lambda n, r=r, g=g: pick(r, n, *g), {c})
           for g in GRID for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, GRID, lambda g: (g == SHIPPED, -g[1], -g[0]))

if __name__ == "__main__":
    main(sys.argv[1])
