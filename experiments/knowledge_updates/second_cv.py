"""Issue 31: a question between two kinds of fact (its second-nearest slot within δ of its nearest) reads both: the
stage's selection for each slot, united.

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses, the stage as it
ships (``TOP``, ``LATEST``, the bonuses, the reserved place) for the question's slot; when its second-nearest slot
is also above the question floor and within δ of the nearest, the same selection for that slot is added. Adding
only shows more: newest shown cannot fall, and stale only rises only where the second slot's statements are the
stale value and the first slot's show no current one.

Leave-one-conversation-out on ``train`` over ``GRID`` (objective, weights and folds as ``scale_cv.py``), then
``test`` once for the folds' choice. The rule: ``README.md``, "A question between two kinds of fact".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/second_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl [--test]
"""

import claims_cv as K
import clauses_cv as L
import numpy as np
import reserve_cv as R
import scale_cv as S

from cbmemory.retrieval import current_value as C

OFF = ("off", None)
GRID = [OFF] + [("second", delta) for delta in (0.02, 0.05, 0.1)]


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params, asked=None) -> list[dict]:
    """``reserve_cv.outcomes`` as shipped, and for a question whose second slot is within δ (``params``) the same
    for that slot, the turns added united."""
    _, delta = params
    first = R.outcomes(d, k, cf, family, user, protos, R.SHIPPED)
    if delta is None:
        return first
    out = []
    for c, r in zip(d["cases"], first, strict=True):
        qs = S.by_slot(c["q"][None, :], protos)[0]
        order = np.argsort(-qs)
        a, b = int(order[0]), int(order[1])
        if not (qs[a] >= C.QUESTION_FLOOR and qs[b] >= C.QUESTION_FLOOR and qs[a] - qs[b] <= delta):
            out.append(r)
            continue
        out.append(_united(d, k, cf, family, user, protos, c, (a, b)))
    return out


def _united(d, k, cf, family, user, protos, c, slots):
    """The outcome of ``c`` with the shipped selection of each of ``slots`` united."""
    added: set[str] = set()
    for i in slots:
        def select(j_slot, found, s, margin, claim, i=i):
            whole = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
            picked = sorted(R.ranked(whole, s, claim, k)[:C.TOP])[-C.LATEST:]
            chosen = R.with_reserved(picked, j_slot, found, s, cf)
            added.update(d["tid"][d["own"][j]] for j in chosen)
            return chosen
        pinned = dict(c)
        qs = np.full(len(protos[0]), 0.0)
        qs[i] = 1.0
        pinned[("_qs", id(protos))] = qs
        K.stage_outcomes({**d, "cases": [pinned]}, k, family, user, protos, select)
    shown = c["shown"] | added
    return {"user": user, "family": family, "change": c["variant"] != "other", "variant": c["variant"],
            "new": bool(c["cur"] & shown), "stale_only": bool(c["stale"] & shown) and not c["cur"] & shown,
            "added": len(added - c["shown"])}


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    # a tie: off first, then the smaller δ
    L.cross_validate(feats, kin, cfs, protos, GRID, OFF, lambda g: (g == OFF, -(g[1] or 0)), args.test, outcomes)


if __name__ == "__main__":
    main()
