"""The literal phrases a regular expression matches, read from its parse: what a full-text search for the text a rule
reads can ask for (``cbmemory.claims.rule_phrases``).

Each alternative of a group, each optional part and each class of up to three characters is expanded; a part that
stands for unknown text (``\\w+``, a wide class, any character, a repeat of those) splits a phrase in two, and a word
of a phrase that runs into such a part (``relocat`` of ``relocat\\w+``) is a fragment: the piece holding it is
dropped. Lookarounds and word boundaries match no text and add none. What is left are phrases of whole words (a
phrase's punctuation dropped) with one content word at least, each once, and of two phrases one of which holds the
other, only the shorter: a text holding the longer holds the shorter too.

The parse is the standard library's (``re._parser``, ``sre_parse`` before Python 3.11): its tree of (opcode,
argument) pairs is the same in every version this package supports.
"""

from __future__ import annotations

import importlib
import re
import sys
from typing import Any

from .text import content_words

_parser: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
_c: Any = importlib.import_module("re._constants" if sys.version_info >= (3, 11) else "sre_constants")

UNKNOWN = "\x00"  # text the pattern does not spell
MAX_EXPANDED = 20_000  # texts one pattern may expand to; a pattern past it is refused (a rule, not a user's input)
_SMALL_CLASS = 3  # a class of this many literal characters or fewer is expanded ("[’']", "[,:]")


def _concat(parts: list[list[str]]) -> list[str]:
    out = [""]
    for alternatives in parts:
        out = list(dict.fromkeys(a + b for a in out for b in alternatives))
        if len(out) > MAX_EXPANDED:
            raise ValueError(f"the pattern expands to more than {MAX_EXPANDED} texts")
    return out


def _sequence(items: Any) -> list[str]:
    return _concat([_node(op, arg) for op, arg in items])


def _node(op: Any, arg: Any) -> list[str]:
    if op is _c.LITERAL:
        return [chr(arg).lower()]
    if op is _c.IN:
        chars = [chr(v).lower() for o, v in arg if o is _c.LITERAL]
        if len(chars) == len(arg) <= _SMALL_CLASS:
            return chars
        return [" "] if all(o is _c.CATEGORY and v is _c.CATEGORY_SPACE for o, v in arg) else [UNKNOWN]
    if op is _c.CATEGORY:
        return [" "] if arg is _c.CATEGORY_SPACE else [UNKNOWN]
    if op is _c.BRANCH:
        return list(dict.fromkeys(s for branch in arg[1] for s in _sequence(branch)))
    if op is _c.SUBPATTERN:
        return _sequence(arg[3])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
        least, most, body = arg
        once = _sequence(body)
        if most == 1:
            return ([""] if least == 0 else []) + once
        if any(UNKNOWN in s for s in once):  # some unknown words: "(?:\w+ ){1,3}"
            return [UNKNOWN + s + UNKNOWN for s in once]
        return once + ([""] if least == 0 else [])  # "\s+": once stands for any number
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return [""]
    return [UNKNOWN]  # any character, a back-reference, a character range ...


def _phrases_of(text: str) -> list[str]:
    pieces = text.split(UNKNOWN)
    out = []
    for i, piece in enumerate(pieces):
        if (i > 0 and piece[:1].isalnum()) or (i < len(pieces) - 1 and piece[-1:].isalnum()):
            continue  # a word of it runs into unknown text: a fragment
        phrase = " ".join(re.findall(r"[\w'’-]+", piece))
        if any(len(w) >= 3 for w in content_words(phrase)):
            out.append(phrase)
    return out


def phrases(pattern: re.Pattern[str]) -> tuple[str, ...]:
    """The phrases of whole words ``pattern`` matches (lower case, in the order the pattern gives them), none holding
    another; a pattern that expands to more than ``MAX_EXPANDED`` texts is refused with a ``ValueError``."""
    found = dict.fromkeys(p for text in _sequence(_parser.parse(pattern.pattern, pattern.flags))
                          for p in _phrases_of(text))
    split = {tuple(p.split()) for p in found}

    def holds_another(words: tuple[str, ...]) -> bool:
        return any(words[i:j] in split for i in range(len(words)) for j in range(i + 1, len(words) + 1)
                   if j - i < len(words))

    return tuple(p for p in found if not holds_another(tuple(p.split())))


__all__ = ["MAX_EXPANDED", "phrases"]
