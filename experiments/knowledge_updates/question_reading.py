"""Issue 31: a question's kind read by its nearest description and the slot head together (README, "A question's
kind read by its descriptions and the slot head together"). Positives: the families' questions (``train``,
``dev``, ``fresh``; ``test`` counted once with the choice), ``probes_data.QUESTIONS`` and ``asked.ASKED``; negatives:
``NOT_ASKED``, first-person questions about no fact a slot holds (written 6 December 2026), and ``asked.EVENTS``. A
reading: the slot whose description cosine + ``w`` x head probability leads by ``m`` and clears ``f``; a question read
as another slot counts against as much as one read right gains (README, "A question read as another kind is worse
than one not read").

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/question_reading.py [--test W F M]
"""

import sys

import numpy as np
from asked import ASKED, EVENTS
from probes_data import QUESTIONS

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval import slot_head
from cbmemory.retrieval.about import in_first_person
from cbmemory_eval.updates.kinds import KINDS

NOT_ASKED = [
    "What did I tell you about my sister's wedding?", "When did I mention the leak in the roof?",
    "What was the name of the film I said I loved?", "What did I say about the argument with my neighbour?",
    "Which birthday present did I buy for my mum?", "What did we talk about last Tuesday?",
    "Did I tell you what happened at the barbecue?", "What advice did you give me about the noisy flatmate?",
    "What was I worried about before the exam?", "Who did I meet at the conference?",
    "What did I think of the new Bond film?", "How much did I say the repairs cost?",
    "When is my cousin's christening?", "What did I do for my last birthday?",
    "What was the funny story I told about the taxi driver?", "Where did I lose my umbrella?",
    "What gift ideas did I have for Christmas?", "Why was I upset last weekend?",
    "What did I say about the election?", "Which charity did I donate to?", "How did my presentation go?",
    "What was the name of the plumber I used?", "What did I say about the broken washing machine?",
    "When did I last see my grandmother?", "What did I decide about the wedding invitations?",
    "What did I say the surprise party was for?", "Who won the pub quiz I told you about?",
    "What did I think of the museum exhibition?", "How did I describe my best friend's new baby?",
    "What did I promise to bring to the picnic?",
]
# The benchmark's kinds by the stage's slot names.
SLOT = {"city": "home_city", "weekly_class": "schedule", "favourite_dish": "favourite_food", "morning_habit": "morning",
        "laptop": "device", "home_type": "home_kind", "coffee": "drink", "wake_time": "wake"}
WS = (0.0, 0.25, 0.5, 1.0)
FS = (0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)
MS = (0.0, 0.02, 0.05, 0.1)
PRODUCT = (0.0, 0.5, 0.0)  # before 6d30690


def readings(emb, protos, head, questions):
    """Per question, the description cosines and the head's probabilities, by the stage's slot order."""
    names = protos[0]
    at = [head.names.index(n) for n in names]
    vecs = np.stack([emb.embed_query(in_first_person(q)) for q in questions])
    return C.by_slots(vecs, protos), head.probabilities(vecs)[:, at]


def read(d, p, w, f, m=0.0):
    """The slot index each question is read as (-1: none): the sum's first slot, when at least ``f`` and ``m`` ahead
    of the second (as ``slot_of``)."""
    s = d + w * p
    top = np.argmax(s, axis=1)
    ordered = np.sort(s, axis=1)
    ok = (ordered[:, -1] >= f) & (ordered[:, -1] - ordered[:, -2] >= m)
    return np.where(ok, top, -1)


def question_sets(names: tuple[str, ...]) -> dict[str, tuple[list[str], list[int]]]:
    """The five positive sets: each set's questions and the index (in ``names``, the stage's slots) of each one's slot."""
    sets = {fam: ([k.questions[fam] for k in KINDS], [names.index(SLOT.get(k.name, k.name)) for k in KINDS])
            for fam in ("train", "dev", "fresh")}
    for name, table in (("probes", QUESTIONS), ("asked", ASKED)):
        sets[name] = ([q for qs in table.values() for q in qs], [names.index(s) for s, qs in table.items() for _ in qs])
    return sets


NEGATIVES = NOT_ASKED + list(EVENTS)


def main() -> None:
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query)
    names = protos[0]
    head = slot_head.matching(protos[2][0])
    R = {name: (*readings(emb, protos, head, qs), np.array(want)) for name, (qs, want) in question_sets(names).items()}
    nd, np_ = readings(emb, protos, head, NEGATIVES)

    def right(name, *wfm):
        d, p, want = R[name]
        return int((read(d, p, *wfm) == want).sum())

    def wrong(name, *wfm):  # read as another slot
        d, p, want = R[name]
        got = read(d, p, *wfm)
        return int(((got >= 0) & (got != want)).sum())

    def false(*wfm):
        return int((read(nd, np_, *wfm) >= 0).sum())

    grid = [(w, f, m) for w in WS for f in FS for m in MS]
    if "--test" in sys.argv:
        w, f, m = (float(x) for x in sys.argv[-3:])
        qs = [k.questions["test"] for k in KINDS]
        d, p = readings(emb, protos, head, qs)
        want = np.array([names.index(SLOT.get(k.name, k.name)) for k in KINDS])
        print(f"test: product {int((read(d, p, *PRODUCT) == want).sum())}/23, "
              f"w={w} f={f} m={m} {int((read(d, p, w, f, m) == want).sum())}/23 (counts only)")
        return
    print("setting: per set read right / read as another slot; negatives read")
    for wfm in grid:
        print(f"w={wfm[0]} f={wfm[1]} m={wfm[2]}: " + ", ".join(f"{n} {right(n, *wfm)}/{wrong(n, *wfm)}" for n in R)
              + f", negatives {false(*wfm)}/{len(NEGATIVES)}" + ("   <- the product before" if wfm == PRODUCT else ""))

    def objective(names_in, *wfm):  # a question read as another slot costs what one read right gains
        return sum(right(n, *wfm) - wrong(n, *wfm) for n in names_in) - 2 * false(*wfm)

    def choose(names_in):
        return max(grid, key=lambda wfm: (objective(names_in, *wfm), wfm == PRODUCT, wfm[1], wfm[2]))

    for out in R:
        best = choose([n for n in R if n != out])
        print(f"fold without {out}: chose w={best[0]} f={best[1]} m={best[2]}; held out right / another slot "
              f"{right(out, *best)}/{wrong(out, *best)} of {len(R[out][2])} (before {right(out, *PRODUCT)}/"
              f"{wrong(out, *PRODUCT)})")
    best = choose(list(R))
    print(f"all sets: w={best[0]} f={best[1]} m={best[2]}, negatives {false(*best)}")


if __name__ == "__main__":
    main()
