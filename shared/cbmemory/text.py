"""Tokenising and stopwords shared by the full-text query builders and the BM25 re-rank; the lone-surrogate
pattern shared by the input checks; the content hash that keys records' index texts and the embedding cache; the
people a text names and what a chat turn states (its questions left out), shared by the write-time link rules and
the read-time current-value stage."""

from __future__ import annotations

import hashlib
import re
import threading
import unicodedata
from collections.abc import Mapping
from typing import Any

_WORD = re.compile(r"\w+", re.UNICODE)
_TOKEN = re.compile(r"[^\W_]+")
_local = threading.local()
# A lone (unpaired) surrogate: a str that is not a sequence of Unicode scalar values and cannot be encoded
# to UTF-8, so it can be neither stored nor searched.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

STOPWORDS: frozenset[str] = frozenset(
    """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most my
    myself no nor not now of off on once only or other our ours ourselves out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to too
    under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t d ll m re ve""".split()
)


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, underscore; any script)."""
    return [w.lower() for w in _WORD.findall(text)]


def content_words(text: str) -> list[str]:
    """Words minus stopwords, first occurrence order, no repeats."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOPWORDS:
            seen.setdefault(w, None)
    return list(seen)


def stemmer() -> Any:
    """This thread's Porter stemmer (PyStemmer objects are not shared between threads). It keeps no cache of its
    own: that held every word it stemmed, a pasted dump's 64 KiB token too (10,000 of them), and stemming is
    ~0.4 µs a word without it; the term ids are cached by word (``lexical.term_id``)."""
    found = getattr(_local, "stemmer", None)
    if found is None:
        import Stemmer

        found = _local.stemmer = Stemmer.Stemmer("porter", 0)
    return found


def fold(text: str) -> str:
    """Lower case without diacritics (``Zoë`` -> ``zoe``)."""
    if text.isascii():
        return text.lower()
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


def tokens(text: str) -> list[str]:
    """Word tokens of ``text`` (letters and digits of any script; ``_`` and punctuation separate), folded."""
    return _TOKEN.findall(fold(text))


def stems(text: str) -> set[str]:
    """The Porter stems of ``text``'s tokens that are not stopwords (what two texts share, word for word)."""
    stem = stemmer().stemWord
    return {stem(t) for t in tokens(text) if t not in STOPWORDS}


