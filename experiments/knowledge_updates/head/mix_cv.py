"""The slot head trained on mixed messages too, against the head as shipped, chosen by leave-one-conversation-out on the
`train` and `dev` phrasings together (README.md, "The slot head trained on mixed messages too"). ``cv.py``'s replay
of the stage and objective; the lines the product added besides the ranking (told in passing, named again) are those
of the records' runs (the product with the shipped head) less the shipped head's ranked picks.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/mix_cv.py FEATURES_DIR [mixed|batches]

``batches``: the head trained on both batches of sentences instead (README.md, "A second batch of the head's
sentences").

``FEATURES_DIR`` holds ``feat-{train,dev}-{x1,x10}.pkl`` (``features.py``, runs of the product with the head).
"""

from __future__ import annotations

import pickle
import sys

import numpy as np
from cv import Replay, ids
from train import TWO_BATCHES, fit, training_set

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head

SHIPPED = ("shipped", C.HEAD_FLOOR, C.HEAD_WEIGHT)
SCALES = ("x1", "x10")
CANDIDATE = "mixed"  # the head the shipped one is held against: "mixed" or "batches" (the command's second argument)


def grid(candidate: str) -> list[tuple[str, float, float]]:
    return [SHIPPED] + [(candidate, t, b) for t in (0.5, 0.3, 0.2, 0.15) for b in (0.1, 0.2, 0.3)]


def outcome(shipped: Replay, replay: Replay, tau: float, beta: float, convs: set[str]):
    """``cv.Replay.outcome`` with the product's other lines taken against the shipped head's picks."""
    new_n = stale_n = changes = own = others = lines = 0
    for n, f in enumerate(replay.feats):
        if f["case_id"].split(":")[0] not in convs:
            continue
        cur, stale = ids(f)
        stage = set(f["stage"])
        extras = stage - set(shipped.pick(n, SHIPPED[1], SHIPPED[2]))
        chosen = set(replay.pick(n, tau, beta)) | extras
        new = (f["new_shown"] and cur not in stage) or cur in chosen
        old = (f["stale_shown"] and stale not in stage) or stale in chosen
        lines += len(chosen)
        if f["is_change"]:
            changes, new_n, stale_n = changes + 1, new_n + new, stale_n + (old and not new)
        else:
            others, own = others + 1, own + new
    return new_n, stale_n, changes, own, others, lines / max(1, changes + others)


def main(where: str, candidate: str = CANDIDATE) -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query, emb.embed_queries)
    if candidate == "mixed":
        x, y, weights = training_set(emb, mixed=True)
    else:
        x, y, weights = training_set(emb, batches=TWO_BATCHES)
    w, b = fit(x, y, len(protos[0]) + 1, weights)

    def other(v):
        m = np.asarray(v, dtype=np.float64)
        z = (m / np.linalg.norm(m, axis=1, keepdims=True)) @ w + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return (p / p.sum(axis=1, keepdims=True))[:, :-1]

    heads = {"shipped": slot_head.load().probabilities, candidate: other}
    settings = grid(candidate)
    replays = {}
    for family in ("train", "dev"):
        for scale in SCALES:
            with open(f"{where}/feat-{family}-{scale}.pkl", "rb") as fh:
                feats, vec = pickle.load(fh)
            replays[family, scale] = {h: Replay(feats, vec, protos, f) for h, f in heads.items()}
    convs = sorted({f["case_id"].split(":")[0] for f in replays["train", "x1"]["shipped"].feats})
    got = {(g, k, c): outcome(r["shipped"], r[g[0]], g[1], g[2], {c})
           for g in settings for k, r in replays.items() for c in convs}

    def objective(g, among):
        total = 0.0
        for k in replays:
            rows = [got[g, k, c] for c in among]
            asked = sum(r[2] + r[4] for r in rows)
            total += sum(r[0] - r[1] for r in rows) / sum(r[2] for r in rows)
            total -= 0.01 * sum(r[5] * (r[2] + r[4]) for r in rows) / asked
        return total

    held = {k: [0, 0, 0] for k in replays}
    chosen = []
    for c in convs:
        rest = [x for x in convs if x != c]
        best = max(settings, key=lambda g: (round(objective(g, rest), 9), g == SHIPPED, g[1], -g[2]))
        chosen.append(best)
        for k in replays:
            r = got[best, k, c]
            held[k] = [held[k][0] + r[0], held[k][1] + r[1], held[k][2] + r[3]]
    print("folds chose:", chosen)
    print("held out (newest shown, stale only, own value):", held)
    for g in settings:
        print(g, {f"{k[0]} {k[1]}": tuple(sum(got[g, k, c][i] for c in convs) for i in (0, 1, 3)) for k in replays},
              round(objective(g, convs), 4))


if __name__ == "__main__":
    main(*sys.argv[1:3])
