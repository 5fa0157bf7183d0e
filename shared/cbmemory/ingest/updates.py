"""Which of a user's earlier statements a new one changes (``supersedes``), from cheap evidence: no LLM, no
store (the caller finds the candidates and their similarities; ``cbmemory.memory.updates`` does).

A new user turn supersedes an earlier user turn of the same user when all of these hold:

- both are statements (not questions), the new one names no relative or friend the earlier one does not
  (``people``; but those it names as the user's company, who share the change: "my partner and I moved", "I moved to
  Dundee with my sister", ``COMPANY``), and their embeddings are not opposite (``SIMILARITY``);
- both make a *claim* of the same kind of fact (``cbmemory.claims``): a sentence where one of the ``SLOTS`` rules
  (where one lives, works, a phone number, a school, a partner ...) matches and the clause around the match
  is the user's own plain statement: a first-person word (I, my, we ...), no third-person or second-person
  subject ("she moved to Porto", "glad you moved to Porto"), no hedge or wish ("I'd love to live in
  Lisbon", "if I moved"), no negation, nothing about the future ("I'm going to move"; trips excepted); the
  two claims name the same people ("my daughter goes to ..." is not "my friend's daughter ...") and are told for
  the same days as a habit, or both for none (``DAYS``: "on Tuesdays", "every Monday", weekdays, days named
  elsewhere "on those days"; not for a schedule, whose value is its day);
- the new claim says something new (its values are not all in the earlier turn) and either has a change
  word (moved, switched, instead, no longer, lost my job ...), or the slot holds one value at a time
  (``SINGLE``: a home, an employer, a phone number ...) and each claim names a value the other turn lacks
  (``values``: names, numbers, emails; for diets, commutes and households their ordinary words). Slots
  that can hold several values at once (pets, trips, languages, sports, favourites) need the change word.
  A name that opens a sentence is read with its first word and without it (``values.values``: the word may be
  capitalised only by its place), and a link needs both readings to see a change: "Quillon Labs is still my
  employer" restates "I work at Quillon Labs". One value written two ways is one (``values.value_form``): a number
  by its digits ("0752-119-3387", "07521193387"; a phone number by its last nine, "+44 7521 193387"), a time
  without ":00", a name without its dots ("Dr Haddad") or cut short to the words it opens with ("Quillon").
- the new claim tells what holds now, not a past that no longer holds (``claims.in_the_past``: "I lived in
  Aberdeen before I came here", "My old number was ...", "back when I worked for ..."), which would mark the fact
  that holds now as changed, nor a stay told for a while with no change or beginning (``WHILE``: "This week I'm
  based in Aberdeen for the audit", "for the holidays"), nor a habit's or a standing choice's one day (``ONE_DAY``,
  ``HABITS``: "I woke up at 9 today", "I saw Dr Patel today"; "my first check-up with Dr Patel" is a beginning), nor
  a plan told in the present (``PLANNED`` with ``TO_COME``: "I am moving to Aberdeen in March"), nor a thing's move
  or a place one goes to for a home ("My gym moved to Leith", ``MOVED``; "we went to the new place in Dundee",
  ``VISITED``), nor a word of the kind used of something else ("my running partner", ``ACTIVITY_PARTNER``; "my new
  car insurance", ``CAR_COMPOUND``; a phone claim that tells no number, "My new phone is a Pixel 8",
  ``NUMBER_TOLD``; an email claim that tells no address, "My email to Fenwick bounced", ``EMAIL_TOLD``; a doctor one is
  referred to, ``REFERRED``), nor someone else's thing ("to see his new house", ``THEIRS``): these live in
  ``cbmemory.ingest.look_alikes`` (``holds_now``: what only looks like a change); and
  a phone number or an email told with a qualifier ("my work number", ``QUALIFIER``) is one of several: it changes
  only one told with the same qualifier.

Precision first: a missed link leaves today's behaviour (both statements can be shown, unmarked); a false one
marks a line that still holds as changed. Measured with ``cbmemory eval locomo-updates --family train
--link-updates --sample-links 60`` (``experiments/knowledge_updates/README.md``): on plain LoCoMo dev (x1,
4,805 turns) 1 link, a real change by hand-labelling (the rules before these: 8 links, none real); on the
knowledge-update benchmark's train phrasings 51 of 154 changes linked (0.33; before: 54, 0.35; 55 on 5 December,
the rules as they are) and 0 of 30 someone else's similar facts. On a user's talk with an assistant (the
LongMemEval sample's haystack, 550 turns, ``experiments/knowledge_updates/lme_links.py``) no link; 1 before a
habit told "on those days" was read as told for some days (not a change by hand-labelling: "I've been waking up at
7:30 lately" after "... on Tuesdays and Thursdays ..., wake up at 6:45 AM on those days"), and 17, none a change,
before the claim words were narrowed there (a purchase is a car only by a car word, "game-changer" is no change
word, a mention of a morning no habit, a wake-up claim names a time, a worry is a hedge) and claims told for other
days (``DAYS``) were kept apart. Most missed changes are told without a first-person word ("the new flat in
Valencia made it worth it") or in words no slot rule knows (of 69 direct changes in everyday words of our own,
``experiments/knowledge_updates/probes.py held``, 58 are claimed).
The slot rules and words were written looking at the train phrasings and at the links earlier rules made on plain
LoCoMo dev (both speakers); ``SIMILARITY`` was chosen leaving one conversation out
(``experiments/knowledge_updates/pairs.py --grid``).
"""

