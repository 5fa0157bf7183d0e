"""The latest word on the matter (README.md, "The latest word on the matter: statements no later one outranks"): the
stage's selection as shipped (the newest ``LATEST`` of the ``TOP`` nearest) plus the skyline of its ranking, the
statements whose score beats every later statement's, the best-ranked of all left out; chosen by leave one
conversation out on the `train` and `dev` phrasings together (``select_cv.py``'s records, replay and objective).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/skyline_cv.py FEATURES_DIR
"""

from __future__ import annotations

import sys

from cv import LATEST, TOP, Replay, choose, first_head_replays, outcome

from cbmemory.retrieval import current_value as C

RECORDS = (TOP, LATEST)  # the selection of the records' runs
SHIPPED = (20, 12)  # the product's selection now (9efec7d)
ALL = 10**6
OFF = (0, 0)
GRID = [OFF] + [(width, depth) for width in (20, 40, ALL) for depth in (2, 3, ALL)]


def skyline(ranked: list[tuple[str, int, float]], depth: int) -> list[str]:
    """Of ``ranked`` (turn id, place, score; best first), newest first, each statement whose score beats every later
    one's: its newest ``depth``, the best-ranked of all left out."""
    out, best = [], float("-inf")
    for tid, _, score in sorted(ranked, key=lambda x: -x[1]):
        if score > best:
            out.append(tid)
            best = score
    return [t for t in out[:depth] if not ranked or t != ranked[0][0]]


def pick(replay: Replay, n: int, width: int, depth: int) -> list[str]:
    """The shipped selection's picks for question ``n`` and the skyline of the ranking's first ``width``."""
    shown = replay.pick(n, C.HEAD_FLOOR, C.HEAD_WEIGHT, *SHIPPED)
    if not width:
        return shown
    return list(dict.fromkeys(shown + skyline(replay.scored(n, C.HEAD_FLOOR, C.HEAD_WEIGHT)[:width], depth)))


def main(where: str) -> None:
    replays, convs = first_head_replays(where)
    got = {(g, k, c): outcome(r.feats, lambda n, r=r: r.pick(n, C.HEAD_FLOOR, C.HEAD_WEIGHT, *RECORDS),
                              lambda n, r=r, g=g: pick(r, n, *g), {c})
           for g in GRID for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, GRID, lambda g: (g == OFF, -g[1], -g[0]))


if __name__ == "__main__":
    main(sys.argv[1])
