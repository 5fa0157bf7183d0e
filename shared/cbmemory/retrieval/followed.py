"""Read time, beside the current-value stage: a later statement of the user's that names a value they gave for the
matter (``named_again``), or that names a value for the first time after their statement nearest the matter
(``named_anew``); and whether a statement names a value of a kind's shape (``shaped``).

A change back (A, then B, then A again) or a fact told again in passing is often told in words of any kind ("my
first morning back as a resident of Lisbon", "the Porto rain again!"): off every kind of fact by its meaning, it
still names a value the user's own claim of the matter named before. The stage reads those claims already
(``cbmemory.claims``, of the question's kind, among the statements the slot's search found); a claim's values are
the write-time rules' (``cbmemory.values.claim_values``: names, numbers, emails; for diets, commutes and
households their ordinary words), and for a pet, a sport, a home's kind, a job title or a dish the kind's words in
the claim (``kind_words``: "tortoise", "water polo", "canal boat", "head of design", "paella"; read time only, the
write-time links compare ``claim_values`` alone; not on a slot whose values are names only, ``slots.NAMES_ONLY``: a
"flat" named again is no city); a value in lower case that no rule reads, a coffee or a morning's habit, is not
followed.
One full-text search for the values finds the user's statements that name one; of those later than a claim naming
that value and not shown already, each value keeps its newest, and the newest ``VALUED`` of those join what the stage
shows: a place for each of two values, as a value of other talk the rules read as a claim ("My girlfriend, Toby and
I are going camping", a list read as a partner named) may be named often, and more lately than the change back.

A change told by a clue names the new value with no word of the matter ("The canteen at Quillon Labs does a great
curry on Fridays"; a staff pass or a lanyard with the employer's name is a claim of it): the stage's searches read it, but it is off the slot by its meaning. It is often the first of
the user's statements near the matter to name that value, after the statement that ranks nearest the matter (most
often the old claim): of the stage's statements not shown, the newest ``ANEW`` later than the best-ranked one that
name a value (``values.values``, and the kind's words: ``kind_words``) no earlier statement of the stage's names, and
that the slot head gives the kind at least ``ANEW_FLOOR``, join what it shows (``named_anew``). A change told as a
claim may rank under everyday talk of the matter ("Got my Quillon Labs lanyard today" under "trying to find a balance
between work and other activities") and come before that talk's best-ranked line: the newest ``CLAIM_ANEW`` claims of
the kind that name a value no claim before them named, after one that named a value, join it too (``claimed_anew``;
of a kind one holds several of, a pet or a sport, only with a change word, as the write-time links read them).

An email address, a phone number, a school's, a city's (``places.is_city``: GeoNames' list) or a company's name is of
its kind by its shape (``shaped``): a change of one names one however it is told ("Anything for me should go to ...
from now", "The neighbours here in Gdansk brought round a cake", "Got my Quillon Labs lanyard"), and the value's own
words may pull the statement's meaning anywhere; the stage puts such a statement on the slot.

A claim of the kind in a long memory may lie past what the stage's vector searches read (their vectors also hold the
date and the turn answered; "I'm seeing someone new, Tobias" among 3,000 of the user's turns): a full-text search
for the phrases of the kind's claim rule (``claims.rule_phrases``: "on tuesdays", "moved to"; a rule of more than
``CLAIM_PHRASES`` phrases by their words, ``claims.rule_words``) reads ``CLAIM_DEPTH`` records, and the first
``CLAIM_EMBEDDED`` of them that are the user's own claims of the kind and that the stage has not found join its
statements (``claimed_by_words``), to be ranked with them.

Cost, for a question the stage answers whose statements claim a value: the values of those claims (the stage passes
only the statements that claim the kind, which it has read already), one full-text search of ``VALUED_DEPTH`` records
and the reading of what those state (both cached, as the stage's own statements are). ``named_anew`` and
``claimed_anew`` read the values of the stage's statements (cached by text) and no record; ``claimed_by_words``, for
every question the stage answers of a kind the rules know, one full-text search of ``CLAIM_DEPTH`` records and the
rules on what those state (cached by the stage)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from itertools import islice

import numpy as np

from ..claims import CHANGE, SINGLE, claims, rule_phrases, rule_words
from ..models import MemoryRecord, SearchFilters, conversation_order
from ..places import is_city
from ..store.base import MemoryStore
from ..store.signals import Signal
from ..values import KIND_ENDS, KIND_WORDS, PHONE_DIGITS, claim_values, values
from .statements import CACHED_CHARS  # a longer statement's values are read again

# Set before any run (experiments/knowledge_updates/README.md, "A value the user gave for the matter, named again";
# VALUED 1 -> 2, one place a value: "A value named again: a place for each of two values"; test once: x1 and x10 as
# they were, fresh x10 118 / 17 -> 119 / 16 of 154):
VALUED = 2  # places, each for a different value's newest naming
VALUED_DEPTH = 64  # records the values' full-text search reads (a value is a rare word: its statements are few)
# Set before any run (experiments/knowledge_updates/README.md, "A name the matter's best statement gave, named again"):
BEST_VALUED = 1  # places for the newest naming of a name the statement ranked nearest the matter gave
# Set before any run (experiments/knowledge_updates/README.md, "The user's claims of the kind reached by their own
# words"; test once: x1 as it was, x10 newest shown / stale only 125 / 8 -> 125 / 9 of 154, train, dev and fresh x10
# +1 to +2 newest shown):
CLAIM_DEPTH = 200  # records the full-text search for the claim rule's phrases (or words) reads
CLAIM_EMBEDDED = 50  # of those, the user's own claims of the kind not found already that join the stage's statements
# Set before any run (experiments/knowledge_updates/README.md, "A company's or a school's name reached by its words: a
# shape search"), as the claim search's:
SHAPE_DEPTH = 200  # records the full-text search for the words of a slot's shape reads (``shaped_by_words``)
SHAPE_EMBEDDED = 50  # of those, the user's own statements naming a value of the shape that join the stage's
# Couchbase Search refuses a request of more than 1,024 clauses by default (bleveMaxClauseCount), and a phrase asks
# for three (one a field, and their disjunction); set before any run:
CLAIM_PHRASES = 128  # a kind's rule of more phrases than this is searched by its words
# Chosen by leave-one-conversation-out on the train and dev phrasings, x1 and x10, from 0, 1 and 2 (8 folds of 8;
# experiments/knowledge_updates/README.md, "A claim that names a value no earlier claim named gets a place, of a
# kind that holds several values only with a change word"):
CLAIM_ANEW = 1  # places for the newest claims of the kind naming a value no claim before them named
# Chosen by leave-one-conversation-out on the train and dev phrasings, x1 and x10 (experiments/knowledge_updates/anew/
# anew_cv.py; 8 folds of 8): off or 1-2 places x a head floor of 0, 0.05 or 0.1.
ANEW = 2  # places for the newest statements naming a value first ...
ANEW_FLOOR = 0.05  # ... that the slot head gives the slot's kind at least this


def kind_words(said: str, kind: str | None) -> frozenset[str]:
    """The words of ``kind`` that ``said`` names as values (``values.KIND_WORDS``: an animal, a sport, a job title,
    a dish), lower case."""
    rule = KIND_WORDS.get(kind) if kind is not None else None
    end = KIND_ENDS.get(kind) if kind is not None else None
    if rule is None or (end is not None and not end.search(said)):
        return frozenset()
    return frozenset(m.group(1).lower() for m in rule.finditer(said))


def _read_values(said: str, kind: str, words: bool = True) -> frozenset[str]:
    return frozenset(v for c in claims(said, kind).get(kind, ())
                     for v in claim_values(c, kind) | kind_words(c.span, kind if words else None))


_cached_values = lru_cache(maxsize=4096)(_read_values)


_cached_named = lru_cache(maxsize=8192)(values)


def named(said: str) -> frozenset[str]:
    """The values a statement names (``values.values``; cached by text, as the stage's other readings are)."""
    return _cached_named(said) if len(said) <= CACHED_CHARS else values(said)


_PHONE = re.compile(r"[\d\s]+")  # a number's value as ``values`` reads it, with no comma, colon or point
# a school's name as ``values`` reads it (lower case, no closing "'s"): a name and a word that says what it is
# ("Hillcrest Primary", "Elm Park Academy", "Leith High"; not "High" alone) or a saint's ("St Brigid's")
_SCHOOL_ENDS = ("primary", "academy", "elementary", "school", "college", "high", "grammar", "montessori", "nursery",
                "kindergarten", "prep")
_SCHOOL = re.compile(r"[\w'’.-] (?:" + "|".join(_SCHOOL_ENDS) + r")$|^st\.? [\w'’-]+$")

# a company's name as ``values`` reads it: a name and a word that says it is a company or an organisation ("Quillon
# Labs", "Fenwick Analytics", "Dundee Credit Union"; not "Labs" alone)
_COMPANY_ENDS = ("labs?", "inc", "ltd", "llc", "plc", "gmbh", "co", "corp", "corporation", "company", "group",
                 "holdings", "industries", "enterprises", "partners", "associates", "ventures", "bank", "credit union",
                 "insurance", "financial", "finance", "capital", "investments", "analytics", "robotics", "systems",
                 "software", "technologies", "technology", "tech", "digital", "networks", "telecom", "dynamics",
                 "solutions", "consulting", "consultants", "services", "agency", "media", "publishing", "games",
                 "entertainment", "studios?", "logistics", "transit", "motors", "airlines", "airways", "energy",
                 "pharma", "pharmaceuticals", "health", "healthcare", "dental", "clinic", "hospital", "pharmacy",
                 "foods", "bakery", "brewery", "hotels", "retail", "properties", "construction", "engineering",
                 "manufacturing", "university", "institute", "foundation", "trust", "council")
_COMPANY = re.compile(r"[\w'’.&-] (?:" + "|".join(_COMPANY_ENDS) + ")$")

# the words a full-text search for a value of the slot's shape asks for (``shaped_by_words``): the end words of a
# company's or a school's name ("st" for a saint's)
SHAPE_WORDS = {"employer": " ".join(f"{w[:-2]} {w[:-1]}" if w.endswith("s?") else w for w in _COMPANY_ENDS),
               "child_school": " ".join((*_SCHOOL_ENDS, "st"))}

# the stage's slots whose values have a shape, and whether a value (as ``values`` reads it) has it
_SHAPES: dict[str, Callable[[str], bool]] = {
    "email": lambda v: "@" in v,
    "phone": lambda v: _PHONE.fullmatch(v) is not None and sum(c.isdigit() for c in v) >= PHONE_DIGITS,
    "child_school": lambda v: _SCHOOL.search(v) is not None,
    "home_city": is_city,
    "employer": lambda v: _COMPANY.search(v) is not None,
}


def shaped(said: str, slot: str | None) -> bool:
    """Whether ``said`` names a value whose shape is of the stage's ``slot`` (``_SHAPES``): an email address for
    ``email``, a number of at least ``PHONE_DIGITS`` digits for ``phone``, a school's name for ``child_school``, a
    city's name (``places.is_city``) for ``home_city``, a company's name for ``employer`` (``named``). However it is
    told, a change of one names one, and the value's own words may pull its meaning anywhere ("quiet.harbour@proton.me",
    "Her first week at St Brigid's went fine, new uniform and all", "The neighbours here in Gdansk brought round a
    cake")."""
    shape = _SHAPES.get(slot) if slot is not None else None
    return shape is not None and any(shape(v) for v in named(said))


def claimed_values(said: str, kind: str, words: bool = True) -> frozenset[str]:
    """The values (lower case) that a statement's claims of ``kind`` name (``claims``, ``claim_values``, and, with
    ``words``, the kind's words in the claim's span: ``kind_words``)."""
    return _cached_values(said, kind, words) if len(said) <= CACHED_CHARS else _read_values(said, kind, words)


def names_value(said: str, value: str) -> bool:
    """Whether ``said`` names ``value`` (lower case) as a whole sequence of words, in any case, or as a name the
    values' reader reads in it (``named``: "low-FODMAP" names "fodmap", as the claim it came from was read)."""
    return re.search(rf"(?<![\w@.+-]){re.escape(value)}(?![\w@-])", said, re.I) is not None or value in named(said)


def named_again(store: MemoryStore, user_id: str, statements: Sequence[tuple[MemoryRecord, str]],
                values_of: Callable[[str], frozenset[str]], shown: Collection[str], read: Callable[[MemoryRecord], str],
                filters: SearchFilters, now: datetime | None, *, places: int | None = None) -> list[MemoryRecord]:
    """Of the user's statements that name a value one of ``statements`` (a record and what it states) gave before them
    (``values_of``: the values a statement gives; its claims' values, ``claimed_values``, or the names it gives,
    ``named``), and whose record id is not in ``shown``, each value's newest, the newest ``places`` (``VALUED`` unless
    given) of those (a statement that names two values counts once), in conversation order; ``read``: what a found
    record states for the stage ("" for none of the user's own statements)."""
    first: dict[str, tuple[datetime, str, int]] = {}  # each value's earliest claim
    for r, said in statements:
        for v in values_of(said):
            first[v] = min(first.get(v, conversation_order(r)), conversation_order(r))
    if not first:
        return []
    found = store.search_candidates(Signal.BM25, user_id, " ".join(sorted(first)), VALUED_DEPTH,
                                    replace(filters, kinds=("turn",)), now)
    newest: dict[str, MemoryRecord] = {}  # each value's newest naming later than its claim
    for rec in store.read_candidates(found, list(range(len(found)))):
        if rec is None or rec.record_id in shown or not (said := read(rec)):
            continue
        at = conversation_order(rec)
        for v, when in first.items():
            if at > when and names_value(said, v) and (v not in newest or at > conversation_order(newest[v])):
                newest[v] = rec
    picked = {r.record_id: r for r in newest.values()}.values()  # a statement that names two values counts once
    kept = VALUED if places is None else places  # read at the call: the constant, not its value at import
    return sorted(picked, key=conversation_order)[-kept:] if kept > 0 else []


def best_named_again(store: MemoryStore, user_id: str, statements: Sequence[tuple[MemoryRecord, str]],
                     ranks: Sequence[float | None], shown: Collection[str], read: Callable[[MemoryRecord], str],
                     filters: SearchFilters, now: datetime | None) -> list[MemoryRecord]:
    """``named_again`` for the names (``named``) that the statement ranked nearest the matter among ``statements``
    gave (``ranks``: each one's rank toward the slot, ``None`` off it), ``BEST_VALUED`` places: a change back told
    quietly ("Callum burnt the toast again") names the partner a plain statement named, where no claim read a value."""
    best = best_ranked(statements, ranks)
    if best is None or BEST_VALUED <= 0:
        return []
    return named_again(store, user_id, [statements[best]], named, shown, read, filters, now, places=BEST_VALUED)


def best_ranked(pool: Sequence[tuple[MemoryRecord, str]], scores: Sequence[float | None]) -> int | None:
    """The index in ``pool`` of the statement ranked nearest the matter (``scores``, ``None`` off it; of equal ranks,
    the later in the conversation), or ``None`` when none is on it."""
    ranked = [(s, conversation_order(r), i) for i, ((r, _), s) in enumerate(zip(pool, scores, strict=True))
              if s is not None]
    return max(ranked)[2] if ranked else None


def claim_query(kind: str) -> tuple[Signal, str | list[str]]:
    """The claim search's signal and query for ``kind``: its rule's phrases (``claims.rule_phrases``), or for a rule of
    more than ``CLAIM_PHRASES``, their words (``claims.rule_words``)."""
    rule = rule_phrases(kind)
    return (Signal.ENTITY, list(rule)) if len(rule) <= CLAIM_PHRASES else (Signal.BM25, rule_words(kind))


def claimed_by_words(store: MemoryStore, user_id: str, kind: str, found: Collection[str],
                     read: Callable[[MemoryRecord], str], filters: SearchFilters,
                     now: datetime | None) -> list[tuple[MemoryRecord, str]]:
    """Of the ``CLAIM_DEPTH`` records a full-text search for the phrases of ``kind``'s claim rule finds
    (``claims.rule_phrases``; for a rule of more than ``CLAIM_PHRASES``, their words), the first ``CLAIM_EMBEDDED``
    whose record id is not in ``found`` and that ``read`` gives a text ("" for a record that is not the user's own
    claim of the kind), each with that text, best first."""
    signal, query = claim_query(kind)
    return _by_words(store, user_id, signal, query, CLAIM_DEPTH, CLAIM_EMBEDDED, found, read, filters, now)


def shaped_by_words(store: MemoryStore, user_id: str, slot: str, found: Collection[str],
                    read: Callable[[MemoryRecord], str], filters: SearchFilters,
                    now: datetime | None) -> list[tuple[MemoryRecord, str]]:
    """For a slot whose shape is told by words (``SHAPE_WORDS``: a company's, a school's name), of the ``SHAPE_DEPTH``
    records a full-text search for those words finds, the first ``SHAPE_EMBEDDED`` whose record id is not in ``found``
    and that ``read`` gives a text (the user's own statement) that names a value of the slot's shape (``shaped``), each
    with that text, best first; none for another slot. Such a name is rare in talk, and a change told in passing names
    one wherever it lies in a long memory."""
    query = SHAPE_WORDS.get(slot)
    if query is None:
        return []

    def of_shape(r: MemoryRecord) -> str:
        said = read(r)
        return said if said and shaped(said, slot) else ""
    return _by_words(store, user_id, Signal.BM25, query, SHAPE_DEPTH, SHAPE_EMBEDDED, found, of_shape, filters, now)


def _by_words(store: MemoryStore, user_id: str, signal: Signal, query: str | list[str], depth: int, embedded: int,
              found: Collection[str], read: Callable[[MemoryRecord], str], filters: SearchFilters,
              now: datetime | None) -> list[tuple[MemoryRecord, str]]:
    """Of the ``depth`` turns a full-text search (``signal``, ``query``) finds, the first ``embedded`` not in ``found``
    that ``read`` gives a text, each with it."""
    if embedded <= 0 or depth <= 0:
        return []
    hits = store.search_candidates(signal, user_id, query, depth, replace(filters, kinds=("turn",)), now)
    unseen = [i for i, rid in enumerate(hits.ids.tolist()) if rid not in found]  # only those not read already
    records = (r for r in store.read_candidates(hits, unseen) if r is not None)
    return list(islice(((r, said) for r in records if (said := read(r))), embedded))


def claimed_anew(claimed: Sequence[tuple[MemoryRecord, str]], kind: str, shown: Collection[str],
                 words: bool = True) -> list[MemoryRecord]:
    """Of ``claimed`` (the stage's statements that claim ``kind``: a record and what it states), the newest
    ``CLAIM_ANEW`` not in ``shown`` that name a value (``claimed_values``; with ``words``, the kind's words) no claim
    before them named, after one that named a value (a change told as a claim; the user's first claim never is), in
    conversation order. Of a kind that holds several values (not ``claims.SINGLE``: pets, sports, trips), only a claim
    with a change word (``CHANGE``) is a change, as for the write-time links: "We have a gecko" adds a pet."""
    seen: set[str] = set()
    out = []
    several = kind not in SINGLE
    for r, said in sorted(claimed, key=lambda rs: conversation_order(rs[0])):
        given = claimed_values(said, kind, words)
        if seen and given - seen and r.record_id not in shown and (not several or CHANGE.search(said)):
            out.append(r)
        seen |= given
    return out[-CLAIM_ANEW:] if CLAIM_ANEW > 0 else []


def named_anew(pool: Sequence[tuple[MemoryRecord, str]], learned: np.ndarray, scores: Sequence[float | None],
               shown: Collection[str], kind: str | None = None) -> list[MemoryRecord]:
    """Of ``pool`` (the stage's statements: a record and what it states; ``learned``: the slot head's reading of each,
    ``scores``: how near the slot each ranks, ``None`` off it), the newest ``ANEW`` not in ``shown`` that are later than
    the best-ranked statement (of equal ranks, the later), that the head gives the kind at least ``ANEW_FLOOR`` and that
    name a value (``named``, and ``kind``'s words: ``kind_words``) no earlier statement of ``pool`` names, in
    conversation order."""
    first = best_ranked(pool, scores)
    if ANEW <= 0 or first is None:
        return []
    order = [conversation_order(r) for r, _ in pool]
    best = order[first]
    seen: set[str] = set()
    out = []
    for i in sorted(range(len(pool)), key=order.__getitem__):
        r, said = pool[i]
        values_named = named(said) | kind_words(said, kind)
        if order[i] > best and r.record_id not in shown and learned[i] >= ANEW_FLOOR and values_named - seen:
            out.append(r)
        seen |= values_named
    return out[-ANEW:]


__all__ = ["ANEW", "ANEW_FLOOR", "BEST_VALUED", "CLAIM_ANEW", "CLAIM_DEPTH", "CLAIM_EMBEDDED", "CLAIM_PHRASES",
           "VALUED", "VALUED_DEPTH", "best_named_again", "best_ranked", "claim_query", "claimed_anew",
           "claimed_by_words", "claimed_values", "kind_words", "named", "named_again", "named_anew", "names_value",
           "shaped"]
