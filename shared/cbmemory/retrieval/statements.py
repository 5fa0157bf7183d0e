"""Whose fact a user's turn states, for the current-value stage (``current_value``): what the turn states
(``text.stated``: its questions left out) and the people it names (``text.people``; someone named as the object of
an act, "Since the move I see my parents on weekends", names no one: ``_object``); a statement that names no one but
the people asked about or the matter's own is the user's (but one that opens with "he" or "she" and says nothing
in the first person: "She just moved to Glasgow!"), and of one that names another only its own clauses count,
those that name no one else (someone named as the user's company, "I moved to Leeds with my sister", is no one
else), have no third- or second-person word, are in the first person and claim the kind of fact asked about.
The same user turns come back in each question's search: the readings are cached per text."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..claims import FIRST_PERSON as ANY_FIRST_PERSON
from ..claims import THIRD_PERSON, claims
from ..models import Hit, MemoryRecord
from ..text import DESCRIBED, PEOPLE, clauses, stated

# The caches here, in ``current_value`` and in ``followed`` hold their texts: only a chat turn's length is kept
# (LoCoMo's longest is 440 characters), so a process that reads pasted documents does not hold thousands of them
# (3,000 of 60 KB held 173 MB); a longer text is read again each time, in time linear in its length.
CACHED_CHARS = 2048

# someone else's, as an object or owner ("I helped carry the boxes to his new flat"): with ``claims.THIRD_PERSON``
THEIRS = re.compile(r"\b(?:his|him|her|hers|their|theirs|them)\b", re.I)
# someone named as the owner of a household or a home ("my neighbour's family is six people now"): on a matter of any
# person (the household's), theirs, not of the matter (``own``)
HOUSEHOLD_OF = re.compile(r"['’]s\s+(?:(?:whole|new|own|big|little)\s+)?(?:family|household|house|home|flat|apartment|"
                          r"place)\b", re.I)
# a statement about someone just named ("She just moved to Glasgow!"), with no first-person word (``own``)
HERS = re.compile(r"\W*(?:he|she)(?:['’](?:s|d|ll))?\b", re.I)
# a clause that goes on from the one before it, its "which" split off ("The vegetarian menu, which is how I eat now")
RELATIVE = re.compile(r"(?:is|was|are|were)\b", re.I)
# a person named as company ("I moved to Leeds with my sister"): a "with" and at most three words before the name
# (read in the COMPANY_CHARS before it, so a pasted text of many names is read in linear time), in a clause whose
# subject is the user (``WE``; "the old one lives with my aunt" is not)
COMPANY_WORDS = 3
COMPANY_CHARS = 100
WE = re.compile(r"\b(?:I|we)\b", re.I)
# a person named as the object of an act ("Ingrid visited my parents on Sunday"): after a verb, not one of these words
NOT_VERBS = frozenset("""a an the and or but nor so yet for to of in on at by from with as into onto about over under
after before since until than then that this these those if when while because though although where whether
my our your his her their its is are was were be been am""".split())
DETERMINERS = frozenset("a an the my our your his her their its this that these those".split())
# ... and followed by the end of the clause or a word of time or place
OBJECT_FOLLOWS = re.compile(r"\s*(?:$|[.,;:!?)]|(?:on|at|in|last|this|yesterday|today|tonight|over)\b)", re.I)
OBJECT_CHARS = 60
_TOKEN = re.compile(r"[\w'’]+|[^\w\s]")  # a word or a mark of punctuation, as ``_object`` reads the words before
# a name said to the person one talks to ("Thanks, Maria!", "Hey Mel, ...", "Wow, Mel!"): a capitalised word right after
# a greeting, thanks or other interjection that opens a sentence, and before the sentence's next mark (``unaddressed``)
GREETING = r"""hi|hey|hello|heya|hiya|morning|evening|thanks|thank you|thx|cheers|yeah|yep|yes|yup|wow|whoa|woah|oh|ooh
|ah|aw+|sure|definitely|absolutely|totally|congrats|congratulations|sorry|bye|goodbye|night|ok|okay|great|cool|awesome
|nice|haha|omg|yay|well|no problem|no worries|of course|take care|see you|see ya|catch you|sounds (?:good|great|nice|fun
|amazing|awesome|lovely|cool)|good luck|good to hear|glad to hear|love you|me too|you too|same here|agreed
|totally agree|you bet|for sure|good night|good morning""".replace("\n", "")
ADDRESSED = re.compile(rf"(?:^|(?<=[.!?]\s))\s*((?i:{GREETING}))(?:,?\s+|\s*,\s*)[A-Z][a-z]+\b(?=\s*(?:[,!.?]|$))")
# ... and, where the name of the person one talks to is known (``addressees``), that name (or a short form of it of at
# least NAME_CHARS letters: "Mel" for Melanie) opening a sentence before a comma ("Maria, what's the deal?") or after
# a comma at a sentence's end ("That means a lot, Maria.")
CALLED = re.compile(r"(?:^|(?<=[.!?]\s))\s*([A-Z][a-z]+),\s+(?=\S)|,\s*([A-Z][a-z]+)\s*(?=[.!?]|$)")
NAME_CHARS = 3


def statement(text: str) -> tuple[str, frozenset[str]]:
    """What a turn's text states (``text.stated``) and the people that names (``text.people``): the same user turns
    come back in each first-person question's search (cached up to ``CACHED_CHARS``)."""
    return _cached_statement(text) if len(text) <= CACHED_CHARS else _read_statement(text)


