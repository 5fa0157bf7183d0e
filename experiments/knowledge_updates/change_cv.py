"""Issue 31: a statement with a change word (``cbmemory.claims.CHANGE``: moved, switched, no longer, these days,
new job, ...) counted on the question's slot at a lower floor and margin than any other statement.

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses, the stage as it
ships (``TOP``, ``LATEST``, the claims' and change word's bonuses, the reserved place for a change told in
passing) except that a statement whose words have a change word is on the slot when its cosine to the slot's
nearest description is at least ``floor`` and at least ``margin`` above any other slot's (the statement floor and
margin otherwise: 0.3, -0.1). A statement that announces a change is more likely than another to tell what holds
now, so it may be let in further from the slot's descriptions; it then competes in the ``TOP`` ranking as any
other, so at x10 it may crowd out what was shown.

Leave-one-conversation-out on ``train`` over ``GRID`` (objective, weights and folds as ``scale_cv.py``), then
``test`` once for the folds' choice. The rule: ``README.md``, "A change word lowers the bar".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/change_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl [--test]
"""

import claims_cv as K
import clauses_cv as L
import reserve_cv as R

from cbmemory.retrieval import current_value as C

OFF = ("off", C.STATEMENT_FLOOR, C.STATEMENT_MARGIN)
GRID = [OFF] + [("change", f, m) for f in (0.25, 0.2, 0.15, 0.1) for m in (-0.1, -0.2, -0.3)]


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params, asked=None) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the stage as it ships, a change word's statement on the slot at
    ``params``' (mode, floor, margin)."""
    _, cfloor, cmargin = params

    def select(i, found, s, margin, claim):
        def on(j):
            if claim[j] or (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN):
                return True
            return bool(k["change"][j]) and s[j] >= cfloor and margin[j] >= cmargin
        whole = [j for j in found if on(j)]
        picked = sorted(R.ranked(whole, s, claim, k)[:C.TOP])[-C.LATEST:]
        return R.with_reserved(picked, i, found, s, cf)
    return K.stage_outcomes(d, k, family, user, protos, select, asked)


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    # a tie: off first, then the higher floor and margin
    L.cross_validate(feats, kin, cfs, protos, GRID, OFF, lambda g: (g == OFF, g[1], g[2]), args.test, outcomes,
                     ("train", "dev") if args.dev else ("train",))


if __name__ == "__main__":
    main()