from __future__ import annotations

import re

from ..claims import CHANGE, SINGLE, Claim, claims
from ..text import PARTNER_WORDS, ROLE_WORDS, ROLES_OF, people, stated
from ..values import claim_values, name_openings, opens_with_name, value_form, values
from .look_alikes import holds_now

SIMILARITY = 0.1  # the least cosine of two turns' embeddings for a link (leave-one-conversation-out, pairs.py)
MAX_CANDIDATES = 8  # earlier claims considered per new claim (the nearest by embedding)
MAX_CLAIMS = 8  # claims of one kind compared per message (a message holds a few; a pasted text may hold thousands)

# relatives a slot's own claims name (my partner): not someone else
OWN = {**ROLES_OF, "partner": PARTNER_WORDS}  # and the roles that act on the user's own fact (``text.ROLES_OF``)
# the days a claim is told for, as a habit ("on Tuesdays", "every Monday", "weekdays"; not a date: "on Saturday I
# moved"), or for days named elsewhere ("on those days", "on such mornings"): two claims told for different days
# are not one matter ("I wake at 6:45 on Tuesdays" and "I've been waking at 7:30 lately"); a schedule's value is
# its day, so it is not read there
_DAY = r"(mon|tues|wednes|thurs|fri|satur|sun)"
DAYS = re.compile(rf"\b(?:{_DAY}days|(?:every|each) {_DAY}day|(week|work)days|(?:every|each) (weekend)|(weekend)s"
                  r"|on (?:those|such|the same) (days|mornings|evenings|nights))\b", re.I)


def _days(span: str) -> frozenset[str]:
    """The days a claim's span is told for as a habit (``DAYS``: a workday is a weekday; "on those days": days told
    elsewhere), lower case."""
    out = set()
    for plural, every, weekday, _, _, elsewhere in DAYS.findall(span):
        day = plural or every
        out.add(day.lower() if day else "week" if weekday else "those" if elsewhere else "weekend")
    return frozenset(out)


# a phone number or an email told with a qualifier ("my work number", "my personal email") is one of several: two
# claims are one matter only with the same qualifiers, or both with none
QUALIFIER = re.compile(r"\b(work|home|personal|private|office|business|school|landline)\s+(?:mobile\s+|cell\s+|phone\s+)?"
                       r"(?:number|phone|line|mobile|e-?mail|inbox|address)\b", re.I)
QUALIFIED = frozenset({"phone", "email"})


def _qualifiers(span: str, slot: str) -> frozenset[str]:
    """The qualifiers a phone number's or an email's claim is told with (``QUALIFIER``), lower case."""
    return frozenset(q.lower() for q in QUALIFIER.findall(span)) if slot in QUALIFIED else frozenset()


# the people a statement names as the user's company ("my partner and I moved", "me and my boyfriend", "I moved to
# Dundee with my sister", a list: "with my kids and my partner"): they share the user's change, so they are no one
# else the statement is about
_WHO = r"(?:my|our)\s+(?:(?!and\b)[\w'’-]+\s+)?(?!and\b)[\w'’-]+"  # "my (new) partner", not "my kids and"
_WHOS = rf"{_WHO}(?:\s*(?:,\s*(?:and\s+)?|\s+and\s+){_WHO}){{0,3}}"  # a list: "my wife, my son", "my kids and my partner"
COMPANY = re.compile(rf"\b({_WHOS})\s*,?\s+and\s+(?:I|me)\b|\b(?:I|me)\s+and\s+({_WHOS})|\b(?:I|we)\b[^,;.!?]{{0,80}}?\bwith\s+"
                     rf"({_WHOS})", re.I)


