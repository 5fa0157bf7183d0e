"""Issue 31, `train` only: at ×10, how many changes are followed, in the haystack's distractor sessions (other
conversations' talk renamed to the user: ``cbmemory_eval.scale``), by the user's statements on the same matter, on
the slot by the stage's own test or claiming the kind by the write-time rules (``cbmemory.claims``). To the memory
those are the user's later word on the matter. Counted apart for the changes the stage shows and those it misses
(the stage as it ships, without the reserved place), with a few of the missed ones printed.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/later_claims.py FEATURES.pkl TEXTS.pkl
"""

import collections
import pickle
import sys

import claims_cv as K
import numpy as np
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C


def ranked(k):
    """The stage's ranked selection (``claims_cv.stage_outcomes``' ``select``), as it ships without ``RESERVED``."""
    def select(i, found, s, margin, claim):
        on = [j for j in found if (s[j] >= C.STATEMENT_FLOOR and margin[j] >= C.STATEMENT_MARGIN) or claim[j]]
        on = sorted(on, key=lambda j: -(s[j] + C.CLAIMED * claim[j] + C.CHANGED * k["change"][j]))[:C.TOP]
        return sorted(on)[-C.LATEST:]
    return select


def main() -> None:
    feats = pickle.loads(open(sys.argv[1], "rb").read())
    kin = pickle.loads(open(sys.argv[2], "rb").read())
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    names = protos[0]
    for label in ("x1", "x10"):
        tab: collections.Counter = collections.Counter()
        printed = 0
        for (family, user), d in feats[label].items():
            if family != "train":
                continue
            k = kin[label][(family, user)]
            rows = K.stage_outcomes(d, k, family, user, protos, ranked(k))
            own_slot = S.by_slot(d["O"], protos)
            pos = {t: j for j, t in enumerate(d["own"])}
            turn = {t: x for x, t in enumerate(d["tid"])}
            for c, r in zip(d["cases"], rows, strict=True):
                cur = [pos[turn[t]] for t in c["cur"] if t in turn and turn[t] in pos]
                if c["variant"] == "other" or not cur:
                    continue
                j, i = max(cur), int(np.argmax(S.by_slot(c["q"][None, :], protos)[0]))
                kind, s = C.KINDS.get(names[i]), own_slot[:, i]
                margin = s - np.max(np.delete(own_slot, i, axis=1), axis=1)
                later = [x for x in range(j + 1, len(d["own"])) if d["tid"][d["own"][x]].startswith("x")]
                on = [x for x in later if (s[x] >= C.STATEMENT_FLOOR and margin[x] >= C.STATEMENT_MARGIN)
                      or (kind is not None and kind in k["claims"][x])]
                claimed = [x for x in on if kind is not None and kind in k["claims"][x]]
                shown = "shown" if r["new"] else "missed"
                tab[shown] += 1
                tab[f"{shown}, a later distractor statement on the matter"] += bool(on)
                tab[f"{shown}, a later distractor statement claiming the kind"] += bool(claimed)
                if label == "x10" and shown == "missed" and claimed and printed < 6:
                    printed += 1
                    print(f"  {names[i]}: {k['text'][j][:80]!r} ... later: {k['text'][claimed[-1]][:80]!r}")
        print(label, dict(tab))


if __name__ == "__main__":
    main()
