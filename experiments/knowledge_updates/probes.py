"""Issue 31, probes of sentences written on 5 December 2026 from no family's sentences (nor ``asked.py``'s or
``asked_cv.py``'s; they are in ``probes_data.py``):

- ``questions``: first-person questions about a fact now, three a kind: does each get its own kind's slot
  (``current_value.slot_of``)?
- ``changes``: direct changes told in everyday words, three a kind: is each on its kind's slot by the stage's reading
  (``current_value.statement_scores``), and does it claim the kind by the write-time rules (``cbmemory.claims``)?
- ``check``: a second set of such changes, and look-alikes no rule should claim (two lists); ``held``: a third set,
  counts only.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/probes.py questions|changes|check|held
"""

import sys

import numpy as np
from probes_data import CHANGES, CHECK, HELD, NOT_CLAIMS, NOT_CLAIMS_2, QUESTIONS

from cbmemory.claims import claims
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.about import about_the_user, in_first_person
from cbmemory.retrieval.slots import KINDS
from cbmemory.text import people


def questions(emb: MiniLMEmbedder, protos: C.Protos) -> None:
    ok = n = 0
    for slot, qs in QUESTIONS.items():
        for q in qs:
            got = C.slot_of(emb.embed_query(in_first_person(q)), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
            n += 1
            ok += got == slot
            if got != slot:
                print(f"{slot:14} -> {got}  about={about_the_user(q)}  {q}")
    print(f"{ok}/{n}")


def changes(emb: MiniLMEmbedder, protos: C.Protos, sets: dict[str, list[str]] = CHANGES) -> None:
    on = cl = n = 0
    for slot, ss in sets.items():
        sc = C.statement_scores(np.asarray(emb.embed(ss)), ss, protos, slot)
        for s, v in zip(ss, sc, strict=True):
            c = bool(claims(s, KINDS[slot]))
            n += 1
            on += v is not None
            cl += c
            if v is None or not c:
                print(f"{slot:14} on={v is not None} claim={c}  {s}")
    print(f"on slot {on}/{n}, claims {cl}/{n}")


def held(emb: MiniLMEmbedder, protos: C.Protos) -> None:
    """``HELD``'s counts only: on its kind's slot, and claimed."""
    n = sum(len(ss) for ss in HELD.values())
    on = sum(v is not None for slot, ss in HELD.items()
             for v in C.statement_scores(np.asarray(emb.embed(ss)), ss, protos, slot))
    claimed = sum(bool(claims(x, KINDS[slot])) for slot, ss in HELD.items() for x in ss)
    print(f"on slot {on}/{n}, claims {claimed}/{n}")


def check(emb: MiniLMEmbedder, protos: C.Protos) -> None:
    changes(emb, protos, CHECK)
    alike = NOT_CLAIMS + NOT_CLAIMS_2
    wrong = [s for s in alike if claims(s) and not people(s)]  # as the link rules and the stage read them
    print(*(f"claimed: {s} {sorted(claims(s))}" for s in wrong), sep="\n")
    print(f"look-alikes claimed {len(wrong)}/{len(alike)}")


if __name__ == "__main__":
    model = MiniLMEmbedder()
    run = {"questions": questions, "changes": changes, "check": check, "held": held}[sys.argv[1]]
    run(model, C.prototypes(model.embed_query))