def _people(text: str) -> frozenset[str]:
    """The people ``text`` names (``people``) but those it names as the user's company (``COMPANY``)."""
    named = people(text)
    if not named:
        return named
    return named - {p for m in COMPANY.finditer(text) for g in m.groups() if g for p in people(g)}


_DASHED = re.compile(r"(?<=\d)[-–](?=\d)")  # a dash between digits: a number's groups (``changes``)


def changes(new: str, old: str, similarity: float) -> bool:
    """Whether the user's statement ``new`` changes the user's earlier statement ``old`` (both user turns of
    one user; ``similarity``: the cosine of their embeddings). The rules are the module docstring's, on what
    each states (``text.stated``: a turn's questions left out)."""
    new, old = _DASHED.sub(" ", stated(new)), _DASHED.sub(" ", stated(old))  # "0752-119-3387": one number
    if not (new and old) or similarity < SIMILARITY:
        return False
    if not _people(new) - ROLE_WORDS <= people(old):  # roles: by each claim's kind, below
        return False
    # a name that opens a sentence is read both ways (``values.values``): "Quillon Labs is still my employer" restates
    # "I work at Quillon Labs" though, without its first word, it names "labs": both readings must see a change
    read = (claims(new), claims(old))  # the same for both readings
    return _changed(new, old, read, False) and (
        not (opens_with_name(new) or opens_with_name(old)) or _changed(new, old, read, True))


def _changed(new: str, old: str, read: tuple[dict[str, list[Claim]], dict[str, list[Claim]]], first_word: bool) -> bool:
    """``changes``' test of two statements' values and claims (``read``: their ``claims``; ``first_word``: the
    reading of ``values.values``)."""
    new_values, old_values = values(new, first_word), values(old, first_word)
    if new_values and not _other(new_values, old_values):
        return False  # says again what was said
    if old_values and not _other(old_values, new_values, openings=False):
        return False
    new_claims, old_claims = read
    for slot in new_claims.keys() & old_claims.keys():
        own = OWN.get(slot, frozenset())
        # each claim's evidence is read once; a message's first MAX_CLAIMS claims of a kind are compared
        olds = [(people(o.sentence) - own, _days(o.span), _qualifiers(o.span, slot), claim_values(o, slot, first_word))
                for o in old_claims[slot][:MAX_CLAIMS]]
        for n in new_claims[slot][:MAX_CLAIMS]:
            if not holds_now(n, slot):
                continue
            n_people, n_days, n_values = _people(n.sentence) - own, _days(n.span), claim_values(n, slot, first_word)
            n_qualifiers = _qualifiers(n.span, slot)
            changed = CHANGE.search(n.sentence) is not None
            for o_people, o_days, o_qualifiers, o_values in olds:
                if n_people != o_people:
                    continue  # one is about someone else (my daughter's school, my school)
                if slot != "schedule" and n_days != o_days:
                    continue  # told for other days: another matter
                if n_qualifiers != o_qualifiers:
                    continue  # another of one's numbers or emails (a work number, a home number)
                new_here = _other(n_values, o_values | old_values)
                if n_values and not new_here:
                    continue  # nothing new
                if changed:
                    return True  # a change word where the user states the fact, and something new
                if slot in SINGLE and new_here and _other(o_values, n_values | new_values, openings=False):
                    return True  # a fact of one value, another value
    return False


def _other(these: frozenset[str], those: frozenset[str], openings: bool = True) -> frozenset[str]:
    """The values of ``these`` that are none of ``those``: one value written two ways is one (``values.value_form``:
    "07521193387" is "0752 119 3387", "7:00" is "7"), and, with ``openings``, a name is the longer one it opens word
    for word ("Quillon" is "Quillon Labs", either way round): a new value cut short says the old one again, but the
    old one's short form in a new turn ("I got a Kia Niro, the Skoda is gone") is no restatement of it."""
    forms = {value_form(v) for v in those}
    if not openings:
        return frozenset(v for v in these if value_form(v) not in forms)
    opened = {o for f in forms for o in name_openings(f)}
    return frozenset(v for v in these if (f := value_form(v)) not in forms and f not in opened
                     and not any(o in forms for o in name_openings(f)))
