"""Whom a question is about, for the read-time current-value stage (``current_value``): the user themself (in the
first person, "we" as the user's household, "the user" as an agent's tool writes, or a name the user's own turns
carry), and the question put in the first person, as the slots' descriptions are written. Pure functions of the
question (and, for names, of the records a search found)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from ..models import Hit

FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b|\bi['’](?:m|ve|d|ll)\b", re.I)
# The first person plural is the user's household ("What do we drive?", "How many of us live at home?"), unless its
# "we" is the conversation itself ("What did we say about whales?"); "US" in capitals is a country.
WE = re.compile(r"\b(?:we|our|ours|ourselves)\b|\bwe['’](?:re|ve|d|ll)\b|(?-i:\b[Uu]s\b)", re.I)
WE_SAID = re.compile(r"\bwe\s+(?:\w+\s+){0,2}?(?:say|said|talk(?:ed)?|discuss(?:ed)?|chat(?:ted)?|mention(?:ed)?|"
                     r"speak|spoke|tell|told|cover(?:ed)?|go over|went over)\b", re.I)

# An agent's tool writes its query about "the user" ("Where does the user live now?", "the user's employer"); the
# slot is read from it in the first person, as the descriptions are written. "USER" in capitals is a name of
# something else (a variable, a table).
THE_USER = re.compile(r"\b[Tt]he\s+[Uu]ser\b|\b[Uu]ser['’]s\b")
_IN_FIRST_PERSON = tuple((re.compile(a, re.I), b) for a, b in (
    (r"\bdoes\s+the\s+user\b", "do I"), (r"\bis\s+the\s+user\b(?!['’]s)", "am I"),
    (r"\bhas\s+the\s+user\b(?!['’]s)", "have I"), (r"\bwas\s+the\s+user\b(?!['’]s)", "was I"),
    (r"\b(?:the\s+)?user['’]s\b", "my"), (r"\bthe\s+user\b", "I")))


def about_the_user(question: str) -> bool:
    """Whether a question is about the user themself: in the first person singular, or plural but not about what
    the user and the assistant said (``WE``, ``WE_SAID``), or about "the user" (``THE_USER``: an agent's query)."""
    return bool(FIRST_PERSON.search(question)) or THE_USER.search(question) is not None or (
        WE.search(question) is not None and WE_SAID.search(question) is None)


def in_first_person(question: str) -> str:
    """``question`` with "the user" put in the first person ("Where does the user live?" -> "Where do I live?",
    "the user's employer" -> "my employer"), for reading its slot; unchanged without it."""
    if THE_USER.search(question) is None:
        return question
    for pattern, words in _IN_FIRST_PERSON:
        question = pattern.sub(words, question)
    return question


ROLES = frozenset({"user", "assistant", "system", "tool", "human", "ai", "agent"})  # role words, no one's name


def users_names(hits: Iterable[Hit]) -> frozenset[str]:
    """The names the user's own turns carry (``speaker`` of a record of role ``user``) among ``hits`` and their
    windows: which name is the user's is not in a question, but the turns a search found for it tell."""
    return frozenset(r.speaker for h in hits for r in (h.record, *h.context) if r.role == "user" and r.speaker)


def named_as_the_user(question: str, names: Collection[str]) -> str:
    """``question`` with a name of the user's (``users_names``) put as "the user" ("Which company does John work for
    now?" -> "Which company does the user work for now?", "John's number" -> "the user's number"), so that it is
    read as an agent's query about the user is. A name is matched as written (a capitalised one only: "will" or "bill"
    in lower case is a word), and not as the question's first word unless possessive ("Will John move?" is no
    question about a user named Will)."""
    start = len(question) - len(question.lstrip(" \t\n\"'“‘(¿¡"))

    def the_user(m: re.Match[str]) -> str:
        if m.group(2):
            return "the user's"
        return m.group(0) if m.start() == start else "the user"

    for name in sorted((n for n in names if len(n) > 1 and n[:1].isupper() and n.lower() not in ROLES), key=len,
                       reverse=True):
        question = re.sub(rf"(?<![\w'’])({re.escape(name)})(['’]s)?(?![\w'’])", the_user, question)
    return question
