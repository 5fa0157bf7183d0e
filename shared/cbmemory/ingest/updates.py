"""Which of a user's earlier statements a new one changes (``supersedes``), from cheap evidence: no LLM, no
store (the caller finds the candidates and their similarities; ``cbmemory.memory.updates`` does).

A new user turn supersedes an earlier user turn of the same user when all of these hold:

- both are statements (not questions), the new one names no relative or friend the earlier one does not
  (``people``), and their embeddings are not opposite (``SIMILARITY``);
- both make a *claim* of the same kind of fact (``claims``): a sentence where one of the ``SLOTS`` rules
  (where one lives, works, a phone number, a school, a partner ...) matches and the clause around the match
  is the user's own plain statement: a first-person word (I, my, we ...), no third-person or second-person
  subject ("she moved to Porto", "glad you moved to Porto"), no hedge or wish ("I'd love to live in
  Lisbon", "if I moved"), no negation, nothing about the future ("I'm going to move"; trips excepted); the
  two claims name the same people ("my daughter goes to ..." is not "my friend's daughter ...");
- the new claim says something new (its values are not all in the earlier turn) and either has a change
  word (moved, switched, instead, no longer, lost my job ...), or the slot holds one value at a time
  (``SINGLE``: a home, an employer, a phone number ...) and each claim names a value the other turn lacks
  (``values``: names, numbers, emails; for diets, commutes and households their ordinary words). Slots
  that can hold several values at once (pets, trips, languages, sports, favourites) need the change word.

Precision first: a missed link leaves today's behaviour (both statements can be shown, unmarked); a false one
marks a line that still holds as changed. Measured with ``cbmemory eval locomo-updates --family train
--link-updates --sample-links 60`` (``experiments/knowledge_updates/README.md``): on plain LoCoMo dev (x1,
4,805 turns) 1 link, a real change by hand-labelling (the rules before these: 8 links, none real); on the
knowledge-update benchmark's train phrasings 51 of 154 changes linked (0.33; before: 54, 0.35) and 0 of 30
someone else's similar facts. Most missed changes are told without a first-person word ("the new flat in
Valencia made it worth it") or in words no slot rule knows. The slot rules and words were written looking at
the train phrasings and at the links earlier rules made on plain LoCoMo dev (both speakers); ``SIMILARITY``
was chosen leaving one conversation out (``experiments/knowledge_updates/pairs.py --grid``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..text import people, stated

SIMILARITY = 0.1  # the least cosine of two turns' embeddings for a link (leave-one-conversation-out, pairs.py)
MAX_CANDIDATES = 8  # earlier claims considered per new claim (the nearest by embedding)

CHANGE = re.compile(
    r"\b(?:moved|moving (?:back )?to|relocat\w*|switch\w*|chang\w*|no longer|not anymore|any ?more|"
    r"instead(?! of \w+ing)|lost my job|laid off|got fired|resigned|retired|left (?:my|the) (?:job|company|firm)|"
    r"from now on|these days|nowadays|quit|swapped|upgraded|transferred|promoted|replaced|new (?:job|number|address|home|"
    r"flat|place|school|doctor|phone|laptop|car|partner|plan|role|title)|(?:is|are|it's) \w+ now)\b", re.I)
VALUE = re.compile(r"(?<![\w@.])(?:[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*|\d[\d:.,\s]*\d|\d|[\w.+-]+@[\w.-]+)")
_STARTS = {"I", "I'm", "I've", "I'll", "I'd", "My", "We", "Our", "The", "A", "An", "It", "It's", "So", "And",
           "But", "Big", "Oh", "Yes", "No", "Hey", "Hi", "Well", "Just", "Also", "Now", "Since", "Before", "After",
           "These", "This", "That", "Speaking", "Tomorrow", "Today", "Yesterday", "Change", "Booked", "Signed",
           "New", "Quick", "Guess", "Anyway", "Honestly", "Actually", "Sure", "Thanks", "Noted", "Ok", "Okay", "Here",
           "Here's", "There", "There's", "Let's", "What", "When", "Wow", "Yeah", "Thank", "You", "Your"}
_MONTHS_DAYS = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
_CALENDAR = frozenset({d.lower() for d in _MONTHS_DAYS} | {
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "last", "next"})

SLOTS: dict[str, re.Pattern[str]] = {name: re.compile(p, re.I) for name, p in {
    "home": r"\b(?:live[sd]? in|living in|mov(?:ed|ing|e) (?:back )?to|relocat\w+ to|resident of|based in|settled "
            r"in|moved into|new (?:flat|apartment|place|house|home)|home (?:is|now is) in|our place in)\b",
    "work": r"\b(?:work(?:ing|s|ed)? (?:at|for)(?! (?:me|us|you|everyone|everybody|both|all|hours|years|months|"
            r"weeks|days|a while|ages))|job at|hired by|contract with|employer|new job|started "
            r"(?:at|with)|my (?:company|firm|office))\b",
    "school": r"\b(?:school|academy|primary|enrolled|this term|term at|classes at|started at|first week at|goes "
              r"to)\b",
    "phone": r"\b(?:phone|(?:my|new|old|mobile|cell) number|digits|sim|text me|call me|reach me)\b",
    "email": r"\b(?:e-?mail|inbox|mail me|write to me)\b|@",
    "title": r"\b(?:title|promoted|my role|made (?:a |the )?\w+ (?:lead|manager|head)|work as|(?:new|my) position|"
             r"i(?:'m| am) (?:now )?an? (?:\w+ ){1,3}(?:at|for)\b)",
    "trip": r"\b(?:trip|holiday|vacation|flights?|travel(?:l?ing)? to|heading to|going to \w+ (?:in|next|this))\b",
    # the partner named ("my partner Rafael"), not only mentioned ("my partner and I went ...")
    "partner": r"\b(?:(?:partner|boyfriend|girlfriend|wife|husband|fianc[eé]e?)(?:,| is| named| called)? (?-i:[A-Z])\w*|"
               r"seeing someone|dating|been together|in a relationship|relationship with|married to)\b",
    "device": r"\b(?:laptop|computer|macbook|thinkpad|notebook|pc|phone model)\b",
    "car": r"\b(?:(?:my|new|old|the) car|drive an?|driving an?|bought an?)\b",
    "pet": r"\b(?:pet|dog|cat|puppy|kitten|adopted|parrot|rabbit|hamster|ferret|tortoise)\b",
    "diet": r"\b(?:diet|vegan|vegetarian|pescatarian|keto|gluten|eat(?:ing)? (?:no|only))\b",
    "sport": r"\b(?:sport|court|league|weekend games?|play (?:\w+ ){1,2}on weekends|weekends i play|leisure "
             r"cent(?:re|er))\b",
    "coffee": r"\b(?:coffees?|lattes?|espressos?|cortados?|cappuccinos?|flat whites?|brew|barista)\b",
    "language": r"\b(?:learning(?! (?:curve|experience|process|opportunit))|studying|language|lessons?|course|duolingo|vocab\w*)\b",
    "doctor": r"\b(?:doctors?|gp|dr|physician|check-?up|clinic)\b",
    "wake": r"\b(?:wake|woke|alarm|get up|up at)\b",
    "commute": r"\b(?:commut\w*|(?:get|gets|got|go|goes|going|went|come|ride|drive|walk|cycle) (?:in )?to "
               r"(?:work|the office)|by (?:bike|bus|train|tram|car|tube|metro|underground|foot)|"
               r"(?:cycle|cycling|ride|walk) to)\b",
    "household": r"\b(?:household|live with|living with|under (?:one|our) roof|people (?:at|in) (?:home|the house)|"
                 r"\w+ of us (?:living )?(?:in|at|under))\b",
    "habit": r"\b(?:every morning|first thing|routine|mornings?|start (?:my|the) day|before breakfast)\b",
    "favourite": r"\b(?:favou?rite|crave|craving|obsessed|best food|top food|can't stop)\b",
    "schedule": r"\b(?:every (?:mon|tue|wed|thu|fri|sat|sun)\w*|(?:mon|tues|wednes|thurs|fri|satur|sun)day "
                r"(?:evenings?|nights?|mornings?)|weekly)\b",
}.items()}

# Slots of one value at a time (a home city, an employer): another value replaces the old one. The others
# (pets, trips, languages, sports, routines, devices, favourites) can hold several: a new one needs a change word.
SINGLE = frozenset({"home", "work", "school", "phone", "email", "title", "partner", "doctor", "car", "diet",
                    "coffee", "wake", "commute", "household"})
# relatives a slot's own claims name (my partner): not someone else
OWN = {"partner": frozenset({"partner", "boyfriend", "girlfriend", "wife", "husband", "fiance", "fiancee", "fiancé",
                             "fiancée"})}
# slots whose values are ordinary words, not names or numbers
VALUE_TERMS = {name: re.compile(p, re.I) for name, p in {
    "diet": r"\b(?:vegan|vegetarian|pescatarian|keto|paleo|gluten-free|dairy-free|halal|kosher|carnivore|"
            r"low-carb|plant-based|flexitarian)\b",
    "commute": r"\b(?:by (?:bike|bicycle|bus|train|tram|car|tube|metro|underground|subway|ferry|scooter)|on foot|"
               r"walk(?:ing)?|cycl(?:e|ing)|driv(?:e|ing))\b",
    "household": r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|\d+) of us\b",
}.items()}
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|me|my|mine|we|we're|we've|us|our)\b|\bI['’]", re.I)
THIRD_PERSON = re.compile(r"\b(?:he|she|they|he's|she's|they're|they've|your|you're|you've|you'd)\b|\byou (?:\w+ )?"
                          r"(?:live|lived|moved|work|worked|started|got|have|had|are|were|go|went|play|drive)\b", re.I)
HEDGE = re.compile(r"\b(?:if|would|could|might|may|maybe|perhaps|someday|one day|wish\w*|hop(?:e|es|ed|ing)|wanna|"
                   r"(?:want|wanted|wants|plan|plans|planning|thinking|think|considering|dream\w*|trying|try) "
                   r"(?:to|of|about)|used to|can't wait|should|imagine|pretend)\b|['’]d\b", re.I)
NEGATED = re.compile(r"\b(?:not|never|no one|nobody)\b|n['’]t\b(?! stop)", re.I)
FUTURE = re.compile(r"\b(?:will|going to|gonna|soon|next (?:week|month|year))\b|['’]ll\b", re.I)
_CLAUSE = re.compile(r"[,;:—–]\s*|\s-\s|\b(?:and|but|so|because|while|when|after|before)\s", re.I)

_SENTENCE = re.compile(r"(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)[.!?]+\s+")
_GREETING = re.compile(r"\b(?i:hey|hi|hello|thanks|thank you|yeah|yes|wow|oh|congrats|sure|great|ok|okay|dear|"
                       r"bye|love you)\W+([A-Z]\w+)|,\s*([A-Z]\w+)\s*(?:[!.?]|$)")
_CONTRACTION = re.compile(r"['’](?:re|ll|ve|d|m)$|n['’]t$")


def values(text: str) -> frozenset[str]:
    """The value words of a turn: capitalised names (not a sentence's first word, not the name of whom the
    turn speaks to, not the usual capitalised words), numbers, emails; days of the week by their name."""
    addressed = {n for m in _GREETING.finditer(text) for n in m.groups() if n}
    out = set()
    for sentence in _SENTENCE.split(text):
        for m in VALUE.finditer(sentence):
            words = [w for w in m.group(0).strip(" .,:;!").split()
                     if not _CONTRACTION.search(w) and w not in addressed]
            if m.start() == 0 and words and words[0].isalpha() and words[0] == m.group(0).split()[0]:
                words = words[1:]  # a sentence's first word
            while words and words[0] in _STARTS:
                words = words[1:]
            while words and words[-1] in _STARTS:
                words = words[:-1]
            if words:
                value = " ".join(w.removesuffix("'s").removesuffix("’s") for w in words)
                out.add(value.lower().rstrip("s") if value.rstrip("s") in _MONTHS_DAYS else value.lower())
    return frozenset(out)


def slots(text: str) -> frozenset[str]:
    """The slot rules that match anywhere in ``text`` (first person or not)."""
    return frozenset(name for name, rule in SLOTS.items() if rule.search(text))


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(text) if s.strip()]


class Claim(NamedTuple):
    """Where a turn states one of the user's facts: the ``sentence`` and the ``span`` that holds its value (the
    clause of the slot phrase and the clause after it: "I changed my number, it's 0752 ...")."""

    sentence: str
    span: str


def _clauses(sentence: str, start: int, end: int) -> tuple[str, str]:
    """The clause of ``sentence`` around the slot phrase at ``start:end`` (to a few words after it), and the
    span from that clause's start to the end of the clause after it."""
    lo = max((m.end() for m in _CLAUSE.finditer(sentence, 0, start)), default=0)
    after = _CLAUSE.search(sentence, end)
    clause = sentence[lo:min(after.start() if after else len(sentence), end + 24)]
    following = _CLAUSE.search(sentence, after.end()) if after else None
    return clause, sentence[lo:following.start() if following else len(sentence)]


