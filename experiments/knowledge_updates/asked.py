"""Issue 31: which slot a first-person question gets, on questions written for this check (not the benchmark's).

The current-value stage finds a question's kind of fact by its nearest description (``current_value.SLOTS``).
Those descriptions were written as statements ("I moved to another city"); a question is asked another way, and
a word one slot's descriptions share with another's question ("commute", "live") can win. ``ASKED`` holds, per
slot, questions a user might put to an agent about that fact now, written for this check in December 2026 before
any were run, from no benchmark's sentences (neither family's questions were read for them). ``EVENTS`` holds
first-person questions about what happened, not about a fact that holds now: a slot for one of them costs turns,
not recall (the stage only adds lines).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/asked.py [-v]

Prints, for the descriptions as they are in ``current_value``, how many of ``ASKED`` get their own slot (and which
slot the others get) and how many of ``EVENTS`` get one.
"""

import argparse
import collections

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

ASKED: dict[str, tuple[str, ...]] = {
    "home_city": ("Where do I live now?", "Which town am I based in these days?", "What city is home for me at the "
                  "moment?", "Remind me where I'm living currently.", "Which place did I end up settling in?",
                  "What's my current city?"),
    "home_kind": ("What kind of place do I live in now?", "Do I live in a house or an apartment?", "What sort of "
                  "home do I have at the moment?", "Remind me what type of housing I'm in.", "Is my home a flat, a "
                  "house or something else these days?", "What's my living situation, building-wise?"),
    "employer": ("Where do I work now?", "Which company employs me these days?", "Who's my employer at the "
                 "moment?", "Remind me which firm I'm with.", "What organisation do I work for currently?",
                 "Which company did I end up joining?"),
    "job_title": ("What's my job title now?", "What position do I hold at work these days?", "What's my role "
                  "at the company currently?", "Remind me what my title is.", "What rank am I at work?",
                  "What do they call my position now?"),
    "schedule": ("Which day is my weekly class now?", "On what evening do I have my lessons these days?",
                 "When does my regular class meet?", "Remind me which weekday my course is on.", "What night of "
                 "the week is my class?", "Which day did my weekly session move to?"),
    "phone": ("What's my phone number now?", "Which number can people reach me on?", "Remind me of my current "
              "mobile number.", "What number should I give out for calls?", "Which cell number do I use these "
              "days?", "What's the best number to text me?"),
    "email": ("What's my email address now?", "Which inbox should people write to?", "Remind me of my current "
              "email.", "What address do I use for email these days?", "Where should messages to me be sent?",
              "Which email account is mine now?"),
    "favourite_food": ("What's my favourite dish these days?", "Which meal do I love most now?", "What food am I "
                       "craving all the time lately?", "Remind me what my go-to dish is.", "What do I like to "
                       "eat best?", "Which dish would I pick above all others?"),
    "drink": ("What's my usual coffee order?", "What do I get at the cafe these days?", "Which drink do I order "
              "every morning?", "Remind me how I take my coffee now.", "What's my regular drink at the coffee "
              "shop?", "What should the barista make for me?"),
    "child_school": ("Which school does my kid go to now?", "Where is my daughter at school these days?", "What's "
                     "the name of my son's school?", "Remind me which school my child attends.", "Which school "
                     "did we move our child to?", "Where do I drop my kid off each morning?"),
    "trip": ("Where am I going on my next trip?", "What's the destination of my upcoming holiday?", "Where did "
             "I decide to travel next?", "Remind me where my vacation is this time.", "Which country am I "
             "visiting on my next break?", "Where are we heading for the holidays?"),
    "morning": ("What do I do first thing in the morning now?", "What's my morning routine these days?", "How "
                "do I start my day lately?", "Remind me of my daily morning habit.", "What's the first thing I "
                "do after waking?", "What habit do I begin each day with?"),
    "partner": ("Who am I dating now?", "Who's my partner these days?", "What's the name of the person I'm "
                "seeing?", "Remind me who my significant other is.", "Who am I in a relationship with?",
                "Who do I go on date nights with?"),
    "device": ("Which laptop do I use now?", "What computer am I working on these days?", "What's my current "
               "machine?", "Remind me what laptop I have.", "Which computer did I switch to?", "What do I type "
               "on for work?"),
    "household": ("How many people live in my home now?", "Who lives with me these days?", "How big is my "
                  "household at the moment?", "Remind me how many of us are at home.", "How many people do I "
                  "cook dinner for every night?", "Who shares the house with me?"),
    "doctor": ("Who's my doctor now?", "Which GP do I see these days?", "What's the name of my physician?",
               "Remind me who my family doctor is.", "Which doctor am I registered with?", "Who do I book "
               "check-ups with?"),
    "language": ("Which language am I learning now?", "What language are my lessons in these days?", "Which "
                 "foreign language am I studying?", "Remind me what language I'm practising.", "What language "
                 "does my tutor teach me?", "Which language did I pick up recently?"),
    "car": ("What car do I drive now?", "Which vehicle do I have these days?", "What's my current car?",
            "Remind me what I drive.", "Which car did I buy?", "What model is my car?"),
    "sport": ("Which sport do I play now?", "What sport am I into these days?", "What game do I play with my "
              "team?", "Remind me which sport I do at the weekend.", "What sport did I take up?", "Which club "
              "sport do I train for?"),
    "diet": ("What diet am I on now?", "What do I eat and avoid these days?", "Am I vegetarian or something "
             "else at the moment?", "Remind me of my eating plan.", "Which foods have I cut out?", "How do I eat "
             "lately?"),
    "pet": ("What pet do I have now?", "Which animal lives with me these days?", "What kind of pet do we keep?",
            "Remind me what my pet is.", "Which animal did we adopt?", "What pet do I feed every day?"),
    "commute": ("How do I get to work now?", "What's my commute these days?", "How do I travel to the office?",
                "Remind me how I go to work each day.", "Do I take the bus, the train or bike to work?",
                "What's my way into work in the mornings?"),
    "wake": ("What time do I wake up now?", "When does my alarm go off these days?", "What time do I get up on "
             "workdays?", "Remind me when I set my alarm for.", "How early do I rise lately?", "At what hour do "
             "I get out of bed?"),
}

