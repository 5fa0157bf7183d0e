"""Clue sentences written by hand for the slot head (README.md, "Clues written by hand for the head"): the head then
shipped (``cv.first_head``) against the head trained with ``clues.jsonl`` added to the kinds' sentences, and with
``clue_negatives.jsonl`` added to the everyday chat too, chosen by leave one conversation out on the `train` and
`dev` phrasings together (``select_cv.py``'s records, replay and objective; the product's selection (20, 12)).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/clue_cv.py FEATURES_DIR
"""

from __future__ import annotations

import sys

from cv import LATEST, TOP, Replay, choose, conversations, first_head, outcome, records, softmax
from train import fit, training_set

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

RECORDS = (TOP, LATEST)  # the selection of the records' runs
SHIPPED_SELECTION = (20, 12)  # the product's selection now (9efec7d)
SHIPPED = ("shipped", C.HEAD_FLOOR, C.HEAD_WEIGHT)
HEADS = {"clues": (("kinds.jsonl", "clues.jsonl"), ("everyday.jsonl",)),
         "clues+negatives": (("kinds.jsonl", "clues.jsonl"), ("everyday.jsonl", "clue_negatives.jsonl"))}
GRID = [SHIPPED] + [(h, t, b) for h in HEADS for t in (0.5, 0.3, 0.2) for b in (0.1, 0.2, 0.3)]


def main(where: str) -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    heads = {"shipped": first_head(emb)}
    for name, batches in HEADS.items():
        x, y, weights = training_set(emb, batches=batches)
        heads[name] = softmax(*fit(x, y, len(protos[0]) + 1, weights))
    replays = {k: {h: Replay(feats, vec, protos, f) for h, f in heads.items()}
               for k, (feats, vec) in records(where).items()}
    convs = conversations(replays["train", "x1"]["shipped"].feats)
    got = {(g, k, c): outcome(r["shipped"].feats, lambda n, r=r: r["shipped"].pick(n, *SHIPPED[1:], *RECORDS),
                              lambda n, r=r, g=g: r[g[0]].pick(n, g[1], g[2], *SHIPPED_SELECTION), {c})
           for g in GRID for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, GRID, lambda g: (g == SHIPPED, g[1], -g[2]))


if __name__ == "__main__":
    main(sys.argv[1])
