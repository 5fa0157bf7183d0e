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

import claims_cv as K
import clauses_cv as L
import numpy as np

from cbmemory.retrieval import (
    passing as C,  # RESERVED, CLAUSE_FLOOR, CLAUSE_MARGIN (current_value's until 7 December)
)

OFF = ("off", 0, None, None)
SHIPPED = ("clause", C.RESERVED, C.CLAUSE_FLOOR, C.CLAUSE_MARGIN)  # the folds' choice, as the product has it
GRID = ([OFF] + [("whole", r, None, None) for r in (1, 2)]
        + [(mode, r, f, m) for mode in ("clause", "either") for r in (1, 2) for f in (0.5, 0.45, 0.4, 0.35)
           for m in (0.05, 0, -0.1)])


def ranked(whole: list[int], s, claim, k: dict) -> list[int]:
    """Statements on the slot, nearest first by the stage's score (the claim's and change word's bonuses)."""
    return sorted(whole, key=lambda j: -(s[j] + C.CLAIMED * claim[j] + C.CHANGED * k["change"][j]))


def with_reserved(picked, i: int, found: list[int], s, cf) -> list[int]:
    """``picked`` with the shipped reserved place: the newest ``RESERVED`` others found whose clause is on slot
    ``i`` (``CLAUSE_FLOOR``, ``CLAUSE_MARGIN``)."""
    cs = L.clause_score(cf, len(s), i, C.CLAUSE_FLOOR, C.CLAUSE_MARGIN)
    extra = sorted({j for j in found if cs[j] > -np.inf} - set(picked))[-C.RESERVED:]
    return sorted(set(picked) | set(extra))


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params, asked=None) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the stage as it ships and the reserved statements under ``params`` (mode,
    R, clause floor, clause margin); ``asked``: the question's slot as there."""
    mode, reserved, cfloor, cmargin = params

    def select(i, found, s, margin, claim):
        whole = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
        picked = sorted(ranked(whole, s, claim, k)[:C.TOP])[-C.LATEST:]
        if mode == "off":
            return picked
        ok = set(whole) if mode in ("whole", "either") else set()
        if mode in ("clause", "either"):
            cs = L.clause_score(cf, len(s), i, cfloor, cmargin)
            ok |= {j for j in found if cs[j] > -np.inf}
        extra = sorted(ok - set(picked))[-reserved:]
        return sorted(set(picked) | set(extra))
    return K.stage_outcomes(d, k, family, user, protos, select, asked)


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    # a tie: off first, then fewer reserved, then the higher clause floor and margin
    L.cross_validate(feats, kin, cfs, protos, GRID, OFF, lambda g: (g == OFF, -g[1], g[2] or 0, g[3] or 0), args.test,
                     outcomes)


if __name__ == "__main__":
    main()