EVENTS: tuple[str, ...] = (
    "What did I do last weekend?", "When did I go to the museum?", "What did I tell you about the concert?",
    "How did my presentation go last month?", "What book did I mention reading on the plane?", "Who did I meet at "
    "the party in May?", "What did we talk about yesterday?", "When was my sister's wedding?", "What gift did I buy "
    "for my friend's birthday?", "Why was I upset on Friday?", "What film did I watch with my cousin?", "How long "
    "ago did I run the marathon?", "What did I cook for the dinner party?", "Which painting did I finish in "
    "spring?", "What did I say about the storm?")


def slots_of(questions, emb, protos) -> list[str | None]:
    return [C.slot_of(emb.embed_query(q), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN) for q in questions]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-v", action="store_true", help="print every question that misses its slot")
    args = ap.parse_args()
    emb = MiniLMEmbedder()
    protos = C.prototypes(emb.embed_query)
    right, wrong = 0, collections.Counter()
    for slot, questions in ASKED.items():
        for q, got in zip(questions, slots_of(questions, emb, protos), strict=True):
            right += got == slot
            if got != slot:
                wrong[(slot, got)] += 1
                if args.v:
                    print(f"  {slot} -> {got}: {q}")
    n = sum(len(q) for q in ASKED.values())
    events = sum(s is not None for s in slots_of(EVENTS, emb, protos))
    print(f"ASKED: {right} of {n} get their own slot; EVENTS: {events} of {len(EVENTS)} get a slot")
    for (slot, got), k in wrong.most_common():
        print(f"  {slot} -> {got}: {k}")


if __name__ == "__main__":
    main()