def _stated(clause: str, slot: str) -> bool:
    """Whether ``clause`` states the user's own fact: a first-person word, no third-person subject, no hedge
    or wish, no negation, not about the future (but for trips)."""
    return (bool(FIRST_PERSON.search(clause)) and not THIRD_PERSON.search(clause) and not HEDGE.search(clause)
            and not NEGATED.search(clause) and (slot == "trip" or not FUTURE.search(clause)))


def claims(text: str, only: str | None = None) -> dict[str, list[Claim]]:
    """Per slot (``only`` that one), where ``text`` (its sentences that are not questions) states the user's own
    fact of that kind: a slot rule matches and the clause around it is ``_stated``."""
    out: dict[str, list[Claim]] = {}
    rules = SLOTS.items() if only is None else ((only, SLOTS[only]),)
    for sentence in sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        for name, rule in rules:
            for m in rule.finditer(sentence):
                clause, span = _clauses(sentence, m.start(), m.end())
                if _stated(clause, name):
                    out.setdefault(name, []).append(Claim(sentence, span))
                    break
    return out


def _values(claim: Claim, slot: str) -> frozenset[str]:
    """The values a claim names: its sentence's ``values`` in its span (days and months only for a schedule) and, for a
    slot whose values are ordinary words, those."""
    span = claim.span.lower()
    found = frozenset(v for v in values(claim.sentence) if v in span and (slot == "schedule" or v not in _CALENDAR))
    rule = VALUE_TERMS.get(slot)
    return found | ({m.group(0).lower() for m in rule.finditer(claim.span)} if rule else set())


