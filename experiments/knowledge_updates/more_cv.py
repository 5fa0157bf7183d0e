"""Issue 31: more descriptions for each kind of fact, so that a statement that says the fact from another angle (what
follows from it, what it is like, not the fact's own words) is near its slot.

Where the stage loses a change at ×1, it is mostly the current statement being off the slot (its own words far from
every description of the slot, and no clause near one either). ``MORE`` holds, per kind, a few more generic
descriptions, written for this from no benchmark sentence: the fact seen from its consequences and surroundings.
With ``more`` they join ``current_value.SLOTS`` everywhere the descriptions are read (the question's slot, the slot
search's mean description, the statements' and clauses' slots), as the product would have them; the statement floor
and margin come from the grid (the descriptions' cosines are all higher with more of them), everything else is the
stage as it ships (``reserve_cv.SHIPPED``).

Offline on ``scale_cv.py``'s features, ``claims_cv.py``'s claims and ``clauses_cv.py``'s clauses. A setting under
which ``asked.py``'s event questions get a slot more often than with the descriptions as they are is dropped before
the CV. Leave-one-conversation-out on ``train`` (objective, weights and folds as ``scale_cv.py``), then ``test`` once
for the folds' choice. The rule: ``README.md``, "More descriptions of each kind of fact".

    PYTHONPATH=../../shared:. ../../.venv/bin/python more_cv.py --features FEAT.pkl --texts TEXTS.pkl [--test]
        (run from experiments/knowledge_updates)
"""

import asked as A
import claims_cv as K
import clauses_cv as L
import numpy as np
import reserve_cv as R
import scale_cv as S

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

MORE: dict[str, tuple[str, ...]] = {
    "home_city": ("getting to know the streets of the city I live in now", "still learning my way around this town",
                  "life here is different from the place I used to live", "the weather in my new city",
                  "I am a local here now"),
    "home_kind": ("the rooms of the place we live in now", "the landlord of the flat we rent",
                  "our new place has a balcony and a bigger kitchen", "carrying furniture into our new home",
                  "the building I live in"),
    "employer": ("my manager at the company I joined", "the offices of the firm I work for now",
                 "my first days at a different workplace", "I work for another company these days",
                 "the organisation that pays my salary"),
    "job_title": ("my new role comes with more responsibility", "my position at work changed",
                  "the promotion at work came through", "the title on my business card", "I was made senior"),
    "schedule": ("my course meets on a different day now", "my weekly session was moved",
                 "the day of the week I have my lesson", "the class I attend each week"),
    "phone": ("save my new number in your contacts", "I changed my phone number", "my mobile number is different "
              "now", "the number to call me on"),
    "email": ("I set up a new email address", "use my new address when you email me",
              "my old inbox is no longer in use"),
    "favourite_food": ("my favourite thing to eat these days", "I cannot stop eating this dish lately",
                       "the meal I always choose at a restaurant", "nothing beats this food for me now"),
    "drink": ("my order at the coffee shop", "I changed my usual coffee", "what I always drink these days",
              "my go-to drink every morning"),
    "child_school": ("my kid's new classroom and teacher", "the school run in the morning",
                     "my son or daughter changed schools", "the other parents at my child's school"),
    "trip": ("our holiday is going somewhere else now", "I cannot wait for my trip next month",
             "the flights and hotel for my vacation", "where we are going on our next holiday"),
    "morning": ("the first thing I do after I wake up", "my mornings start with something new now",
                "every morning before work I do this", "a habit I do first each day"),
    "partner": ("the person I am seeing now", "my new relationship", "my significant other",
                "we started dating recently", "my partner and I did something together"),
    "device": ("my new computer is much faster", "I work on a different laptop now", "I replaced my old computer",
               "setting up my new machine"),
    "household": ("the people I share my home with", "someone new moved in with us",
                  "there are more of us at home now", "everyone living in our house"),
    "doctor": ("the doctor I see now", "I switched to another GP", "my new doctor's practice",
               "my physician at the health centre"),
    "language": ("the language I am learning now", "my lessons in a new language", "learning words in another "
                 "language", "I switched to studying a different language"),
    "car": ("my new car", "the vehicle I drive now", "I sold my old car and got another", "the car parked outside"),
    "sport": ("the sport I play now", "I joined a new team", "I took up a different sport",
              "my games with the team each week"),
    "diet": ("what I eat these days", "I changed my diet", "I no longer eat certain foods",
             "my meals are different now"),
    "pet": ("our new pet at home", "the animal we adopted", "taking my pet for a walk", "my pet's food and vet"),
    "commute": ("how I get to work these days", "my way to the office now", "I take a different route to work",
                "my daily trip to work"),
    "wake": ("the time I get up these days", "my alarm goes off earlier now", "I wake up at a different hour now",
             "my mornings start at a new time"),
}

