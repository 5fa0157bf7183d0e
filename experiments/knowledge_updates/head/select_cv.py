"""The stage's selection (``TOP``, ``LATEST``) re-chosen with the slot head as shipped, by leave-one-conversation-out on
the `train` and `dev` phrasings together (README.md, "The stage's selection re-chosen with the head"): ``mix_cv.py``'s
records, replay and objective, the shipped head at its setting; the product's other lines (told in passing, named
again) those of the records' runs less the shipped selection's picks.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/select_cv.py FEATURES_DIR
"""

from __future__ import annotations

import pickle
import sys

from cv import LATEST, TOP, Replay, choose, outcome

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head

SHIPPED = (TOP, LATEST)  # the selection of the records' runs
GRID = [SHIPPED] + [(t, n) for t in (10, 15, 20, 30) for n in (6, 8, 10, 12) if n <= t and (t, n) != SHIPPED]


def pick(replay: Replay, n: int, top: int, latest: int) -> list[str]:
    """``Replay.pick`` at the shipped head's setting with another selection."""
    return replay.pick(n, C.HEAD_FLOOR, C.HEAD_WEIGHT, top, latest)


def main(where: str) -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    replays = {}
    for family in ("train", "dev"):
        for scale in ("x1", "x10"):
            with open(f"{where}/feat-{family}-{scale}.pkl", "rb") as fh:
                feats, vec = pickle.load(fh)
            replays[family, scale] = Replay(feats, vec, protos, slot_head.load().probabilities)
    convs = sorted({f["case_id"].split(":")[0] for f in replays["train", "x1"].feats})
    got = {(g, k, c): outcome(r.feats, lambda n, r=r: pick(r, n, *SHIPPED), lambda n, r=r, g=g: pick(r, n, *g), {c})
           for g in GRID for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, GRID, lambda g: (g == SHIPPED, -g[1], -g[0]))

if __name__ == "__main__":
    main(sys.argv[1])
