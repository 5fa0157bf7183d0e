"""Issue 31: the question head (README, "A question's kind read by a head trained on questions"): a softmax over the
slots and "none" on MiniLM's vector of a question put in the first person, trained on the five question sets
(``question_reading.question_sets``) and a sixth of the kinds no benchmark kind has (``not_asked.OTHER_KINDS``; README,
"The question head, second version"), the negatives (``question_reading.NEGATIVES``, ``not_asked.NOT_ASKED_2``) and
the slots' descriptions, the slot head's way (``head/train.py``'s ``fit``). A question is read as the head's slot when
that is not "none" and its probability is at least a floor, else as the stage read it before (the descriptions and the
slot head: ``question_reading.read`` at the shipped setting). The floor is chosen by leaving one question set out in
turn (the negatives split into as many folds, drawn with ``numpy.random.default_rng(0)``), objective right − read as
another slot − 2 × negatives read, a tie to the higher floor.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/question_head.py [--out shared/cbmemory/data/question_head.npz] [--test]

``--out``: train on every set and write the head (with the chosen floor printed); ``--test``: count how many of
``test``'s questions the trained head reads right (counts only, no question printed).
"""

import sys
from pathlib import Path

import numpy as np
from not_asked import NOT_ASKED_2, OTHER_KINDS
from question_reading import NEGATIVES, SLOT, question_sets, read, readings

sys.path.insert(0, str(Path(__file__).parent / "head"))
from train import fit, unit  # noqa: E402

from cbmemory.embedding import MiniLMEmbedder  # noqa: E402
from cbmemory.retrieval import current_value as C  # noqa: E402
from cbmemory.retrieval import slot_head  # noqa: E402
from cbmemory.retrieval.about import in_first_person  # noqa: E402
from cbmemory.retrieval.slots import SLOTS  # noqa: E402
from cbmemory_eval.updates.kinds import KINDS  # noqa: E402

FLOORS = (0.3, 0.4, 0.5, 0.6)
SHIPPED = (C.QUESTION_LIFT_WEIGHT, C.QUESTION_LIFT_FLOOR, C.QUESTION_LIFT_MARGIN)  # the reading before the head
ALL_NEGATIVES = list(NEGATIVES) + NOT_ASKED_2


def head_read(head: slot_head.SlotHead, x: np.ndarray, floor: float, before: np.ndarray) -> np.ndarray:
    """The slot index each question (a row of ``x``) is read as (-1: none): the head's, as the product reads it
    (``SlotHead.most_probable``), else ``before`` (the reading without the head)."""
    got = [head.most_probable(v, floor) for v in x]
    return np.array([head.names.index(g) if g is not None else b for g, b in zip(got, before.tolist(), strict=True)])


def main() -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query)
    names = protos[0]
    none = len(names)
    sh = slot_head.matching(protos[2][0])

    def embed(qs: list[str]) -> np.ndarray:
        return np.stack([emb.embed_query(in_first_person(q)) for q in qs])

    sets = question_sets(names)
    sets["others"] = ([q for qs in OTHER_KINDS.values() for q in qs], [names.index(k) for k, qs in OTHER_KINDS.items()
                                                                     for _ in qs])
    x = {n: embed(qs) for n, (qs, _) in sets.items()}
    want = {n: np.array(w) for n, (_, w) in sets.items()}
    before = {n: read(*readings(emb, protos, sh, qs), *SHIPPED) for n, (qs, _) in sets.items()}
    nx = embed(ALL_NEGATIVES)
    nbefore = read(*readings(emb, protos, sh, ALL_NEGATIVES), *SHIPPED)
    fold = np.random.default_rng(0).permutation(len(ALL_NEGATIVES)) % len(sets)
    dx = np.stack([emb.embed_query(t) for n in names for t in SLOTS[n]])
    dy = np.array([i for i, n in enumerate(names) for _ in SLOTS[n]])

    probe = unit(np.asarray(emb.embed_query(SLOTS[names[0]][0]), dtype=np.float64)[None, :])[0].astype(np.float32)

    def fitted(keep: list[str], negatives: np.ndarray) -> slot_head.SlotHead:
        xs = np.concatenate([*(x[n] for n in keep), nx[negatives], dx])
        ys = np.concatenate([*(want[n] for n in keep), np.full(int(negatives.sum()), none), dy])
        w, b = fit(xs, ys, none + 1, np.ones(len(ys)))
        return slot_head.SlotHead(names, w.astype(np.float32), b.astype(np.float32), probe)

    totals = {f: np.zeros(3, dtype=int) for f in FLOORS}
    shipped = np.zeros(3, dtype=int)
    for k, out in enumerate(sets):
        head = fitted([n for n in sets if n != out], fold != k)
        row = f"without {out:7}: before {_score(before[out], want[out], nbefore[fold == k])}"
        shipped += _score(before[out], want[out], nbefore[fold == k])
        for f in FLOORS:
            s = _score(head_read(head, x[out], f, before[out]), want[out],
                       head_read(head, nx[fold == k], f, nbefore[fold == k]))
            totals[f] += s
            row += f" | {f}: {s}"
        print(row + f"   (of {len(want[out])}, negatives {int((fold == k).sum())})")
    print(f"held out, right / another slot / negatives read: before {shipped.tolist()}; "
          + "; ".join(f"floor {f} {t.tolist()}" for f, t in totals.items()))
    floor = max(FLOORS, key=lambda f: (totals[f][0] - totals[f][1] - 2 * totals[f][2], f))
    print(f"chosen floor {floor}")
    if "--out" in sys.argv or "--test" in sys.argv:
        head = fitted(list(sets), np.ones(len(ALL_NEGATIVES), dtype=bool))
    if "--out" in sys.argv:
        np.savez(sys.argv[sys.argv.index("--out") + 1], weights=head.weights, bias=head.bias, names=np.array(names),
                 probe=probe)
    if "--test" in sys.argv:
        qs = [k.questions["test"] for k in KINDS]
        tw = np.array([names.index(SLOT.get(k.name, k.name)) for k in KINDS])
        tb = read(*readings(emb, protos, sh, qs), *SHIPPED)
        got = head_read(head, embed(qs), floor, tb)
        print(f"test (counts only): before {int((tb == tw).sum())}/23, with the head {int((got == tw).sum())}/23")


def _score(got: np.ndarray, want: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    return np.array([int((got == want).sum()), int(((got >= 0) & (got != want)).sum()), int((negatives >= 0).sum())])


if __name__ == "__main__":
    main()
