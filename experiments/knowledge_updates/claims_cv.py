"""Issue 31: in the current-value stage's ``TOP`` ranking, statements that claim the question's kind of fact first.

Offline on ``scale_cv.py``'s features (the same stores' ``work`` folders give the statements' texts): a statement
that claims the question's kind (``cbmemory.claims``, the stage's kinds mapped to the rules' by ``KINDS``) gets
β added to its cosine to the slot, with ``union`` it is on the slot even below the floor or margin, and one with a
change word (``cbmemory.claims.CHANGE``) gets γ. Leave-one-conversation-out on ``train`` over ``GRID`` (objective,
weights and folds as ``scale_cv.py``), then ``test`` for the choice.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/claims_cv.py --features FEAT.pkl \
        --work x1=RUN1/work --work x10=RUN10/work --work x1+ask=RUNA1/work --work x10+ask=RUNA10/work
"""

import argparse
import collections
import itertools
import pickle
from pathlib import Path

import numpy as np
import scale_cv as S

from cbmemory import AgentMemory
from cbmemory.claims import CHANGE, claims
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.models import SearchFilters, conversation_order
from cbmemory.retrieval import current_value as C
from cbmemory.text import stated

KINDS = C.KINDS  # the stage's kinds of fact -> the write-time rules' (the seven others have no rule)
GRID = {"beta": (0, 0.05, 0.1, 0.2, 1), "gamma": (0, 0.05, 0.1), "union": (False, True), "top": (10, 15, 20),
        "latest": (6, 8)}
PRESENT = (0, 0, False, C.TOP, C.LATEST)


def texts(feats: dict, work: dict[str, Path]) -> dict:
    """Per label and (family, conversation): each user statement's words, claimed kinds and change word, in the
    features' order (checked against them)."""
    emb = MiniLMEmbedder()
    out: dict = {}
    for label, by in feats.items():
        out[label] = {}
        for (family, user), d in by.items():
            mem = AgentMemory.open(work[label] / f"{user}-{label.split('+')[0]}-{family}.db", embedder=emb)
            recs = sorted(mem.store.list_records(user, SearchFilters(kinds=("turn",))), key=conversation_order)
            mem.close()
            said = [stated(r.text) if r.role == "user" else "" for r in recs]
            own = [i for i, t in enumerate(said) if t]
            assert own == d["own"] and [r.turn_id for r in recs] == d["tid"], (label, family, user)
            out[label][(family, user)] = {"text": [said[i] for i in own],
                                          "claims": [frozenset(claims(said[i])) for i in own],
                                          "change": [bool(CHANGE.search(said[i])) for i in own]}
    return out


