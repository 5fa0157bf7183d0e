"""The stage's selection (``TOP``, ``LATEST``) re-chosen with the slot head as shipped, by leave-one-conversation-out on
the `train` and `dev` phrasings together (README.md, "The stage's selection re-chosen with the head"): ``mix_cv.py``'s
records, replay and objective, the shipped head at its setting; the product's other lines (told in passing, named
again) those of the records' runs less the shipped selection's picks.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/head/select_cv.py FEATURES_DIR
"""

from __future__ import annotations

import pickle
import sys

from cv import Replay, ids

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head

SHIPPED = (C.TOP, C.LATEST)
GRID = [SHIPPED] + [(t, n) for t in (10, 15, 20, 30) for n in (6, 8, 10, 12) if n <= t and (t, n) != SHIPPED]


def pick(replay: Replay, n: int, top: int, latest: int) -> list[str]:
    """``Replay.pick`` at the shipped head's setting with another selection."""
    if n not in replay.ranked:
        return []
    rules, cos, p = replay.ranked[n]
    scored = []
    for (tid, _, place), r, c, pp in zip(replay.feats[n]["pool"], rules, cos, p, strict=True):
        if r is not None:
            scored.append((tid, place, r + C.HEAD_WEIGHT * pp))
        elif pp >= C.HEAD_FLOOR:
            scored.append((tid, place, c + C.HEAD_WEIGHT * pp))
    kept = sorted(scored, key=lambda x: -x[2])[:top]
    return [t for t, _, _ in sorted(kept, key=lambda x: x[1])][-latest:]


def outcome(replay: Replay, top: int, latest: int, convs: set[str]):
    new_n = stale_n = changes = own = others = lines = 0
    for n, f in enumerate(replay.feats):
        if f["case_id"].split(":")[0] not in convs:
            continue
        cur, stale = ids(f)
        stage = set(f["stage"])
        extras = stage - set(pick(replay, n, *SHIPPED))
        chosen = set(pick(replay, n, top, latest)) | extras
        new = (f["new_shown"] and cur not in stage) or cur in chosen
        old = (f["stale_shown"] and stale not in stage) or stale in chosen
        lines += len(chosen)
        if f["is_change"]:
            changes, new_n, stale_n = changes + 1, new_n + new, stale_n + (old and not new)
        else:
            others, own = others + 1, own + new
    return new_n, stale_n, changes, own, others, lines / max(1, changes + others)


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
    got = {(g, k, c): outcome(r, *g, {c}) for g in GRID for k, r in replays.items() for c in convs}

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
        best = max(GRID, key=lambda g: (round(objective(g, rest), 9), g == SHIPPED, -g[1], -g[0]))
        chosen.append(best)
        for k in replays:
            r = got[best, k, c]
            held[k] = [held[k][0] + r[0], held[k][1] + r[1], held[k][2] + r[3]]
    print("folds chose:", chosen)
    print("held out (newest shown, stale only, own value):", held)
    for g in GRID:
        print(g, {f"{k[0]} {k[1]}": tuple(sum(got[g, k, c][i] for c in convs) for i in (0, 1, 3)) for k in replays},
              round(objective(g, convs), 4))


if __name__ == "__main__":
    main(sys.argv[1])
