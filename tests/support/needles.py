"""Needle-at-depth material (issue 29, item 4): long messages of realistic filler with one fact placed at a
given depth, a memory with other sessions around them, and what to ask. Pure data and text; the tests and
``experiments/long_memories/needle_at_depth.py`` run it against a real store.

The filler is written here (template sentences of a pasted notes file: chores, work, a garden, cooking,
travel plans), seeded, so the same cell is the same text every run. It never names a needle's topic words.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

LENGTHS = (2_000, 10_000, 50_000)
DEPTHS = (0.1, 0.5, 0.9)

_SUBJECTS = ["I", "We", "My brother", "The neighbours", "Sam from work", "My aunt", "The landlord", "Our team"]
_DID = [
    "spent the morning repainting the fence along the back of the garden",
    "finally sorted the pile of receipts that had been sitting on the kitchen table",
    "tried a new recipe for lentil soup with smoked paprika and too much garlic",
    "took the early train and read most of a novel about a lighthouse keeper",
    "went through the quarterly budget line by line and found two duplicated invoices",
    "walked along the canal until the path ran out near the old mill",
    "moved the tomato plants into bigger pots because the roots were circling",
    "argued for twenty minutes about whether the meeting could have been an email",
    "fixed the dripping tap in the bathroom with a washer from the hardware shop",
    "planned a weekend of hiking if the weather holds up",
    "cleaned out the garage and gave three bags of old clothes to the charity shop",
    "rewrote the onboarding checklist so that new starters stop getting lost on day one",
    "baked two loaves of sourdough, one of which came out flat as a pancake",
    "watched a documentary about octopuses and could not stop talking about it",
    "booked the car in for its service next month after putting it off twice",
]
_WHEN = ["on Monday", "last weekend", "this morning", "after lunch", "in the evening", "on the way home",
         "before the rain started", "while the kettle boiled", "around noon", "late at night"]
_AFTER = [
    "It took longer than expected, as these things always do.",
    "Nobody was very impressed, but it got done.",
    "Next time I will start earlier and bring a proper list.",
    "The whole thing cost less than I feared.",
    "I made a note to tell the others about it at dinner.",
    "It was calmer than the week before, which was a relief.",
    "Half of it needs doing again, honestly.",
    "I should write down what worked so I remember it.",
    "The weather was grey but dry, good enough for it.",
    "It reminded me how much I like doing things with my hands.",
]
_HEADINGS = ["Notes for the week", "Things to remember", "Garden log", "Kitchen experiments", "Work odds and ends",
             "House jobs", "Weekend ideas"]


@dataclass(frozen=True, slots=True)
class Needle:
    """One fact to hide, a question that asks for it, and the words an answer must contain."""

    fact: str
    question: str
    answer: str


NEEDLES = (
    Needle("By the way, my passport number is K4827153, in case I lose the bag again.",
           "What is my passport number?", "K4827153"),
    Needle("The padlock on the storage unit opens with the code 6390, written nowhere else.",
           "What is the code for the storage unit padlock?", "6390"),
    Needle("My new dentist is Dr. Okonkwo, at the clinic on Fenwick Street.",
           "What is the name of my dentist?", "Okonkwo"),
)

# Other sessions of the same user: short turns, some on the needles' topics (a realistic memory has them).
OTHER_SESSIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("s-trip", "2024-03-02", ("I need new photos before the trip to Lisbon.", "Flights are booked for May.",
                              "Remind me to pack the travel adapter.")),
    ("s-teeth", "2024-03-09", ("I really hate going to the dentist, my last one was rough.",
                               "My tooth has been aching on the left side.", "I'll ask around for someone new.")),
    ("s-move", "2024-03-16", ("We moved the boxes of books into storage yesterday.",
                              "The van was too small so it took two trips.", "My back is sore today.")),
    ("s-work", "2024-03-23", ("The project deadline slipped to the end of April.",
                              "My manager wants a summary every Friday.", "I started learning Spanish on my phone.")),
)
LONG_SESSION_DATE = "2024-04-01"


def filler(length: int, seed: int) -> str:
    """About ``length`` characters of notes: headed paragraphs of three to six sentences."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < length:
        sentences = [f"{rng.choice(_SUBJECTS)} {rng.choice(_DID)} {rng.choice(_WHEN)}. {rng.choice(_AFTER)}"
                     for _ in range(rng.randint(3, 6))]
        paragraph = (f"{rng.choice(_HEADINGS)}:\n" if rng.random() < 0.3 else "") + " ".join(sentences)
        parts.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(parts)[:length]


def with_needle(length: int, depth: float, needle: Needle, seed: int = 0) -> str:
    """A message of ``length`` characters (give or take the fact) with ``needle.fact`` starting at
    ``depth`` of it, at a sentence boundary."""
    text = filler(length, seed)
    at = int(len(text) * depth)
    stop = text.rfind(". ", 0, at)
    at = stop + 2 if stop > 0 else 0
    return f"{text[:at]}{needle.fact} {text[at:]}"


def background(count: int = 20, turns: int = 8) -> list[tuple[str, str, list[str]]]:
    """``count`` everyday sessions of ``turns`` short turns each (the filler's sentences), one a week from
    January 2023: what a user's memory holds besides the long messages."""
    out = []
    for i in range(count):
        rng = random.Random(1_000 + i)
        said = [f"{rng.choice(_SUBJECTS)} {rng.choice(_DID)} {rng.choice(_WHEN)}. {rng.choice(_AFTER)}"
                for _ in range(turns)]
        out.append((f"s-bg{i}", f"2023-{1 + i // 4:02d}-{1 + 7 * (i % 4):02d}", said))
    return out


def long_session(i: int) -> str:
    """The session id of needle ``i``'s long message."""
    return f"s-long{i}"
