"""What only looks like a change of the user's fact, for the write-time links (``cbmemory.ingest.updates``): a new
claim (``cbmemory.claims.Claim``) that does not tell the fact as it holds now, though a rule reads it as a claim of the
kind. Each rule was written from sentences of our own that linked, under a rule committed before the fix, with a held
set counted after it (``experiments/knowledge_updates/README.md``, ``link_probes.py``): a past, a stay or a day, a
plan, a thing's move or a place one goes to, a word of the kind used of something else, someone else's thing. English
word lists, as the claim rules are; the read-time stage does not read them (it shows statements, it marks none).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

from ..claims import CHANGE, SLOTS, Claim, in_the_past, own_clause
from ..text import people

MAX_CAR_PHRASES = 8  # car phrases read per span (a span holds a few; a pasted text may hold thousands)


# a claim told for a bounded while ("This week I'm based in Aberdeen", "for the holidays", "all day", "while I'm
# abroad") that says no change or beginning is a stay, not the lasting fact
WHILE = re.compile(r"\b(?:this (?:week|weekend|month|term|summer|winter|spring|autumn|fall)|(?:for|over) (?:the|a|two|"
                   r"three|a few|a couple of|some|several) (?:days?|weeks?|weekends?|months?|summer|winter|holidays?|"
                   r"conference|trip|audit|project|contract|festival|course)|until (?:mon|tues|wednes|thurs|fri|satur|"
                   r"sun)day|until the end of|on a contract|temporar(?:y|ily)|(?:the|a) (?:whole )?day|all day|while "
                   r"(?:I['’]m|I am|we['’]re|we are) (?:away|abroad|travell?ing|on holiday|on leave|on the road|at "
                   r"work|visiting))\b", re.I)
BEGUN = re.compile(r"\b(?:moved|moving|started|starting|joined|joining|began|for good|signed|hired|accepted|"
                   r"registered|since|first|bought|buying|purchased|adopted|engaged|married|got (?:a|an|my|our)|went|"
                   r"became|now)\b", re.I)
# a habit's or a standing choice's claim told of one day ("I woke up at 9 today", "I saw Dr Patel today") that says no
# change or beginning is that day's: for these kinds a day's event is no change (a move, a purchase is)
HABITS = frozenset({"wake", "commute", "coffee", "diet", "sport", "doctor", "habit"})
ONE_DAY = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening)|yesterday|last night|"
                     r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day(?!s))\b", re.I)
# ... where "instead of my usual" tells a one-off ("I had a latte instead of my usual today"), no change ("Lately I've
# been playing strategy games instead of my usual shooters" is told of no one day: a change word as before)
ONE_OFF = re.compile(r"\binstead of (?:my|our|the) usual\b", re.I)


# a plan told in the present ("I am moving to Aberdeen in March", "an offer, starting in September"): a change told in
# the present progressive, or a start to come, with a time still to come; the statement's own date is not read
_MONTHS = r"january|february|march|april|may|june|july|august|september|october|november|december"
PLANNED = re.compile(r"(?:\b(?:am|are|is)|['’](?:m|re|s))\s+(?:now\s+)?(?:moving|relocating|starting|switching|leaving|"
                     r"changing|transferring)\b|\bstarting (?:in|on|from|next)\b|\bfrom next\b", re.I)
TO_COME = re.compile(rf"\b(?:in (?:{_MONTHS})|in the (?:spring|summer|autumn|fall|winter|new year)|later this (?:week|"
                     r"month|year)|at the end of (?:the|this) (?:week|month|year)|in (?:a|a few|two|three|several) "
                     r"(?:days|weeks|months)|once|after the|from next|starting (?:in|on|from|next))\b", re.I)


def _planned(sentence: str) -> bool:
    """Whether a claim's sentence tells a plan (``PLANNED`` with a time still to come, ``TO_COME``)."""
    return PLANNED.search(sentence) is not None and TO_COME.search(sentence) is not None


def _for_a_while(sentence: str, slot: str) -> bool:
    """Whether a claim's sentence tells it for a bounded while (``WHILE``), or a habit's for one day (``ONE_DAY``,
    ``HABITS``; "instead of my usual" then a one-off, ``ONE_OFF``), and no change or beginning (``BEGUN``,
    ``CHANGE``)."""
    one_day = slot in HABITS and ONE_DAY.search(sentence) is not None
    bounded = one_day or WHILE.search(sentence) is not None
    told = ONE_OFF.sub(" ", sentence) if one_day else sentence
    return bounded and not BEGUN.search(told) and not CHANGE.search(told)


# a move whose subject is a thing of the user's ("my gym moved to", "our book club relocated to"): the thing's move, not
# the user's home; "my partner and I moved", "our family moved" are the user's, and a person's move names that person
# (``people``)
MOVED = re.compile(r"\b(?:my|our)\s+(?:[\w'’-]+\s+){0,2}?([\w'’-]+)\s+(?:(?:has|had|just|recently|finally|also|"
                   r"now)\s+)*(?:moved|relocated|is moving|moves)\b", re.I)
MOVERS = frozenset({"i", "we", "family", "household"})


def _thing_moved(span: str) -> bool:
    """Whether a home claim's span tells a thing of the user's that moved (``MOVED``), not the user."""
    return any((w := m.group(1).lower()) not in MOVERS and not people(f"my {w}") for m in MOVED.finditer(span))


