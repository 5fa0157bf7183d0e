"""Issue 31: the user's own statements on the matter that the question's hits show, used as examples of how this
user talks about it (an exemplar), to find the later statement that changed it.

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses, the stage as it
ships, plus: the exemplars are the user's statements the default's hits and their windows show (the stage off)
that are on the question's slot by the stage's own test (the statement floor and margin, or a claim of the kind).
Of the statements the slot's search finds (``DEPTH``, ``EMBEDDED``) that the stage does not select and no hit
shows, the newest R whose own words' cosine to an exemplar's is at least ``floor`` are added (a place of their
own, as the reserved place for a change told in passing: adding only shows more, so newest shown cannot fall).

Leave-one-conversation-out on ``train`` over ``GRID`` (objective, weights and folds as ``scale_cv.py``), then
``test`` once for the folds' choice. The rule: ``README.md``, "The user's own words on the matter as examples".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/exemplar_cv.py --features FEAT.pkl \
        --texts TEXTS.pkl [--test]
"""

import claims_cv as K
import clauses_cv as L
import reserve_cv as R
import scale_cv as S

from cbmemory.retrieval import current_value as C

OFF = ("off", 0, None)
GRID = [OFF] + [("exemplar", r, f) for r in (1, 2) for f in (0.7, 0.6, 0.5, 0.4)]


def outcomes(d: dict, k: dict, cf, family: str, user: str, protos, params, asked=None) -> list[dict]:
    """``claims_cv.stage_outcomes`` with the stage as it ships and the exemplars' place under ``params`` (mode, R,
    floor)."""
    mode, reserved, floor = params
    unit = d.setdefault("_unit_O", S.unit(d["O"]))
    d.setdefault("_own_slot", S.by_slot(d["O"], protos))  # kept across the one-case copies below

    def select_for(c):
        shown = {j for j, t in enumerate(d["own"]) if d["tid"][t] in c["shown"]}

        def select(i, found, s, margin, claim):
            whole = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
            picked = sorted(R.ranked(whole, s, claim, k)[:C.TOP])[-C.LATEST:]
            chosen = set(R.with_reserved(picked, i, found, s, cf))
            if mode == "off":
                return sorted(chosen)
            examples = [j for j in shown if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
            if examples:
                near = (unit[found] @ unit[examples].T).max(axis=1)
                like = [j for j, x in zip(found, near.tolist(), strict=True) if x >= floor]
                chosen |= set(sorted(set(like) - chosen - shown)[-reserved:])
            return sorted(chosen)
        return select

    rows = []
    for c in d["cases"]:
        rows += K.stage_outcomes({**d, "cases": [c]}, k, family, user, protos, select_for(c), asked)
    return rows


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    # a tie: off first, then fewer added, then the higher floor
    L.cross_validate(feats, kin, cfs, protos, GRID, OFF, lambda g: (g == OFF, -g[1], g[2] or 0), args.test, outcomes)


if __name__ == "__main__":
    main()
