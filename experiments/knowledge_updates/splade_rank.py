"""Issue 31, a `train`-only look: SPLADE-tiny (the bundled sparse encoder) as the current-value stage's slot detector.

For each `train` change, the rank of its current statement among the user's statements by the cosine to the
question's slot (its best description): MiniLM (the stage's detector), SPLADE-tiny, and the two z-scores summed or
the larger taken. Prints, per scale, the median rank and the share of changes ranked in the first 15 and 50.
Reads ``scale_cv.py``'s features and ``claims_cv.py``'s texts.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/splade_rank.py FEATURES.pkl TEXTS.pkl
"""

import collections
import pickle
import sys

import numpy as np
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.embedding.splade import SpladeEncoder
from cbmemory.retrieval import current_value as C

VOCABULARY = 30522


def splade_by_slot(texts: list[str], protos, enc: SpladeEncoder) -> np.ndarray:
    """Per text, per slot: the cosine of its SPLADE vector to the slot's nearest description's."""
    names, owner, _ = protos
    desc = [t for n in names for t in C.SLOTS[n]]
    dense = np.zeros((len(desc), VOCABULARY), np.float32)
    for i, v in enumerate(enc.encode_documents(desc)):
        dense[i, v.ids] = v.weights
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    cos = np.stack([dense[:, v.ids] @ v.weights / max(float(np.linalg.norm(v.weights)), 1e-9)
                    for v in enc.encode_documents(texts)])
    return np.stack([cos[:, owner == j].max(axis=1) for j in range(len(names))], axis=1)


def main() -> None:
    feats = pickle.loads(open(sys.argv[1], "rb").read())
    kin = pickle.loads(open(sys.argv[2], "rb").read())
    emb = MiniLMEmbedder()
    protos = C.prototypes(lambda t: emb.embed_query(t))
    texts = sorted({t for label in ("x1", "x10") for k in kin[label].values() for t in k["text"]})
    spl = splade_by_slot(texts, protos, SpladeEncoder())
    row = {t: i for i, t in enumerate(texts)}

    def z(v: np.ndarray) -> np.ndarray:
        return (v - v.mean()) / v.std()

    for label in ("x1", "x10"):
        ranks = collections.defaultdict(list)
        for (family, user), d in feats[label].items():
            if family != "train":
                continue
            k = kin[label][(family, user)]
            dense, sparse = S.by_slot(d["O"], protos), spl[[row[t] for t in k["text"]]]
            pos = {t: j for j, t in enumerate(d["own"])}
            turn = {t: i for i, t in enumerate(d["tid"])}
            for c in d["cases"]:
                cur = [pos[turn[t]] for t in c["cur"] if t in turn and turn[t] in pos]
                if c["variant"] == "other" or not cur:
                    continue
                j, i = max(cur), int(np.argmax(S.by_slot(c["q"][None, :], protos)[0]))
                for name, v in (("minilm", dense[:, i]), ("splade", sparse[:, i]),
                                ("sum-z", z(dense[:, i]) + z(sparse[:, i])),
                                ("max-z", np.maximum(z(dense[:, i]), z(sparse[:, i])))):
                    ranks[name].append(int(np.sum(v > v[j])))
        print("train", label, {name: (float(np.median(r)), round(float(np.mean(np.array(r) < 15)), 3),
                                      round(float(np.mean(np.array(r) < 50)), 3)) for name, r in ranks.items()})


if __name__ == "__main__":
    main()
