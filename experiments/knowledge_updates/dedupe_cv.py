"""Issue 31: near-repeats of one statement counted once in the current-value stage's ranking, so a few ways of saying
the old value again do not take the places of the statement that changed it.

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses, the stage as it
ships (``TOP``, ``LATEST``, the bonuses, the reserved place) except the ranking: the statements on the slot are taken
best first (the shipped score), and one whose own words are within cosine θ of a statement already taken joins that
one's group instead of taking a place; ``TOP`` groups are kept, and each group is shown by its newest statement (so
the newest ``LATEST`` of the groups' newest statements are shown). θ 1.01: off (every statement its own group).

Leave-one-conversation-out on ``train`` over ``GRID`` (objective, weights and folds as ``scale_cv.py``), then
``test`` once for the folds' choice. The rule: ``README.md``, "Near-repeats counted once".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/dedupe_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl [--test]
"""

import claims_cv as K
import clauses_cv as L
import reserve_cv as R
import scale_cv as S

from cbmemory.retrieval import current_value as C

OFF = ("off", 1.01)
GRID = [OFF] + [("groups", theta) for theta in (0.95, 0.9, 0.85, 0.8, 0.75)]


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params, asked=None) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the stage as it ships and near-repeats grouped at ``params``' θ."""
    _, theta = params
    unit = d.setdefault("_unit_O", S.unit(d["O"]))

    def select(i, found, s, margin, claim):
        whole = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
        ranked = R.ranked(whole, s, claim, k)
        groups: list[list[int]] = []
        for j in ranked:
            near = [g for g in groups if float((unit[g] @ unit[j]).max()) >= theta]
            if near:
                near[0].append(j)
            elif len(groups) < C.TOP:
                groups.append([j])
        picked = sorted(max(g) for g in groups)[-C.LATEST:]  # a group's newest (statements are in date order)
        return R.with_reserved(picked, i, found, s, cf)
    return K.stage_outcomes(d, k, family, user, protos, select, asked)


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    # a tie: off first, then the higher θ
    L.cross_validate(feats, kin, cfs, protos, GRID, OFF, lambda g: (g == OFF, g[1]), args.test, outcomes)


if __name__ == "__main__":
    main()
