"""Issue 31, two probes written on 5 December 2026 from no family's sentences (nor ``asked.py``'s or ``asked_cv.py``'s):

- ``questions``: first-person questions about a fact now, three a kind: does each get its own kind's slot
  (``current_value.slot_of``)?
- ``changes``: direct changes told in everyday words, three a kind: is each on its kind's slot by the stage's reading
  (``current_value.statement_scores``), and does it claim the kind by the write-time rules (``cbmemory.claims``)?

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/probes.py questions|changes
"""

import sys

import numpy as np

from cbmemory.claims import claims
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.about import about_the_user, in_first_person
from cbmemory.retrieval.slots import KINDS

QUESTIONS = {
    "home_city": [
        "Where's home for me right now?",
        "Remind me which city I'm living in.",
        "What city have I settled in?",
    ],
    "home_kind": [
        "Do I live in a flat or a house?",
        "What sort of place am I living in?",
        "What's my current home like, a flat or a house?",
    ],
    "employer": [
        "Who's my employer right now?",
        "Where do I work these days?",
        "Which firm am I with at the moment?",
    ],
    "job_title": [
        "What's my role at work?",
        "What do I do for a living, what's my title?",
        "Which position do I hold now?",
    ],
    "schedule": [
        "What day is my weekly class on?",
        "Which weekday do I have my regular session?",
        "When is my class each week?",
    ],
    "phone": [
        "What's the best number to reach me on?",
        "Remind me of my mobile number.",
        "Which phone number do I use now?",
    ],
    "email": [
        "What email should people use for me?",
        "Which address do I get my emails at?",
        "What's my current email?",
    ],
    "favourite_food": [
        "What dish do I love most?",
        "What's my go-to meal?",
        "Which food is my favourite at the moment?",
    ],
    "drink": [
        "What do I usually order at the café?",
        "How do I take my coffee these days?",
        "What's my regular drink order?",
    ],
    "child_school": [
        "Where does my son go to school?",
        "Which school are my kids at?",
        "What school does our little one attend?",
    ],
    "trip": [
        "Where am I off to on my next holiday?",
        "What's the destination of my upcoming trip?",
        "Where am I travelling to next?",
    ],
    "morning": [
        "How do I start my day?",
        "What's my morning routine now?",
        "What's the first thing I do after waking up?",
    ],
    "partner": ["Who am I seeing these days?", "What's my partner's name?", "Who is my other half?"],
    "device": ["What laptop am I using?", "Which computer do I work on?", "What machine do I have now?"],
    "household": [
        "How many of us live at home?",
        "How big is my household?",
        "How many people are there in my house?",
    ],
    "doctor": ["Who's my GP?", "Which doctor do I see?", "Who do I go to for my health check-ups?"],
    "language": [
        "What language am I studying?",
        "Which language am I trying to learn?",
        "What am I learning to speak?",
    ],
    "car": ["What do I drive?", "Which car do I have now?", "What's my current car?"],
    "sport": [
        "What sport am I into?",
        "Which sport do I play at the moment?",
        "What do I play for exercise?",
    ],
    "diet": ["What kind of diet am I on?", "What don't I eat these days?", "How do I eat now, any diet?"],
    "pet": ["What pet do I have?", "What animal lives with me?", "Which pet do I own now?"],
    "commute": ["How do I get to the office?", "What's my way to work now?", "How do I travel in to work?"],
    "wake": ["When does my alarm go off?", "What time do I get up?", "How early do I wake these days?"],
}
CHANGES = {
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


def changes(emb: MiniLMEmbedder, protos: C.Protos) -> None:
    on = cl = n = 0
    for slot, ss in CHANGES.items():
        sc = C.statement_scores(np.asarray(emb.embed(ss)), ss, protos, slot)
        for s, v in zip(ss, sc, strict=True):
            c = bool(claims(s, KINDS[slot]))
            n += 1
            on += v is not None
            cl += c
            if v is None or not c:
                print(f"{slot:14} on={v is not None} claim={c}  {s}")
    print(f"on slot {on}/{n}, claims {cl}/{n}")


if __name__ == "__main__":
    model = MiniLMEmbedder()
    {"questions": questions, "changes": changes}[sys.argv[1]](model, C.prototypes(model.embed_query))
