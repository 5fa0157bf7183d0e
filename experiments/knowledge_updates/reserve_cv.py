"""Issue 31: besides the current-value stage's selection, the newest R statements on the matter that it left out
(a place reserved for them: a change told in passing, or one crowded out of ``TOP`` by statements nearer the
slot's descriptions).

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses (the stage as it
ships). Of the statements the slot's search finds (``DEPTH``, ``EMBEDDED``), the newest R not already selected
whose qualification under ``mode`` holds are added:

- ``clause``: one of its clauses is on the slot (``clauses_cv.clauses``, its own floor and margin);
- ``whole``: the whole statement is on the slot or claims the kind (the stage's own test, without ``TOP``);
- ``either``: one or the other.

Adding can only show more: newest shown cannot fall, and stale only rises only where a reserved statement is the
stale one. Leave-one-conversation-out on ``train`` over ``GRID`` (objective, weights and folds as
``scale_cv.py``), then ``test`` once for the folds' choice. The rule: ``README.md``, "A place reserved for the
newest statements on the matter".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reserve_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl --work x1=RUN1/work --work x10=RUN10/work --work x1+ask=RUNA1/work --work x10+ask=RUNA10/work
"""

import argparse
import collections
import pickle
from pathlib import Path

import claims_cv as K
import clauses_cv as L
import numpy as np
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

OFF = ("off", 0, None, None)
GRID = ([OFF] + [("whole", r, None, None) for r in (1, 2)]
        + [(mode, r, f, m) for mode in ("clause", "either") for r in (1, 2) for f in (0.5, 0.45, 0.4, 0.35)
           for m in (0.05, 0, -0.1)])


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the stage as it ships and the reserved statements under ``params`` (mode,
    R, clause floor, clause margin)."""
    mode, reserved, cfloor, cmargin = params

    def select(i, found, s, margin, claim):
        whole = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
        picked = sorted(sorted(whole, key=lambda j: -(s[j] + C.CLAIMED * claim[j] + C.CHANGED * k["change"][j]))
                        [:C.TOP])[-C.LATEST:]
        if mode == "off":
            return picked
        ok = set(whole) if mode in ("whole", "either") else set()
        if mode in ("clause", "either"):
            cs = L.clause_score(cf, len(s), i, cfloor, cmargin)
            ok |= {j for j in found if cs[j] > -np.inf}
        extra = sorted(ok - set(picked))[-reserved:]
        return sorted(set(picked) | set(extra))
    return K.stage_outcomes(d, k, family, user, protos, select)


def run(feats: dict, kin: dict, cfs: dict, protos, params, family: str) -> dict[str, list[dict]]:
    return {label: [r for (fam, user), d in by.items() if fam == family
                    for r in outcomes(d, kin[label][(fam, user)], cfs[label][(fam, user)], fam, user, protos, params)]
            for label, by in feats.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--features", required=True, help="scale_cv.py's cache")
    p.add_argument("--texts", required=True, help="cache of the statements' texts and claims (made when missing)")
    p.add_argument("--work", action="append", default=[], help="LABEL=DIR, the runs the features were read from")
    p.add_argument("--test", action="store_true", help="also run the folds' choice on test (once, by the rule)")
    args = p.parse_args()
    feats = pickle.loads(Path(args.features).read_bytes())
    cache = Path(args.texts)
    if not cache.exists():
        work = {label: Path(d) for label, d in (w.split("=", 1) for w in args.work)}
        cache.write_bytes(pickle.dumps(K.texts(feats, work)))
    kin = pickle.loads(cache.read_bytes())
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    cfs = L.clause_features(kin, emb, protos)
    rows = {g: run(feats, kin, cfs, protos, g, "train") for g in GRID}
    weight = {label: S.ASKING if label.endswith(S.ASKS) else 1 - S.ASKING for label in feats}

    def part(g, label, without=None, only=None):
        return [r for r in rows[g][label] if r["user"] != without and (only is None or r["user"] == only)]

    for g in GRID:
        print(g, {label: S.summary(part(g, label)) for label in feats}, flush=True)
    users = sorted({r["user"] for r in rows[OFF]["x1"]})
    held: dict[str, list[dict]] = {label: [] for label in feats}
    chosen: collections.Counter = collections.Counter()
    for u in users:
        # a tie: off first, then fewer reserved, then the higher clause floor and margin
        best = max(GRID, key=lambda g: (round(sum(weight[label] * S.objective(part(g, label, without=u))
                                                  for label in feats), 6), g == OFF, -g[1], g[2] or 0, g[3] or 0))
        print(u, "chose", best)
        chosen[best] += 1
        for label in feats:
            held[label] += part(best, label, only=u)
    for label in feats:
        print("held-out train", label, S.summary(held[label]), "off:", S.summary(part(OFF, label)))
    print("folds", chosen.most_common())
    if args.test:
        choice = chosen.most_common(1)[0][0]
        for name, g in (("off", OFF), ("chosen", choice)):
            print("test", name, g, {label: S.summary(r) for label, r in run(feats, kin, cfs, protos, g, "test").items()})


if __name__ == "__main__":
    main()
