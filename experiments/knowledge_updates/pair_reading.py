"""Issue 31: an unsure question read as its two nearest kinds (README, "An unsure question read as its two nearest
kinds"). On ``question_reading``'s five question sets and negatives: a question no slot clears (the shipped head
reading) is read as its two nearest slots when the first one's sum is at least ``f2``; chosen leaving one set out.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/pair_reading.py
"""

import numpy as np
from question_reading import NEGATIVES, question_sets, readings

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head

F2 = (None, 0.35, 0.4, 0.45, 0.5)
SHIPPED = (C.QUESTION_LIFT_WEIGHT, C.QUESTION_LIFT_FLOOR, C.QUESTION_LIFT_MARGIN)


def read_sets(d, p, f2):
    """Per question, the set of slot indices it is read as (empty: none)."""
    w, f, m = SHIPPED
    s = d + w * p
    order = np.argsort(-s, axis=1)
    out = []
    for row, o in zip(s, order, strict=True):
        first, second = row[o[0]], row[o[1]]
        if first >= f and first - second >= m:
            out.append({int(o[0])})
        elif f2 is not None and first >= f2:
            out.append({int(o[0]), int(o[1])})
        else:
            out.append(set())
    return out


def main() -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query)
    head = slot_head.matching(protos[2][0])
    R = {n: (*readings(emb, protos, head, qs), want) for n, (qs, want) in question_sets(protos[0]).items()}
    nd, np_ = readings(emb, protos, head, NEGATIVES)

    def counts(n, f2):
        d, p, want = R[n]
        got = read_sets(d, p, f2)
        right = sum(w in g for g, w in zip(got, want, strict=True))
        wrong = sum(bool(g) and w not in g for g, w in zip(got, want, strict=True))
        pairs = sum(len(g) == 2 for g in got)
        return right, wrong, pairs

    def false(f2):
        return sum(bool(g) for g in read_sets(nd, np_, f2))

    def objective(ns, f2):
        return sum(counts(n, f2)[0] - counts(n, f2)[1] for n in ns) - 2 * false(f2)

    for f2 in F2:
        print(f"f2={f2}: " + ", ".join(f"{n} {'/'.join(map(str, counts(n, f2)))}" for n in R)
              + f", negatives {false(f2)}/{len(NEGATIVES)}   (right/another slot/pairs)")
    for out in R:
        rest = [n for n in R if n != out]
        best = max(F2, key=lambda f2: (objective(rest, f2), f2 is None, f2 or 0))
        print(f"fold without {out}: chose f2={best}; held out {counts(out, best)} (off {counts(out, None)})")
    best = max(F2, key=lambda f2: (objective(list(R), f2), f2 is None, f2 or 0))
    print(f"all sets: f2={best}")


if __name__ == "__main__":
    main()
