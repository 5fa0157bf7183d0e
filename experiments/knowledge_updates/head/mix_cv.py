"""The slot head trained on mixed messages too, against the head then shipped (``cv.first_head``), chosen by
leave-one-conversation-out on the `train` and `dev` phrasings together (README.md, "The slot head trained on mixed
messages too"). ``cv.py``'s replay of the stage and objective; the lines the product added besides the ranking (told
in passing, named again) are those of the records' runs (the product with the shipped head) less the shipped head's
ranked picks.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/mix_cv.py FEATURES_DIR [mixed|batches]

``batches``: the head trained on both batches of sentences instead (README.md, "A second batch of the head's
sentences").

``FEATURES_DIR`` holds ``feat-{train,dev}-{x1,x10}.pkl`` (``features.py``, runs of the product with the head).
"""

from __future__ import annotations

import sys

from cv import Replay, choose, conversations, first_head, outcome, records, softmax
from train import TWO_BATCHES, fit, training_set

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

SHIPPED = ("shipped", C.HEAD_FLOOR, C.HEAD_WEIGHT)
CANDIDATE = "mixed"  # the head the shipped one is held against: "mixed" or "batches" (the command's second argument)


def grid(candidate: str) -> list[tuple[str, float, float]]:
    return [SHIPPED] + [(candidate, t, b) for t in (0.5, 0.3, 0.2, 0.15) for b in (0.1, 0.2, 0.3)]


def main(where: str, candidate: str = CANDIDATE) -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    if candidate == "mixed":
        x, y, weights = training_set(emb, mixed=True)
    else:
        x, y, weights = training_set(emb, batches=TWO_BATCHES)
    heads = {"shipped": first_head(emb), candidate: softmax(*fit(x, y, len(protos[0]) + 1, weights))}
    settings = grid(candidate)
    replays = {k: {h: Replay(feats, vec, protos, f) for h, f in heads.items()}
               for k, (feats, vec) in records(where).items()}
    convs = conversations(replays["train", "x1"]["shipped"].feats)
    got = {(g, k, c): outcome(r["shipped"].feats, lambda n, r=r: r["shipped"].pick(n, *SHIPPED[1:]),
                              lambda n, r=r, g=g: r[g[0]].pick(n, g[1], g[2]), {c})
           for g in settings for k, r in replays.items() for c in convs}
    choose(got, list(replays), convs, settings, lambda g: (g == SHIPPED, g[1], -g[2]))

if __name__ == "__main__":
    main(*sys.argv[1:3])
