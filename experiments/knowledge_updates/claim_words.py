"""Issue 31, a lever taken back by its rule: the user's claims of the matter found by their words (one full-text
search for the words of the question's kind's claim rule, ``WORDS``), joining the statements the current-value stage
ranks, with the claim's weight (``CLAIMED``) chosen again (README, "The user's claims of the matter found by their
words").

The product's ``latest_statements`` as it was at 3429590, with the search added, patched in; each setting is the
product's own benchmark run with it:

    CF_BETA=0.5 CF_DEPTH=32 [CF_SOURCE_HASH=...] PYTHONPATH=shared:. .venv/bin/python \
        experiments/knowledge_updates/claim_words.py eval locomo-updates --data ... --family train [--scale 10] ...

``CF_DEPTH`` 0 is the product as it was (with ``CF_BETA`` 0.1); ``CF_SOURCE_HASH`` pins the benchmark's cache key
(stores built by an earlier commit are reused). ``claim_words_cv.py`` reads the runs of the grid."""
import os
from dataclasses import replace
from itertools import islice

import numpy as np

from cbmemory.claims import MAKES
from cbmemory.models import conversation_order
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.followed import claimed_values, named_again
from cbmemory.retrieval.statements import own
from cbmemory.store.signals import Signal
from cbmemory.text import people

DEPTHW = int(os.environ.get("CF_DEPTH", "64"))
WORDS = {
    "home": "live lives lived living moved moving relocated resident based settled flat apartment house home place",
    "work": "work works working worked job hired contract employer company firm office started",
    "school": "school academy primary enrolled term classes started week goes",
    "phone": "phone number mobile cell digits sim text call reach",
    "email": "email mail inbox write",
    "title": "title promoted role position manager lead head work",
    "trip": "trip holiday vacation flight flights travel travelling traveling heading going",
    "partner": "partner boyfriend girlfriend wife husband fiance fiancee seeing dating together relationship married",
    "device": "laptop computer macbook thinkpad notebook pc phone model",
    "car": "car drive driving bought suv hatchback saloon sedan estate convertible pickup van " + MAKES.replace("|", " ").replace("[eë]", "e").replace("škoda", ""),
    "pet": "pet dog cat puppy kitten adopted parrot rabbit hamster ferret tortoise",
    "diet": "diet vegan vegetarian pescatarian keto gluten eat eating",
    "sport": "sport court league weekend games play weekends leisure centre center",
    "coffee": "coffee coffees latte lattes espresso espressos cortado cortados cappuccino cappuccinos flat white brew barista",
    "language": "learning studying language lessons lesson course duolingo vocab vocabulary",
    "doctor": "doctor doctors gp dr physician checkup check clinic",
    "wake": "wake woke alarm get up",
    "commute": "commute commuting get gets got go goes going went come ride drive walk cycle cycling work office bike bus train tram car tube metro underground foot",
    "household": "household live living roof people home house us",
    "habit": "morning mornings routine first thing start day breakfast",
    "favourite": "favourite favorite crave craving obsessed best food top stop",
    "schedule": "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays evening evenings night nights morning mornings weekly every",
}


def latest_statements(store, embed, user_id, query, filters, now, embed_texts=None, embed_queries=None, names=()):
    query = C.named_as_the_user(query, names)
    if not C.about_the_user(query):
        return []
    protos = C.prototypes(embed, embed_queries)
    slot = C.slot_of(embed(C.in_first_person(query)), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
    if slot is None:
        return []
    nm, owner, rows = protos
    probe = C.unit(rows[owner == nm.index(slot)].mean(axis=0))
    found = store.search_candidates(Signal.VECTOR, user_id, probe, C.DEPTH, replace(filters, kinds=("turn",)), now)
    asked, matter, kind = people(query), C.ABOUT_PEOPLE.get(slot, frozenset()), C.KINDS.get(slot)
    records = (r for r in store.read_candidates(found, list(range(len(found)))) if r is not None)
    pool = list(islice(((r, said) for r in records if (said := own(r, asked, matter, kind))), C.EMBEDDED))
    if kind is not None and DEPTHW > 0:
        have = {r.record_id for r, _ in pool}
        hits = store.search_candidates(Signal.BM25, user_id, WORDS[kind], DEPTHW, replace(filters, kinds=("turn",)), now)
        for r in store.read_candidates(hits, list(range(len(hits)))):
            if r is None or r.record_id in have:
                continue
            said = own(r, asked, matter, kind)
            if said and C._marks(said, kind)[0]:
                pool.append((r, said))
                have.add(r.record_id)
    many = embed_texts if embed_texts is not None else (lambda ts: np.stack([embed(t) for t in ts]))
    saids = [said for _, said in pool]
    scores = C.statement_scores(many(saids), saids, protos, slot) if pool else []
    picked = C.nearest([(r, s) for (r, _), s in zip(pool, scores, strict=True) if s is not None], C.TOP)[-C.LATEST:]
    chosen = {r.record_id for r in picked}
    passing = C.told_in_passing([(r, said) for r, said in pool if r.record_id not in chosen], protos, slot, many)
    chosen |= {r.record_id for r in passing}
    claimed = [(r, said) for r, said in pool if C._marks(said, kind)[0]]
    again = named_again(store, user_id, claimed, lambda said: claimed_values(said, kind), chosen,
                        lambda r: own(r, asked, matter, kind), filters, now) if kind is not None and claimed else []
    return sorted([*picked, *passing, *again], key=conversation_order)


C.latest_statements = latest_statements

if os.environ.get("CF_BETA"):
    C.CLAIMED = float(os.environ["CF_BETA"])
if os.environ.get("CF_LATEST"):
    C.LATEST = int(os.environ["CF_LATEST"])


if __name__ == "__main__":
    import sys

    if os.environ.get("CF_SOURCE_HASH"):
        import cbmemory_eval.updates.run as run

        run.source_hash = lambda: os.environ["CF_SOURCE_HASH"]
    from cbmemory.cli.app import main

    sys.exit(main(sys.argv[1:]))
