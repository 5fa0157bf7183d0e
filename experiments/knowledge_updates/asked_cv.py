"""Issue 31: a question's slot by question-form descriptions as well as the statement descriptions.

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses, the stage as it
ships (``reserve_cv.SHIPPED``). ``QUESTIONS`` holds, per slot, a few questions about that fact (written for this,
generic: from no benchmark sentence and not ``asked.py``'s check set). With ``asked``, a question's slot is its
nearest description among ``current_value.SLOTS`` and ``QUESTIONS`` (question floor and margin from the grid); the
statements' side is unchanged. A setting whose ``asked.EVENTS`` get a slot more often than now is dropped before the
CV. Leave-one-conversation-out on ``train`` (objective, weights and folds as ``scale_cv.py``), then ``test`` once
for the folds' choice. The rule: ``README.md``, "A question asked as a question".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/asked_cv.py --features FEAT.pkl \\
        --texts TEXTS.pkl [--test | --second]
"""

import asked as A
import clauses_cv as L
import numpy as np
import reserve_cv as R
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

QUESTIONS: dict[str, tuple[str, ...]] = {
    "home_city": ("which city or town do I live in", "where is my home now", "where am I based these days",
                  "what place do I call home"),
    "home_kind": ("what kind of home do I live in", "is my home a house, a flat or an apartment",
                  "what type of place do I rent or own"),
    "employer": ("which company do I work for", "who is my employer now", "where do I have a job these days"),
    "job_title": ("what is my job title", "what role or position do I have at work", "what is my rank at my company"),
    "schedule": ("which day of the week is my regular class", "when is my weekly lesson",
                 "what evening do I have my course"),
    "phone": ("what is my phone number", "which number can I be called or texted on"),
    "email": ("what is my email address", "where should emails to me go"),
    "favourite_food": ("what is my favourite food", "which dish do I like best"),
    "drink": ("what is my usual coffee or drink order", "what do I drink at the cafe"),
    "child_school": ("which school does my child attend", "where does my son or daughter go to school"),
    "trip": ("where am I travelling on my next trip", "what is the destination of my holiday"),
    "morning": ("what do I do first every morning", "what is my morning routine"),
    "partner": ("who is my partner or the person I am dating", "who am I in a relationship with"),
    "device": ("which laptop or computer do I use", "what machine do I work on"),
    "household": ("how many people live in my home", "who shares my household"),
    "doctor": ("who is my doctor", "which physician or GP do I see"),
    "language": ("which language am I learning", "what language do I study"),
    "car": ("what car do I drive", "which vehicle do I own"),
    "sport": ("which sport do I play", "what sport or team do I train with"),
    "diet": ("what diet do I follow", "what foods do I eat or avoid"),
    "pet": ("what pet do I have", "which animal do I keep at home"),
    "commute": ("how do I get to work", "how do I travel to my office"),
    "wake": ("what time do I wake up", "when does my alarm go off"),
    "hobby": ("what is my hobby", "what do I do in my free time"),
    "gym": ("which gym do I go to", "what is my workout"),
    "bank": ("which bank do I use",),
    "address": ("what is my street address",),
    "health": ("what medication do I take", "what health condition do I have"),
    "music": ("which instrument do I play", "what music do I listen to"),
    "reading": ("what book am I reading", "what show am I watching"),
}

OFF = ("off", C.QUESTION_FLOOR, C.QUESTION_MARGIN)
GRID = [OFF] + [("asked", f, m) for f in (0.4, 0.5, 0.6, 0.7) for m in (0, 0.05, 0.1)]


def question_protos(emb, protos):
    """``protos`` with ``QUESTIONS`` added (the same slot names and order)."""
    names, owner, rows = protos
    extra = [(names.index(n), q) for n in names for q in QUESTIONS.get(n, ())]
    vecs = S.unit(np.stack([np.asarray(emb.embed_query(q), dtype=np.float32) for _, q in extra]))
    return names, np.concatenate([owner, np.array([i for i, _ in extra])]), np.concatenate([rows, vecs])


def check(emb, qprotos, floor: float, margin: float) -> tuple[int, int]:
    """``asked.py``'s check set under the question's slot by ``qprotos``: own slot of ``ASKED``, events with a slot."""
    def slot(q):
        return C.slot_of(emb.embed_query(q), qprotos, floor, margin)
    right = sum(slot(q) == s for s, qs in A.ASKED.items() for q in qs)
    return right, sum(slot(q) is not None for q in A.EVENTS)


SECOND = ("asked", C.QUESTION_FLOOR, C.QUESTION_MARGIN)  # the second rule's setting (README.md)


def main() -> None:
    p = L.arguments(__doc__)
    p.add_argument("--second", action="store_true", help="the second rule: off and SECOND on train and test, once")
    args = p.parse_args()
    feats, kin, cfs, protos = L.load(args)
    emb = MiniLMEmbedder()
    qprotos = question_protos(emb, protos)
    now = check(emb, protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
    print("asked.py now: own slot", now[0], "events with a slot", now[1])
    grid = []
    for g in GRID:
        got = now if g == OFF else check(emb, qprotos, g[1], g[2])
        print(g, "asked.py: own slot", got[0], "events with a slot", got[1], "kept" if got[1] <= now[1] else "dropped")
        if got[1] <= now[1]:
            grid.append(g)

    def outcomes(d, k, cf, family, user, protos, g):
        asked = None if g == OFF else (qprotos, g[1], g[2])
        return R.outcomes(d, k, cf, family, user, protos, R.SHIPPED, asked)
    if args.second:
        for family in ("train", "test"):
            for g in (OFF, SECOND):
                print(family, g, {label: S.summary(r)
                                  for label, r in L.run(feats, kin, cfs, protos, g, family, outcomes).items()})
        return
    # a tie: off first, then the higher floor and margin
    L.cross_validate(feats, kin, cfs, protos, grid, OFF, lambda g: (g == OFF, g[1], g[2]), args.test, outcomes)


if __name__ == "__main__":
    main()
