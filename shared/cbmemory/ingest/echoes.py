"""Echoes: which turns of an agent step only say again what the model was shown (ingest policy, pure).

A turn stored as an echo is linked to the memories it restates (``Message.restates``, kept as the record's
``source_ids``) and retrieval shows those memories instead of it, so an echo must add nothing: a turn is an
echo only when it adds no **new content** to the shown memories (their lines as the model read them: date,
speaker, text, resolved dates). New content is

- a name, place, number or date the shown memories lack: a capitalised word, a token with a digit, a number,
  relative-date or time-of-day word (for a user's turn, a weekday is looked up in the memories' texts, not
  in the date labels cbmemory added: "on Friday" is new even when a memory is dated Friday; a date the
  labels show, "on 31 July 2023", names the memories said that day);
- a negation the shown texts lack (``not``, ``never``, ``n't``...): a correction is new content;
- fewer than ``RESTATES`` of its content words (stems less stopwords and the words that only ask about
  memory: ``mention``, ``remember``, ``told``...) among the lines' words: the turn is about something else.

A user's statement is never an echo: it is what memory is for, even when it names what was shown. What an
echo's words are, names, places, numbers and dates included, its linked memories hold, so a query made of
them finds those memories.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from ..context import ContextConfig, memory_line
from ..models import MemoryRecord, Message
from ..text import STOPWORDS, stemmer, stems

# share of an agent turn's content words found in what its step showed, for it to be an echo (issue 24's CV:
# cbmemory_eval/README.md); a user's question needs all of them
RESTATES = 0.4
MAX_LINKS = 16
_ASKING = "mention mentioned tell told remember recall say said ask asked know again remind".split()
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen
    seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million
    billion dozen first second third half today tomorrow yesterday tonight weekend week month year ago morning
    afternoon evening night noon midnight""".split())
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|anymore|instead|\w+n[’']t)\b",
                       re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")


def content_stems(text: str) -> set[str]:
    """The turn's content words as stems: its stems less stopwords and the words that only ask about memory."""
    return stems(text) - _asking()


@cache
def _weekdays() -> frozenset[str]:
    return frozenset(stemmer().stemWords("monday tuesday wednesday thursday friday saturday sunday".split()))


@cache
def _asking() -> frozenset[str]:
    return frozenset(stemmer().stemWords(_ASKING))


def specific_stems(text: str) -> set[str]:
    """The stems of ``text``'s names, places, numbers and dates: capitalised words (not stopwords, not ``I``),
    tokens with a digit, number and relative-date words."""
    out = [w for w in _WORD.findall(text)
           if w.lower() not in STOPWORDS and (w[:1].isupper() or any(c.isdigit() for c in w)
                                               or w.lower() in _NUMBER_WORDS)]
    return stems(" ".join(out))


def negates(text: str) -> bool:
    return _NEGATION.search(text) is not None


def can_echo(turn: Message) -> bool:
    """What may be an echo: the agent's own turns, and the user's questions (see the module docstring)."""
    return turn.role != "user" or turn.content.rstrip().endswith("?")


def restated(text: str, shown: Sequence[MemoryRecord], config: ContextConfig, threshold: float | None = None,
             *, role: str = "assistant") -> tuple[str, ...]:
    """The record ids of the memories ``text`` (a turn of ``role``) only says again, when it adds no new
    content to the ``shown`` memories (see the module docstring): the shown memories whose own words it
    shares, most shared first (at most ``MAX_LINKS``); else none. ``threshold``: default ``RESTATES``."""
    threshold = RESTATES if threshold is None else threshold
    words = content_stems(text)
    if not words or not shown:
        return ()
    lines = set().union(*(stems(memory_line(r, config)) for r in shown))
    said = lines if role != "user" else lines - _weekdays() | set().union(*(stems(r.text) for r in shown))
    if specific_stems(text) - said or (negates(text) and not any(negates(r.text) for r in shown)):
        return ()
    if len(words & lines) < threshold * len(words):
        return ()
    own = {r.record_id: len(words & stems(r.text)) for r in shown}
    return tuple(sorted((rid for rid, n in own.items() if n), key=lambda rid: -own[rid])[:MAX_LINKS])


__all__ = ["MAX_LINKS", "RESTATES", "can_echo", "content_stems", "negates", "restated", "specific_stems"]