# a home claim told as a place one goes to ("we went to the new place in Dundee", "popped into the new place"), with no
# move of one's own ("we moved to a new place" is one): a venue, not the user's home
VISITED = re.compile(r"\b(?:in)?to (?:a|the) new place\b", re.I)
MOVING = re.compile(r"\b(?:mov(?:ed|ing|e)|relocat\w*)\b", re.I)


def _visited(span: str) -> bool:
    """Whether a home claim's span tells a place one goes to (``VISITED``) and no move (``MOVING``)."""
    return VISITED.search(span) is not None and MOVING.search(span) is None


# a word of the kind used of something else: a partner in an activity or a business ("my new running partner is
# Morag"), a phone claim that tells no number ("My new phone is a Pixel 8": a handset; a number is told by its
# digits, or as new, changed or different)
ACTIVITY_PARTNER = re.compile(r"\b(?:business|running|tennis|squash|badminton|padel|golf|dance|dancing|lab|study|"
                              r"training|workout|gym|climbing|hiking|cycling|writing|sparring|chess|bridge|debate|"
                              r"project|research|doubles|skating|rowing|swimming|walking|travel|podcast|band|"
                              r"co-?founding|trading|sales|squad|team|practice)\s+partners?\b", re.I)
NUMBER_TOLD = re.compile(r"\d(?:[\s-]?\d){5,}|\b(?:new|different|changed (?:my|our)(?: \w+)?) (?:number|digits|sim)\b|"
                         r"\bnumber (?:has |is )?changed\b", re.I)
# ... an email claim must tell an address as a phone claim a number ("My email to Fenwick Analytics bounced" is a
# message); and a doctor one is referred to ("referred me to Dr Lennox, a specialist") is no change of one's own
EMAIL_TOLD = re.compile(r"@|\b(?:new|different|changed (?:my|our)(?: \w+)?) (?:e-?mail|address|inbox)\b|"
                        r"\b(?:e-?mail|address) (?:has |is )?changed\b", re.I)
REFERRED = re.compile(r"\b(?:referr(?:ed|ing)|refers?|sent) (?:me |us )?to\b|\b(?:a|the) (?:specialist|consultant)\b",
                      re.I)


# a car phrase that opens a compound ("my new car insurance", "the car park"): no claim of the user's car when every
# car phrase of the claim's span is one
CAR_COMPOUND = re.compile(r"\s+(?:insurance|park|parks|parking|wash|loan|finance|payments?|seats?|share|sharing|pool|"
                          r"rental|hire|keys?|charger|charging|tax|mats?|radio|stereo|boot|trunk|alarm|battery|"
                          r"service|dealer|dealership|journey|ride|crash|accident|repairs?)\b", re.I)


def _car_compound(span: str) -> bool:
    """Whether each car phrase of a car claim's span (``claims.SLOTS``) opens a compound (``CAR_COMPOUND``)."""
    found = list(islice(SLOTS["car"].finditer(span), MAX_CAR_PHRASES))
    return bool(found) and all(CAR_COMPOUND.match(span, m.end()) for m in found)


# a claim whose own clause names its kind's thing with someone else's possessive ("to see his new house", "their flat
# in Leith") is that person's fact, though the sentence has "I" or a person named as company ("with my husband for his
# job" is no home of his; "I moved to Leith, their flat was too small" is a move: the possessive is in another clause)
_THINGS = {"home": r"place|flat|apartment|house|home|address", "work": r"job|company|firm|office|employer",
           "phone": r"number|phone|mobile", "email": r"e-?mail|inbox|address", "doctor": r"doctor|gp",
           "school": r"school", "car": r"car", "device": r"laptop|computer"}
THEIRS = {slot: re.compile(rf"\b(?:his|her|their)\s+(?:[\w'’-]+\s+){{0,2}}?(?:{things})\b", re.I)
          for slot, things in _THINGS.items()}


# per kind, whether a claim's span uses the kind's word of something else (a thing's move, a venue, a compound, an
# activity's partner, a handset, a message, a referral)
ELSEWHERE: dict[str, Callable[[str], bool]] = {
    "home": lambda span: _thing_moved(span) or _visited(span),
    "car": _car_compound,
    "partner": lambda span: ACTIVITY_PARTNER.search(span) is not None,
    "phone": lambda span: NUMBER_TOLD.search(span) is None,
    "email": lambda span: EMAIL_TOLD.search(span) is None,
    "doctor": lambda span: REFERRED.search(span) is not None,
}


def holds_now(claim: Claim, slot: str) -> bool:
    """Whether a new claim tells the user's fact as it holds now: not a past ("I lived in Aberdeen before I came here"),
    a while or a day ("This week I'm based in Aberdeen"), a plan ("I'm moving to Aberdeen in March"), a thing's move or
    a place one goes to ("My gym moved to Leith", "we went to the new place in Dundee"), a word of the kind used of
    something else ("my running partner", "my new car insurance", a phone with no number told, an email with no
    address, a doctor one is referred to: ``ELSEWHERE``), nor someone else's thing ("his new house")."""
    if in_the_past(claim) or _for_a_while(claim.sentence, slot) or _planned(claim.sentence):
        return False
    if (elsewhere := ELSEWHERE.get(slot)) is not None and elsewhere(claim.span):
        return False
    return slot not in THEIRS or THEIRS[slot].search(own_clause(claim)) is None