def _read_statement(text: str) -> tuple[str, frozenset[str]]:
    said = stated(text)
    return said, _people(said)


def _people(said: str) -> frozenset[str]:
    """``text.people`` of ``said`` but those named only as the object of someone's act (``_object``)."""
    return frozenset(m.group(1).lower() for m in PEOPLE.finditer(said) if not _object(said, m))


_cached_statement = lru_cache(maxsize=8192)(_read_statement)


def unaddressed(said: str, addressees: frozenset[str] = frozenset()) -> str:
    """``said`` without the names it addresses (``ADDRESSED``; with the ``addressees``' names known, ``CALLED``): the
    text whose vector the stage ranks on a slot. A name said to the person one talks to is no person of one's life
    ("Thanks, Maria! Working together would be great!" is not about a partner); the claim rules, the values and the
    context read the statement's own words."""
    if len(said) <= CACHED_CHARS:
        return _cached_unaddressed(said, addressees)
    return _read_unaddressed(said, addressees)


def _read_unaddressed(said: str, addressees: frozenset[str]) -> str:
    said = ADDRESSED.sub(r"\1", said)
    if not addressees:
        return said
    known = [n.lower() for n in addressees]

    def called(m: re.Match[str]) -> str:
        word = (m.group(1) or m.group(2)).lower()
        return "" if len(word) >= NAME_CHARS and any(n.startswith(word) for n in known) else m.group(0)
    return CALLED.sub(called, said)


_cached_unaddressed = lru_cache(maxsize=8192)(_read_unaddressed)


def addressees(hits: Iterable[Hit]) -> frozenset[str]:
    """The names of the people the user talks to: ``speaker`` of the records of another role among ``hits`` and their
    windows."""
    return frozenset(r.speaker for h in hits for r in (h.record, *h.context) if r.role != "user" and r.speaker)


# The form of ``kept_texts``: one more each time the texts it gives change, so a store's vectors kept of an earlier
# form are kept again, a few a write (``MemoryStore.turns_to_keep``'s ``form``), instead of missing the embedder's
# cache for good. 2: without a greeting's name ("Thanks, Maria!"), 6 December 2026; 3: a request is no question
# ("Can you help me draft an email to my manager at Fernhill Mutual?": ``text.stated``), 7 December 2026; 4: a question
# after a dash ends the statement before it ("... my new usual - what were we saying?"), 7 December 2026.
KEPT_FORM = 4


def kept_texts(r: MemoryRecord) -> tuple[str, ...]:
    """The texts of a record whose vectors a store that ``keeps_derived`` keeps from the record's write, for the
    embedder's cache (``lookup_vectors``): for the user's own turn, what it states (``text.stated``), which the stage
    embeds for each statement it reads; none for any other record. The statements' clauses are embedded when read
    (``passing.told_in_passing``): kept as well, they took a store's file to twice its size
    (experiments/knowledge_updates). A change of what it gives raises ``KEPT_FORM``."""
    if r.kind != "turn" or r.role != "user":
        return ()
    said = statement(r.text)[0]
    return (unaddressed(said),) if said else ()


def own(r: MemoryRecord, asked: frozenset[str], matter: frozenset[str] | None, kind: str | None) -> str:
    """What the user's own turn ``r`` states (``text.stated``: its questions left out), when it states something
    and names no person but those ``asked`` and those of the ``matter`` (any person: ``None``, but one named as the
    owner of a household or a home, ``owners``: "my neighbour's family is six people now"); of a statement that
    names another, its own clauses that claim ``kind`` (``_read_own_clauses``); else "". A statement that opens with
    "he" or "she" and says nothing in the first person (``HERS``) is someone else's, unless the question asks about
    someone or the kind of fact is a pet."""
    if r.kind != "turn" or r.role != "user":
        return ""
    said, named = statement(r.text)
    if not asked and kind != "pet" and HERS.match(said) and not ANY_FIRST_PERSON.search(said):
        return ""  # "She just moved to Glasgow!": someone else's news (a pet is he or she too)
    if matter is None:  # any person, but the owner of another household or home
        matter = named - owners(said) if named else named
    if not said or named - matter <= asked:
        return said
    return own_clauses(said, asked | matter, kind) if kind is not None else ""


def owners(said: str) -> frozenset[str]:
    """The people ``said`` names as the owner of a household or a home (``HOUSEHOLD_OF``: "my landlady's house")."""
    return frozenset(m.group(1).lower() for m in PEOPLE.finditer(said) if HOUSEHOLD_OF.match(said, m.end(1)))