def stage_outcomes(d: dict, k: dict, family: str, user: str, protos, select, asked=None) -> list[dict]:
    """``scale_cv.outcomes`` for one conversation with the statements the stage adds chosen by ``select(i, found, s,
    margin, claim)``: for the question's slot ``i``, of the user's statements (indices into ``d["own"]``) the
    ``found`` ones (the slot's search, ``DEPTH`` and ``EMBEDDED`` the module's), given each one's cosine to the slot
    ``s``, its ``margin`` over any other slot's and whether it ``claim``s the slot's kind; it returns those shown.
    ``asked``: the question's slot by other descriptions (prototypes with the same slot names) and its own floor
    and margin, ``(protos, floor, margin)``; ``None``: by ``protos`` and the module's."""
    qprotos, qfloor, qmargin = asked if asked is not None else (protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
    names, owner, rows = protos
    own_slot = d.setdefault("_own_slot", S.by_slot(d["O"], protos))
    pos = {t: j for j, t in enumerate(d["own"])}
    res = []
    for c in d["cases"]:
        qs = c.setdefault(("_qs", id(qprotos)), S.by_slot(c["q"][None, :], qprotos)[0])
        order = np.argsort(-qs)
        added: set[str] = set()
        # the product's gate (current_value.about_the_user): a question not about the user gets no statements
        # (features read before the gate was recorded are of train and test, whose questions all pass it)
        if c.get("first_person", True) and qs[order[0]] >= qfloor and qs[order[0]] - qs[order[1]] >= qmargin:
            i = int(order[0])
            ranked = d.setdefault(("_rank", i), np.argsort(-(d["V"] @ S.unit(rows[owner == i].mean(axis=0)))))
            matter = C.ABOUT_PEOPLE.get(names[i], frozenset())
            found = [pos[t] for t in ranked[:C.DEPTH].tolist()
                     if t in pos and (matter is None or d["people"][t] - matter <= c["qpeople"])][:C.EMBEDDED]
            s = own_slot[:, i]
            margin = s - np.max(np.delete(own_slot, i, axis=1), axis=1)
            kind = KINDS.get(names[i])
            claim = [kind is not None and kind in k["claims"][j] for j in range(len(s))]
            added = {d["tid"][d["own"][j]] for j in select(i, found, s, margin, claim)}
        shown = c["shown"] | added
        res.append({"user": user, "family": family, "change": c["variant"] != "other", "variant": c["variant"],
                    "new": bool(c["cur"] & shown), "stale_only": bool(c["stale"] & shown) and not c["cur"] & shown,
                    "added": len(added - c["shown"])})
    return res


def outcomes(d: dict, k: dict, family: str, user: str, protos, params) -> list[dict]:
    """``stage_outcomes`` with the claims' bonus under ``params`` (β, γ, union, top, latest)."""
    beta, gamma, union, top, latest = params

    def select(i, found, s, margin, claim):
        on = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or (union and claim[j])]
        on = sorted(on, key=lambda j: -(s[j] + beta * claim[j] + gamma * k["change"][j]))[:top]
        return sorted(on)[-latest:]
    return stage_outcomes(d, k, family, user, protos, select)


def run(feats: dict, kin: dict, protos, params, family: str) -> dict[str, list[dict]]:
    return {label: [r for (fam, user), d in by.items() if fam == family
                    for r in outcomes(d, kin[label][(fam, user)], fam, user, protos, params)]
            for label, by in feats.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--features", required=True, help="scale_cv.py's cache")
    p.add_argument("--work", action="append", required=True, help="LABEL=DIR, the runs the features were read from")
    args = p.parse_args()
    feats = pickle.loads(Path(args.features).read_bytes())
    kin = texts(feats, {label: Path(d) for label, d in (w.split("=", 1) for w in args.work)})
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    grid = list(itertools.product(*GRID.values()))
    rows = {g: run(feats, kin, protos, g, "train") for g in grid}
    weight = {label: S.ASKING if label.endswith(S.ASKS) else 1 - S.ASKING for label in feats}

    def part(g, label, without=None, only=None):
        return [r for r in rows[g][label] if r["user"] != without and (only is None or r["user"] == only)]

    for g in grid:
        print(dict(zip(GRID, g, strict=True)), {label: S.summary(part(g, label)) for label in feats}, flush=True)
    users = sorted({r["user"] for r in rows[grid[0]]["x1"]})
    held: dict[str, list[dict]] = {label: [] for label in feats}
    chosen: collections.Counter = collections.Counter()
    for u in users:
        best = max(grid, key=lambda g: (round(sum(weight[label] * S.objective(part(g, label, without=u))
                                                  for label in feats), 6), g == PRESENT, -g[0], -g[1], not g[2]))
        print(u, "chose", dict(zip(GRID, best, strict=True)))
        chosen[best] += 1
        for label in feats:
            held[label] += part(best, label, only=u)
    for label in feats:
        print("held-out train", label, S.summary(held[label]))
    print("folds", chosen.most_common())
    choice = chosen.most_common(1)[0][0]
    for name, g in (("present", PRESENT), ("chosen", choice)):
        print("test", name, dict(zip(GRID, g, strict=True)),
              {label: S.summary(r) for label, r in run(feats, kin, protos, g, "test").items()})


if __name__ == "__main__":
    main()