def changes(new: str, old: str, similarity: float) -> bool:
    """Whether the user's statement ``new`` changes the user's earlier statement ``old`` (both user turns of
    one user; ``similarity``: the cosine of their embeddings). The rules are the module docstring's, on what
    each states (``text.stated``: a turn's questions left out)."""
    new, old = stated(new), stated(old)
    if not (new and old) or similarity < SIMILARITY:
        return False
    if not people(new) <= people(old):
        return False
    new_values, old_values = values(new), values(old)
    if new_values and new_values <= old_values:
        return False  # says again what was said
    if old_values and old_values <= new_values:
        return False
    new_claims, old_claims = claims(new), claims(old)
    for slot in new_claims.keys() & old_claims.keys():
        own = OWN.get(slot, frozenset())
        for n in new_claims[slot]:
            n_values = _values(n, slot)
            for o in old_claims[slot]:
                if people(n.sentence) - own != people(o.sentence) - own:
                    continue  # one is about someone else (my daughter's school, my school)
                o_values = _values(o, slot)
                if n_values and n_values <= o_values | old_values:
                    continue  # nothing new
                if CHANGE.search(n.sentence):
                    return True  # a change word where the user states the fact, and something new
                if slot in SINGLE and n_values - o_values - old_values and o_values - n_values - new_values:
                    return True  # a fact of one value, another value
    return False
