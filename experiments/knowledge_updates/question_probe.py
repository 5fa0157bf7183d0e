"""Issue 31, a probe (questions written on 5 December 2026 from no family's questions, not looking at ``asked.py`` or
``asked_cv.py``): does each first-person question about a fact now get its own kind's slot?

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/question_probe.py
"""

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.about import about_the_user, in_first_person

Q = {
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
emb = MiniLMEmbedder()
protos = C.prototypes(lambda t: emb.embed_query(t))
ok = n = 0
for slot, qs in Q.items():
    for q in qs:
        got = C.slot_of(emb.embed_query(in_first_person(q)), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
        n += 1
        ok += got == slot
        if got != slot:
            print(f"{slot:14} -> {got}  about={about_the_user(q)}  {q}")
print(f"{ok}/{n}")