OFF = ("off", C.STATEMENT_FLOOR, C.STATEMENT_MARGIN)
GRID = [OFF] + [("more", f, m) for f in (0.3, 0.35, 0.4) for m in (-0.1, -0.05, 0.0)]
BASE = ("V", "own", "O", "tid", "people", "cases")  # what a conversation's features hold before any cache


def more_protos(emb, protos):
    """``protos`` with ``MORE`` added (the same slot names; rows by ``scale_cv.by_slot``'s masks, any order)."""
    names, owner, rows = protos
    extra = [(names.index(n), t) for n in names for t in MORE.get(n, ())]
    vecs = S.unit(np.stack([np.asarray(emb.embed_query(t), dtype=np.float32) for _, t in extra]))
    return names, np.concatenate([owner, np.array([i for i, _ in extra])]), np.concatenate([rows, vecs])


def events(emb, protos) -> tuple[int, int]:
    """``asked.py``'s check set with the question's slot by ``protos``: own slot of ``ASKED``, events with a slot."""
    def slot(q):
        best = S.by_slot(np.asarray(emb.embed_query(q), np.float32)[None, :], protos)[0]
        order = np.argsort(-best)
        ok = best[order[0]] >= C.QUESTION_FLOOR and best[order[0]] - best[order[1]] >= C.QUESTION_MARGIN
        return protos[0][int(order[0])] if ok else None
    return sum(slot(q) == s for s, qs in A.ASKED.items() for q in qs), sum(slot(q) is not None for q in A.EVENTS)


def main() -> None:
    args = L.arguments(__doc__).parse_args()
    feats, kin, cfs, protos = L.load(args)
    emb = MiniLMEmbedder()
    more = more_protos(emb, protos)
    cfs_more = L.clause_features(kin, emb, more)
    now_right, now_events = events(emb, protos)
    right, ev = events(emb, more)
    print(f"asked.py: own slot {now_right} -> {right} of {sum(map(len, A.ASKED.values()))}; "
          f"events with a slot {now_events} -> {ev} of {len(A.EVENTS)}")
    grid = GRID if ev <= now_events else [OFF]

    def outcomes(d: dict, k: dict, cf, family: str, user: str, protos_, params) -> list[dict]:
        mode, sfloor, smargin = params
        if mode == "more":  # its own copy of the features: the caches in it are of the descriptions they were made by
            d = d.setdefault("_more", {key: d[key] for key in BASE})
            cf, protos_ = cfs_more[label_of[id(k)]][(family, user)], more

        def select(i, found, s, margin, claim):
            whole = [j for j in found if (s[j] >= sfloor and margin[j] >= smargin) or claim[j]]
            picked = sorted(R.ranked(whole, s, claim, k)[:C.TOP])[-C.LATEST:]
            return R.with_reserved(picked, i, found, s, cf)
        return K.stage_outcomes(d, k, family, user, protos_, select)

    label_of = {id(k): label for label, by in kin.items() for k in by.values()}
    # a tie: off first, then the higher floor and margin
    L.cross_validate(feats, kin, cfs, protos, grid, OFF, lambda g: (g == OFF, g[1], g[2]), args.test, outcomes,
                     ("train", "dev") if args.dev else ("train",))


if __name__ == "__main__":
    main()
