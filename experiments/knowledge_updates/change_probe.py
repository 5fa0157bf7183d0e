"""Issue 31, a probe (sentences written on 5 December 2026 from no family's phrasings): direct changes told in
everyday words. Is each on its kind's slot by the stage's reading (``current_value.statement_scores``), and does it
claim the kind by the write-time rules (``cbmemory.claims``)?

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/change_probe.py
"""

import numpy as np

from cbmemory.claims import claims
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.slots import KINDS

P = {
    "home_city": [
        "We've relocated to Rotterdam, the flat is tiny but bright.",
        "Home is Cork now, the move went smoothly.",
        "Packed up the old place, we're Dundee people now.",
    ],
    "home_kind": [
        "We swapped the flat for a terraced house with a yard.",
        "Living on a narrowboat these days, it's cosy.",
        "We've downsized to a studio.",
    ],
    "employer": [
        "I've joined Fenwick Analytics as of Monday.",
        "Handed in my notice and I'm now with Marlow Foods.",
        "New employer: Brightwater Insurance, started last week.",
    ],
    "job_title": [
        "I got promoted, I'm senior analyst now.",
        "They made me head of operations this spring.",
        "My new title is principal designer.",
    ],
    "schedule": [
        "My pottery class moved to Thursdays.",
        "Choir is on Mondays now instead.",
        "The weekly lesson switched to Friday evenings.",
    ],
    "phone": [
        "New number: 0771 204 5561, the old one is dead.",
        "Text me on 0788 402 1190 from now on.",
        "I've got a new mobile number, 0734 118 2205.",
    ],
    "email": [
        "Use maya.k@fastmail.com for me now.",
        "My address changed to j.ortiz@proton.me.",
        "Please email me at sam.hill@outlook.com from today.",
    ],
    "favourite_food": [
        "Lately ramen is my absolute favourite.",
        "These days nothing beats a good paella for me.",
        "My new favourite dish is shakshuka.",
    ],
    "drink": [
        "I've gone over to flat whites.",
        "My café order is an oat cortado now.",
        "I drink matcha lattes these days, no more espresso.",
    ],
    "child_school": [
        "Our son moved to Hillcrest Primary this term.",
        "The kids start at Bramble Academy in September, all enrolled.",
        "We switched our daughter to Oak Lane School.",
    ],
    "trip": [
        "Change of plan, we're heading to Japan this summer.",
        "The big holiday is Morocco now, flights booked.",
        "Scrapped Iceland, we're doing Vietnam instead.",
    ],
    "morning": [
        "I start every day with a cold swim now.",
        "First thing each morning I meditate these days.",
        "My mornings begin with yoga now.",
    ],
    "partner": [
        "I've been seeing Marco for a few months.",
        "Lena and I are together now.",
        "My girlfriend Aisha moved in last week.",
    ],
    "device": [
        "I switched to a MacBook Air for work.",
        "Got a Framework laptop, retired the old Dell.",
        "My main machine is a ThinkPad X1 now.",
    ],
    "household": [
        "With the baby here we're a family of four.",
        "My brother moved in, so it's three of us at home.",
        "It's just me and the cat now.",
    ],
    "doctor": [
        "I've registered with Dr Mensah at the new practice.",
        "My GP is Dr Lindqvist since the move.",
        "I switched to a new doctor, Dr Farouk.",
    ],
    "language": [
        "I've started Portuguese lessons.",
        "Dropped Spanish, I'm studying Japanese now.",
        "Learning Dutch these days, it's tough.",
    ],
    "car": [
        "Traded in the Golf for a Tesla Model 3.",
        "I drive a Skoda Octavia now.",
        "We bought a Honda Jazz last month.",
    ],
    "sport": [
        "I've taken up badminton.",
        "Switched from running to rowing.",
        "I play padel twice a week now.",
    ],
    "diet": ["I went vegan in January.", "I've cut out dairy completely.", "I'm keto these days."],
    "pet": [
        "We adopted a greyhound called Pip.",
        "There's a new kitten in the house, Miso.",
        "We got a rabbit last weekend.",
    ],
    "commute": [
        "I cycle to the office now.",
        "These days I take the train in.",
        "I've started walking to work.",
    ],
    "wake": [
        "My alarm goes at 5:45 now.",
        "I've been getting up at 7 these days.",
        "I'm up at 6:15 every morning now.",
    ],
}
emb = MiniLMEmbedder()
protos = C.prototypes(lambda t: emb.embed_query(t))
on = cl = n = 0
for slot, ss in P.items():
    vecs = emb.embed(ss)
    sc = C.statement_scores(np.asarray(vecs), ss, protos, slot)
    for s, v in zip(ss, sc, strict=True):
        c = bool(claims(s, KINDS[slot]))
        n += 1
        on += v is not None
        cl += c
        if v is None or not c:
            print(f"{slot:14} on={v is not None} claim={c}  {s}")
print(f"on slot {on}/{n}, claims {cl}/{n}")