def content_hash(text: str) -> str:
    """The sha256 hex digest of ``text`` (UTF-8): a record's ``content_hash`` and the embedding cache's key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Relatives and friends a turn names ("my cousin", "her daughter"): someone else's fact is not the user's
# (the write-time supersession rules, ``cbmemory.ingest.updates``, and the read-time current-value stage,
# ``cbmemory.retrieval.current_value``).
# Relatives written as one word ("godmother", "stepdad") are named too, a hyphenated one ("half-brother") by its last
# word. Words for a role the user may also have ("manager", "teacher") name someone only right after "my" or "our"
# (``_ROLES``, below), and are part of the matter of the kinds of fact they act on (``ROLES_OF``: "My manager at X
# approved my leave" is the user's own job). The everyday words users type name people too ("my gran", "my
# landlord", "my hubby"); those that are also a common word or a way of addressing someone ("Thanks, mate", "I mentor
# a teen", "NaN") only right after "my" or "our" (``_THEIRS_ONLY``).
# "Right after my or our" allows one word that describes the person between: "my new manager", "my old friends", "our
# two sisters" (``_MINE``: a lookbehind of fixed width for each).
DESCRIBED = frozenset("""new old former current previous best close dear older younger elder eldest oldest youngest
little big baby late other both two three four""".split())
_BEFORE = ("my", "our", *(rf"{o}\s{d}" for o in ("my", "our") for d in sorted(DESCRIBED)))
_MINE = "(?:" + "|".join(rf"(?<=\b{w}\s)" for w in _BEFORE) + ")"
_THEIRS_ONLY = (r"(?:best\s)?(?:mate|buddy|pal)|bro|sis|twin|ex|bf|gf|other\shalf|better\shalf|significant\sother|nan|"
                r"mama|papa|tenant|mentor|carer|"
                r"relative")
_PEOPLE = (r"sister|brother|cousin|friend|mum|mom|mother|dad|father|son|daughter|kid|kids|child|children|"
           r"wife|husband|spouse|partner|boyfriend|girlfriend|fianc[eé]e?|neighbou?r|colleague|co-?worker|boss|aunt|"
           r"uncle|niece|nephew|grand\w+|siblings?|roommate|flatmate|housemate|parent|in-laws?|family|team ?mate|"
           r"classmate|god(?:mother|father|parents?|son|daughter|child|children)|"
           r"step(?:mother|mum|mom|father|dad|son|daughter|brother|sister|kids?|child|children|parents?)|"
           r"gran|granny|grannie|nanny|nana|nanna|auntie|aunty|mummy|mommy|momma|daddy|hubby|wifey|missus|bestie|bff|"
           r"landlord|landlady|lodger|mentee|babysitter|workmate|schoolmate|playmate|"
           # a friend or a companion told in one compound word ("my old schoolfriend")
           r"schoolfriend|penfriend|pen-?pal|bandmate|coursemate|crewmate|shipmate|bunkmate|deskmate|"
           rf"{_MINE}(?:{_THEIRS_ONLY})")
# The plurals of the words above, only right after "my" or "our" ("my cousins moved to Glasgow", "our neighbours"):
# plurals come up in passing in the user's own news ("the neighbours in my new town are lovely", "I play squash with
# friends"), where the singular is rarer.
_PLURALS = (r"sisters|brothers|cousins|friends|mums|moms|mothers|dads|fathers|sons|daughters|wives|husbands|spouses|"
            r"partners|boyfriends|girlfriends|fianc[eé]e?s|neighbou?rs|colleagues|co-?workers|bosses|aunts|uncles|"
            r"nieces|nephews|roommates|flatmates|housemates|team ?mates|classmates|workmates|schoolmates|playmates|"
            r"grannies|nannies|aunties|landlords|landladies|lodgers|mentees|babysitters|besties|bffs|"
            r"schoolfriends|penfriends|pen-?pals|bandmates|coursemates|crewmates|shipmates|bunkmates|deskmates|"
            r"mates|buddies|pals|twins|exes|tenants|mentors|carers|relatives|"
            r"parents")  # "the parents' WhatsApp group", "parents' evening": a school's parents, no one of the user's
# ... and "parents" after another's "your", "his", "her" or "their" too ("support from your parents"): someone's
_OWNERS = "(?:" + "|".join(rf"(?<=\b{w}\s)" for w in ("your", "his", "her", "their")) + ")"
# Someone named by a role the user may also have ("As a teacher I ..."), only right after "my" or "our" ("my manager",
# "our GP"), singular or plural. Which roles are part of a kind of fact's own matter: ``ROLES_OF``.
_WORK = ("manager", "supervisor", "team lead", "team leader", "director", "client", "intern", "assistant",
         "employee", "student", "pupil")
_MEDICAL = ("doctor", "gp", "dentist", "therapist", "counsellor", "counselor", "physio", "physiotherapist", "nurse")
_DIET = ("dietitian", "dietician", "nutritionist")
_SCHOOL = ("teacher", "tutor", "headteacher", "head teacher", "principal")
_SPORT = ("coach", "trainer", "instructor")
_OTHER_ROLES = ("vet", "lawyer", "solicitor", "accountant")
_ROLES = "|".join(w.replace(" ", r"\s") for w in (*_WORK, *_MEDICAL, *_DIET, *_SCHOOL, *_SPORT, *_OTHER_ROLES))
PEOPLE = re.compile(rf"\b({_PEOPLE}|{_MINE}(?:{_PLURALS})|{_OWNERS}parents|{_MINE}(?:{_ROLES})(?:e?s)?)(?:['’]s)?\b",
                    re.I)


def _forms(*groups: tuple[str, ...]) -> frozenset[str]:
    """The words of ``groups`` as ``people`` gives them: singular and plural."""
    return frozenset(f for g in groups for w in g for f in (w, w + "s", w + "es"))


ROLE_WORDS = _forms(_WORK, _MEDICAL, _DIET, _SCHOOL, _SPORT, _OTHER_ROLES)
# The roles that act on the user's own fact of a kind (by ``cbmemory.claims`` kind): "My manager moved my shift to
# Tuesdays" is the user's schedule, "My GP put me on a gluten-free diet" the user's diet; "My manager moved to
# Glasgow" is someone else's move. The read-time stage (``retrieval.slots.matter``) and the write-time rules
# (``ingest.updates.OWN``) let a statement about the user's fact name these.
ROLES_OF: Mapping[str, frozenset[str]] = {
    **{kind: _forms(_WORK) for kind in ("work", "title", "schedule", "commute")},
    "doctor": _forms(_MEDICAL, _DIET), "diet": _forms(("doctor", "gp"), _DIET), "school": _forms(_SCHOOL),
    "language": _forms(("teacher", "tutor")), "sport": _forms(_SPORT), "pet": _forms(("vet",))}
# the words for one's partner among them (as ``people`` gives them): a statement naming "my hubby" is the user's own
# on their partner, not someone else's (``retrieval.slots.ABOUT_PEOPLE``, ``ingest.updates.OWN``)
PARTNER_WORDS = frozenset({"partner", "boyfriend", "girlfriend", "wife", "husband", "spouse", "fiance", "fiancee",
                           "fiancé", "fiancée", "hubby", "wifey", "missus", "bf", "gf", "other half",
                           "better half", "significant other"})
WHO_WORDS = _PEOPLE + r"|dog|cat|puppy|kitten|pet"  # the words a name may stand beside: "my partner, Tobias"


def people(text: str) -> frozenset[str]:
    """The people a text names (``PEOPLE``: relatives, friends and others, and roles right after "my" or "our"), lower
    case."""
    return frozenset(m.group(1).lower() for m in PEOPLE.finditer(text))


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_JOINS = "and|but|so|anyway|also|oh|well|btw|plus|then"  # words that join a question to what came before
_QUESTION = ("how|what|when|where|which|who|whom|whose|why|do|does|did|are|is|was|were|have|has|had|can|could|will|"
             "would|should|shall|may|might")
# Where a sentence's question begins after a statement in the same sentence: a comma (semicolon, colon, a dash between
# spaces) and a question word or a verb that opens a question ("I moved to Porto, how about you?"; "... and anyway,
# how was your concert?"; "Typing with a flat white in the other hand - my new usual - what were we saying?"). At most
# four such words are read before the question word: a longer chain is no question's start, and reading it from every
# comma of a long message would take quadratic time.
_ASKS = re.compile(rf"(?:[,;:]|\s[-–—])\s+(?:(?:{_JOINS})\b[,\s]*){{0,4}}(?=(?:{_QUESTION})\b)", re.I)
# ... but not a relative clause set off by commas inside the statement ("I'm bringing Oskar, who I'm seeing now, to the
# barbecue, is that okay?"; "Our boat, where we live now, has no dishwasher, call you after?"): the question is the one
# after it
_RELATIVE = re.compile(r"(?:who|whom|whose|which|where|when)\b[^,;:?]*[,;:]", re.I)


CLAUSE_WORDS = 3  # the fewest words a clause has (and the words before an elliptical question)
# A sentence that opens as a question (after a few joiners): what follows its last comma is no question of its own.
_OPENS = re.compile(rf"\W*(?:(?:{_JOINS})\b[,\s]*){{0,4}}(?:{_QUESTION}|am|isn['’]t|aren['’]t|don['’]t|doesn['’]t|"
                    r"didn['’]t)\b", re.I)
# A short question with its subject and verb left out, after a statement ("..., want the number?", "..., interested?",
# "..., fancy a coffee?"): at most ``ELLIPTIC_WORDS`` words (a longer tail is more likely part of a question opened
# earlier), not opening with a pronoun ("Wait, you moved to Porto?" is an echo), not a one-word tag ("..., right?"),
# not only joiners ("..., so?"), after at least ``CLAUSE_WORDS`` words. Six was set before any run, not chosen by
# numbers.
ELLIPTIC_WORDS = 6
_SUBJECTS = frozenset("i you we they he she it this that there who".split())
_TAGS = frozenset("right no yes yeah yep yup eh huh ok okay correct true really then innit surely remember".split())
_JOINERS = frozenset(_JOINS.split("|"))


def _before_elliptic(sentence: str) -> str:
    """The words before a question ``sentence`` ends in when that question is elliptical (see ``ELLIPTIC_WORDS``)
    and the sentence does not open as one; else ""."""
    cut = max(sentence.rfind(","), sentence.rfind(";"), sentence.rfind(":"), sentence.rfind(" - "),
              sentence.rfind(" – "), sentence.rfind(" — "))
    if cut <= 0 or _OPENS.match(sentence) or _OPENS.match(sentence, cut + 1):  # "..., didn't you?": a tag
        return ""
    tail, head = words(sentence[cut:]), sentence[:cut].rstrip()
    if not 0 < len(tail) <= ELLIPTIC_WORDS or tail[0] in _SUBJECTS or (len(tail) == 1 and tail[0] in _TAGS):
        return ""
    # a greeting or a name before the comma ("Hey John, been good?") states nothing
    return "" if _JOINERS.issuperset(tail) or head.endswith("?") or len(words(head)) < CLAUSE_WORDS else head


# A sentence that opens as a request to the one spoken to (can, could or would you or we, after up to four joining
# words or "please"): "Could you remind me to pack an apron on Monday, since that's my wheel-throwing night now?",
# "Can you help me draft an email to my manager at Fernhill Mutual?". No question about a fact but what the user asks
# done, with their circumstances in it (an agent's user asks it to do things all day) -- unless it asks to be told or
# shown something, or is an offer or an exclamation ("Can you tell me more?", "Would you like to see it?", "Can you
# believe it?"), which stay questions.
_REQUEST = re.compile(rf"\W*(?:(?:{_JOINS}|please)\b[,\s]*){{0,4}}(?:can|could|would)\s+(?:you|we)\b"
                      r"(?!\s+(?:please\s+)?(?:tell|show|share|explain|describe|say|like|believe|imagine|"
                      r"remind\s+me\s+(?:what|when|where|which|who|whom|whose|why|how|of|about))\b)", re.I)


def _said(sentence: str) -> str:
    """A sentence's statement: the sentence itself when it is not a question, or when it is a request (``_REQUEST``:
    as said, ending in a full stop); the words before its question when it holds both (a relative clause between
    commas is not where it starts: ``_RELATIVE``), unless that question is only a tag ("..., didn't you?", which asks
    about them: an echo of what the other side said), or before an elliptical question it ends in ("..., want the
    number?": ``_before_elliptic``); else ""."""
    if not sentence.endswith("?"):
        return sentence
    if _REQUEST.match(sentence):
        return sentence.rstrip("?").rstrip() + "."
    m = next((m for m in _ASKS.finditer(sentence) if not _RELATIVE.match(sentence, m.end())), None)
    if m:
        return sentence[:m.start()] if len(words(sentence[m.end():])) > 2 else ""
    return _before_elliptic(sentence)


def stated(text: str) -> str:
    """What a message states: its sentences without the questions (a chat turn often tells news and then asks
    back: "I moved to Porto last week! How have you been?"); a request is no question ("Can you help me draft an
    email to my manager at Fernhill Mutual?": ``_REQUEST``). ``text`` itself when it asks nothing; "" when it only
    asks ("So you moved to Porto?")."""
    if "?" not in text:
        return text
    kept = [said for s in _SENTENCES.split(text.strip()) if (said := _said(s.strip()))]
    return " ".join(kept)


# where a statement's clauses part: punctuation, a dash between spaces, and the words that join clauses (the spaces
# around a break are stripped from the parts, not matched: a leading ``\s*`` made the split quadratic in a run of
# spaces, 2.5 s for 8,000, and a user's message may hold any run)
_CLAUSE_BREAK = re.compile(r"[,;:!?.()\"]|\s[-–—]\s|\b(?:but|and|so|because|which|while|though|although|whereas)\b",
                           re.I)


def clauses(text: str) -> list[str]:
    """A statement's clauses of ``CLAUSE_WORDS`` words or more ("Work was hectic, but the view from our new flat
    makes up for it" -> "Work was hectic", "the view from our new flat makes up for it"), when it has two or more
    such; else none (a statement of one clause is its own clause)."""
    parts = [p for p in (q.strip() for q in _CLAUSE_BREAK.split(text)) if len(p.split()) >= CLAUSE_WORDS]
    return parts if len(parts) > 1 else []
