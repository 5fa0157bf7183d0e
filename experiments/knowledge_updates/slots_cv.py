"""Issue 31: the current-value stage's descriptions (``SLOTS``) and constants, by leave-one-conversation-out CV
on the ``train`` phrasings, offline. Per conversation of a ``cbmemory eval locomo-updates`` run's ``work`` folder
(``<conv>-x1-<family>.db``, the injected turns in it) it reads once: every turn's stored vector, the own words of
each user statement embedded alone, and per question its vector and the default recipe's shown turns with the
stage off (``scale_cv.collect``; cached in ``--features``). The stage's outcome for any descriptions and constants is then computed without a store: the
slot search (``DEPTH`` turns nearest the slot's mean description among the stored vectors), the user's own
statements on the slot (``STATEMENT_FLOOR``/``MARGIN``), the latest ``LATEST`` added to what was shown. The
figures with the constants of its time (depth 100, newest 5, no ``TOP``) equal the benchmark's then (train x1:
0.81 newest shown, 0.16 stale only); the selection since is ``scale_cv.py``'s.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/slots_cv.py --work OUT/work \
        --data ../shared/data/locomo/locomo-dev.json --features /tmp/ku/features.pkl [--family train]
"""

import argparse
import itertools
import pickle
from pathlib import Path

import numpy as np
from scale_cv import collect  # this folder's: the same features, read with the stage off

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

GRID = {"sfloor": (0.3, 0.35, 0.4), "smargin": (-0.1, -0.05, 0.0), "depth": (100, 200, None), "latest": (3, 5)}


def unit(m):
    m = np.asarray(m, np.float32)
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def by_slot(m, protos):
    names, owner, rows = protos
    s = unit(m) @ rows.T
    return np.stack([s[:, owner == j].max(axis=1) for j in range(len(names))], axis=1)


def outcomes(feats, protos, sfloor, smargin, depth, latest, qfloor=C.QUESTION_FLOOR):
    """Per case: (user, is a change, newest shown, stale only, turns added)."""
    names, owner, rows = protos
    res = []
    for user, d in feats.items():
        os_ = by_slot(d["O"], protos)
        for c in d["cases"]:
            qs = by_slot(c["q"][None], protos)[0]
            added = set()
            if qs.max() >= qfloor:
                i = int(np.argmax(qs))
                ok = [j for j, k in enumerate(d["own"]) if d["people"][k] <= c["qpeople"]]
                if depth is not None:
                    top = set(np.argsort(-(d["V"] @ unit(rows[owner == i].mean(axis=0))))[:depth].tolist())
                    ok = [j for j in ok if d["own"][j] in top]
                s = os_[:, i]
                m = s - np.max(np.delete(os_, i, axis=1), axis=1)
                added = {d["tid"][d["own"][j]] for j in sorted(j for j in ok if s[j] >= sfloor and m[j] >= smargin)[-latest:]}
            shown = c["shown"] | added
            new, stale = bool(c["cur"] & shown), bool(c["stale"] & shown)
            res.append((user, c["variant"] != "other", new, stale and not new, len(added - c["shown"])))
    return res


def summary(rows):
    ch = [r for r in rows if r[1]]
    return {"newest shown": round(float(np.mean([r[2] for r in ch])), 3),
            "stale only": round(float(np.mean([r[3] for r in ch])), 3),
            "own value shown (other)": round(float(np.mean([r[2] for r in rows if not r[1]])), 3),
            "turns added": round(float(np.mean([r[4] for r in rows])), 2)}


def objective(rows):
    s = summary(rows)
    return s["newest shown"] - s["stale only"] - 0.01 * s["turns added"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--features", required=True)
    ap.add_argument("--family", default="train")
    args = ap.parse_args()
    emb = MiniLMEmbedder()
    path = Path(args.features)
    if path.exists():
        feats = pickle.loads(path.read_bytes())
    else:
        feats = {user: d for (_, user), d in collect(Path(args.work), "x1", args.data, emb, (args.family,)).items()}
        path.write_bytes(pickle.dumps(feats))
    protos = C.prototypes(emb.embed_query)
    print("the module's constants:", summary(outcomes(feats, protos, C.STATEMENT_FLOOR, C.STATEMENT_MARGIN, C.DEPTH,
                                                      C.LATEST)))
    grid = list(itertools.product(*GRID.values()))
    rows = {g: outcomes(feats, protos, *g) for g in grid}
    held = []
    for user in sorted(feats):
        best = max(grid, key=lambda g: objective([r for r in rows[g] if r[0] != user]))
        held += [r for r in rows[best] if r[0] == user]
        print(f"fold {user}: {dict(zip(GRID, best, strict=True))}")
    print("held out, pooled over the folds:", summary(held))


if __name__ == "__main__":
    main()
