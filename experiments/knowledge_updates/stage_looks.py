"""Issue 31: three `train`-only looks at the current-value stage's selection, none taken to `test` (none gains
on `train`; README, "Three looks at the stage that were not taken further"). Offline on ``scale_cv.py``'s
features and ``claims_cv.texts``' claims, the product's constants otherwise:

- ``own``: the slot's search ranks the user's statements by their own words (a vector kept at write time), not
  by the stored vectors, the first N of them looked at;
- ``relative``: of the statements on the slot, only those within δ of the best score;
- ``question``: besides the stage's statements, the Q statements on the slot nearest the question itself.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/stage_looks.py --features FEAT.pkl \\
        --claims CLAIMS.pkl
"""

import argparse
import pickle
from pathlib import Path

import claims_cv as K
import numpy as np
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C


def score(k, s, claim, j):
    return s[j] + C.CLAIMED * claim[j] + C.CHANGED * k["change"][j]


def on(found, s, margin, claim):
    return [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]


def selector(look, value, d, k, c, protos):
    """``claims_cv.stage_outcomes``' ``select`` for one question ``c`` under ``look`` with its ``value``."""
    names, owner, rows = protos

    def select(i, found, s, margin, claim):
        if look == "own":  # the user's statements by their own words, the people filter as the product's
            matter = C.ABOUT_PEOPLE.get(names[i], frozenset())
            allowed = set(found) | {j for j, t in enumerate(d["own"])
                                    if matter is None or d["people"][t] - matter <= c["qpeople"]}
            probe = S.unit(rows[owner == i].mean(axis=0))
            found = [j for j in np.argsort(-(S.unit(d["O"]) @ probe)).tolist() if j in allowed][:value]
        kept = sorted(on(found, s, margin, claim), key=lambda j: -score(k, s, claim, j))[:C.TOP]
        if look == "relative" and kept:
            kept = [j for j in kept if score(k, s, claim, j) >= score(k, s, claim, kept[0]) - value]
        picked = sorted(kept)[-C.LATEST:]
        if look == "question":
            qc = S.unit(d["O"]) @ S.unit(c["q"])
            picked = sorted(set(picked) | set(sorted(on(found, s, margin, claim), key=lambda j: -qc[j])[:value]))
        return picked
    return select


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--features", required=True, help="scale_cv.py's cache")
    p.add_argument("--claims", required=True, help="claims_cv.texts of those features, pickled")
    args = p.parse_args()
    feats = pickle.loads(Path(args.features).read_bytes())
    kin = pickle.loads(Path(args.claims).read_bytes())
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t), emb.embed_queries)
    looks = [("present", None), *[("own", n) for n in (50, 100, 200, 400, 100_000)],
             *[("relative", x) for x in (0.05, 0.1, 0.2, 0.3)], *[("question", q) for q in (1, 2, 3, 5)]]
    for look, value in looks:
        out = {}
        for label, by in feats.items():
            rows = []
            for (family, user), d in by.items():
                if family != "train":
                    continue
                k = kin[label][(family, user)]
                for c in d["cases"]:
                    rows += K.stage_outcomes({**d, "cases": [c]}, k, family, user, protos,
                                             selector(look, value, d, k, c, protos))
            out[label] = S.summary(rows)
        print(look, value, {label: (s["new"], s["stale_only"], s["own"], s["added"]) for label, s in out.items()},
              flush=True)


if __name__ == "__main__":
    main()