def own_clauses(said: str, allowed: frozenset[str], kind: str) -> str:
    """``_read_own_clauses``, cached up to ``CACHED_CHARS`` (in a cache of its own: the statements' marks, which every
    question of a matter reads, are not crowded out of theirs)."""
    read = _cached_own_clauses if len(said) <= CACHED_CHARS else _read_own_clauses
    return read(said, allowed, kind)


def _read_own_clauses(said: str, allowed: frozenset[str], kind: str) -> str:
    """The clauses of ``said`` (``text.clauses``) that name no person but those ``allowed`` (someone named as the
    user's company goes along: ``_named``) and have no third- or second-person word (``THIRD_PERSON``, ``THEIRS``:
    "she loves it" after "my cousin moved to Glasgow" is the cousin's), joined, when one of them is in the first
    person, singular or plural (``claims.FIRST_PERSON``): "I got vaccinated for Peru, our trip now, and the nurse
    asked about your sister" states the user's trip; "My cousin moved to Glasgow" states nothing of the user's; and
    only when they claim ``kind`` (``cbmemory.claims``, each clause alone but a relative clause read with the one
    before it: ``_read_together``): any first-person clause of a long memory's many statements that name family or
    friends ("I look at it and remember why I'm doing this", beside "my family is my motivation") would crowd the
    matter's statements out."""
    parts = clauses(said) or [said]  # a statement of one clause is its own (``text.clauses``)
    ok = [_named(c) <= allowed and not THIRD_PERSON.search(c) and not THEIRS.search(c) for c in parts]
    kept = [c for c, yes in zip(parts, ok, strict=True) if yes]
    joined = ", ".join(kept) if any(ANY_FIRST_PERSON.search(c) for c in kept) else ""
    return joined if joined and claims(_read_together(parts, ok), kind) else ""


def _read_together(parts: list[str], ok: list[bool]) -> str:
    """The kept clauses (``ok``) as the claim rules read them: each its own clause, but a relative clause whose
    "which" the split took ("is how I eat now" after "The vegetarian menu") read with the clause before it, when both
    are kept: "The vegetarian menu, which is how I eat now" claims a diet only as a whole."""
    out: list[str] = []
    for i, (c, yes) in enumerate(zip(parts, ok, strict=True)):
        if not yes:
            continue
        if out and i and ok[i - 1] and RELATIVE.match(c):
            out[-1] += " " + c
        else:
            out.append(c)
    return ", ".join(out)


_cached_own_clauses = lru_cache(maxsize=4096)(_read_own_clauses)


def _named(clause: str) -> frozenset[str]:
    """The people ``clause`` names (``text.PEOPLE``) but those named as the user's company ("with my sister") or as
    the object of someone's act ("I visited my parents in Harrogate": ``_object``)."""
    we = WE.search(clause) is not None
    return frozenset(m.group(1).lower() for m in PEOPLE.finditer(clause)
                     if not (we and _company(clause, m.start())) and not _object(clause, m))


def _object(text: str, m: re.Match[str]) -> bool:
    """Whether the person ``m`` (a ``text.PEOPLE`` match in ``text``) is named as the object of an act: right after a
    verb (a lower-case word, not a conjunction or preposition, ``NOT_VERBS``, with a word before it that is not a
    determiner: the act's subject), "my" or "our" between, perhaps with a word that describes the person
    (``text.DESCRIBED``: "my old friends"), or nothing, for kin named by name ("Mum"); not as an owner ("my sister's
    place"), and followed by the end of the clause or a word of time or place (``OBJECT_FOLLOWS``):
    "Ingrid visited my parents on Sunday", "I visited my parents in Leeds"; not "I heard my cousin moved to Glasgow",
    "I helped my cousin with her move", "My little sister, Elin, lives in Porto now". Reads the ``OBJECT_CHARS``
    before the name (a pasted text of many names is read in linear time)."""
    if m.group(0).lower().endswith(("'s", "’s")):
        return False
    before = text[max(0, m.start() - OBJECT_CHARS):m.start()]
    words = _TOKEN.findall(before)
    if len(words) > 1 and words[-1].lower() in DESCRIBED and words[-2].lower() in ("my", "our"):
        words = words[:-1]  # "my old friends": the word that describes them, stepped over
    if words and words[-1].lower() in ("my", "our"):
        words = words[:-1]
    elif not m.group(0)[0].isupper():  # "my parents", or a name of kin as a name: "Mum"; not "your new friend"
        return False
    if len(words) < 2 or not words[-1].isalpha() or not words[-1].islower() or words[-1] in NOT_VERBS \
            or not re.fullmatch(r"[\w'’]+", words[-2]) or words[-2].lower() in DETERMINERS:
        return False  # no verb with a subject before it ("my little sister", "the new friend")
    return OBJECT_FOLLOWS.match(text, m.end()) is not None


def _company(clause: str, at: int) -> bool:
    """Whether the name at ``at`` in ``clause`` follows "with" and at most ``COMPANY_WORDS`` words."""
    start = max(0, at - COMPANY_CHARS)
    words = clause[start:at].split()
    if start > 0 and words and not clause[start - 1].isspace():
        words = words[1:]  # a word the window cut
    return "with" in (w.lower() for w in words[-COMPANY_WORDS - 1:])
