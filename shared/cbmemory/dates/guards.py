"""Where the words of a relative date are not a date (rules-v3 on): a title or someone else's words.

``my favourite song is "Yesterday" by the Beatles`` names a song, and ``we watched Yesterday at the
cinema`` a film; ``she said "see you tomorrow"`` quotes words whose "tomorrow" counts from when they were
said, not from the session day. Either way, resolving them against the session day writes a wrong date,
and a wrong date is worse than none. So the resolver (``cbmemory.dates.relative``, rules-v3 on)
leaves alone an expression that

- is inside quotation marks (``in_quotes``): "double" or “curly double” quotes paired on one line, a
  ‘curly single’ pair, «guillemets» or ‹single ones›, 「corner」 or 『white corner』 brackets, or straight
  single quotes around the expression itself (``'Yesterday'``); or
- is title-cased mid-sentence (``titled_mid_sentence``): ``Yesterday`` or ``Last Night`` with its capital
  where no sentence starts. At the start of the text, of a line, or after ``.``, ``!``, ``?`` or ``…``
  (quotes, brackets, spaces and emoji between do not count) it is still a date: ``Yesterday I went...``.
  ``YESTERDAY`` in capitals is emphasis, not a title: still a date.

Apostrophes are not quotes: ``I'd``, ``Tom's``, ``the kids'``, ``rock 'n' roll``, ``I’d``, ``Tom’s``. A
straight single quote is read as a quotation mark only where a pair encloses the expression and nothing
else (``'Yesterday'``, ``'last week.'``), since an apostrophe can stand on either side of a word; a ‘curly
opening’ one, rare as an apostrophe, opens a quotation unless it starts a digit or an elision (‘90s,
‘til, ‘cause, ‘em). A straight double quote opens only where a word starts after it and closes only where
one ends before it, so inch marks (``a 5" screen``) pair with nothing. An unpaired quotation mark quotes
nothing, and no quotation runs past the end of its line.

An expression already followed by the date it means is left alone too (``already_resolved``): a model
that copies the context stage's ``yesterday [Friday, 5 May 2023]`` into its reply, stored and shown back
weeks later, would otherwise gain a second, wrong date (``yesterday (Friday, 5 May 2023) [Friday, 19 May
2023]``). A date in square or round brackets (what the context stage writes, or what it shows stored
brackets as), or ingest's ``[= 6 May 2023]``, right after the expression counts: it holds a year.

Pure functions of the text and the expression's offsets.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable

_ELISIONS = re.compile(r"(?:til|tis|twas|cause|cos|coz|em|bout|round|n)(?![^\W\d_])", re.IGNORECASE)
_SENTENCE_ENDS = frozenset(".!?…")
# What may stand between a sentence's end and its first word: spaces, quotes, brackets, dashes, bullets,
# emphasis marks, emoji (symbols, their modifiers, joiners and variation selectors)
_BETWEEN_CATEGORIES = frozenset({"Zs", "Ps", "Pe", "Pi", "Pf", "Pd", "So", "Sk", "Sm", "Cf", "Mn", "Me"})
_BETWEEN_CHARS = frozenset("\"'*_#•·\t")


def _lines(text: str) -> list[tuple[int, str]]:
    """Each line of ``text`` with the offset it starts at (any line break ends a line)."""
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        out.append((pos, line))
        pos += len(line)
    return out


def _at(line: str, i: int) -> str:
    return line[i] if 0 <= i < len(line) else ""


def _opens(line: str, i: int) -> bool:
    """A straight double quote at ``i`` could open a quotation: a word starts after it."""
    before, after = _at(line, i - 1), _at(line, i + 1)
    return (not before or before.isspace() or before in "([{-–—/") and bool(after) and not after.isspace()


def _closes(line: str, i: int) -> bool:
    """A quotation mark at ``i`` could close one: something ends before it, and no word goes on after it."""
    before, after = _at(line, i - 1), _at(line, i + 1)
    return bool(before) and not before.isspace() and not after.isalnum()


Place = Callable[[str, int], bool]  # whether the mark at an offset of a line can open (close) a quotation


def _anywhere(line: str, i: int) -> bool:
    return True


def _paired(line: str, mark: str, opens: Place, closes: Place) -> list[tuple[int, int]]:
    """The (open, close) offsets of ``mark`` pairs in one line (``mark``: the opening then the closing
    character, one character for both), opened where ``opens`` says and closed where ``closes`` says; an
    opener with no closer quotes nothing, and a second opener replaces the first."""
    spans, start = [], -1
    for found in re.finditer(f"[{re.escape(mark)}]", line):
        i, ch = found.start(), found.group()
        if start >= 0 and ch == mark[-1] and closes(line, i):
            spans.append((start, i))
            start = -1
        elif ch == mark[0] and opens(line, i):
            start = i
    return spans


def _curly_single_opens(line: str, i: int) -> bool:
    after = line[i + 1:]
    return bool(after) and after[0].isalpha() and not _ELISIONS.match(after)


_MARKS: tuple[tuple[str, Place, Place], ...] = (('"', _opens, _closes), ("“”", _anywhere, _anywhere),
                                                ("‘’", _curly_single_opens, _closes), ("«»", _anywhere, _anywhere),
                                                ("‹›", _anywhere, _anywhere), ("「」", _anywhere, _anywhere),
                                                ("『』", _anywhere, _anywhere))


Quotations = tuple[tuple[tuple[int, int], ...], ...]  # per kind of mark: (open, close) offsets, in order


def _quotations(text: str) -> Quotations:
    """Each kind of mark's quotations in ``text``, in order; those of one kind never overlap."""
    per_kind: list[list[tuple[int, int]]] = [[] for _ in _MARKS]
    for offset, line in _lines(text):
        for spans, (mark, opens, closes) in zip(per_kind, _MARKS, strict=True):
            spans.extend((offset + a, offset + b) for a, b in _paired(line, mark, opens, closes))
    return tuple(tuple(spans) for spans in per_kind)


def quoted_spans(text: str) -> tuple[tuple[int, int], ...]:
    """The offsets (of the opening and the closing mark) of every quotation in ``text`` made with double
    quotes, straight or curly, or with curly single quotes; see the module docstring for the pairing."""
    return tuple(sorted(span for spans in _quotations(text) for span in spans))


def _straight_single_around(text: str, start: int, end: int) -> bool:
    """``'<expression>'``: a straight single quote just before the expression (where no word goes on
    before it) and just after it or after its closing punctuation (where no word goes on after it)."""
    after = end + 1 if _at(text, end) in (".", ",", "!", "?") else end
    return (_at(text, start - 1) == "'" and not _at(text, start - 2).isalnum()
            and _at(text, after) == "'" and not _at(text, after + 1).isalnum())


def _inside(spans: tuple[tuple[int, int], ...], start: int, end: int) -> bool:
    """Whether one of ``spans`` (in order, none overlapping) holds ``start``..``end`` between its marks."""
    i = bisect.bisect_left(spans, (start, -1)) - 1  # the last quotation opened before ``start``
    return i >= 0 and end <= spans[i][1]


def in_quotes(text: str, start: int, end: int, quotations: Quotations | None = None) -> bool:
    """Whether the expression at ``text[start:end]`` is inside quotation marks (``quotations``: the
    text's, when the caller has them)."""
    if _straight_single_around(text, start, end):
        return True
    return any(_inside(spans, start, end) for spans in (quotations or _quotations(text)))


def sentence_starts_at(text: str, start: int) -> bool:
    """Whether a sentence starts at ``start``: nothing but spaces, quotes, brackets or emoji since the start
    of the text, a line break, or ``.``, ``!``, ``?``, ``…``."""
    i = start - 1
    while i >= 0:
        ch = text[i]
        if ch in _SENTENCE_ENDS or ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029":
            return True
        if ch not in _BETWEEN_CHARS and unicodedata.category(ch) not in _BETWEEN_CATEGORIES:
            return False
        i -= 1
    return True


def titled_mid_sentence(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` starts with a title-cased word (``Yesterday``, ``Last``, not ``LAST``)
    where no sentence starts."""
    word = text[start:end].split(" ", 1)[0]
    titled = word[:1].isupper() and (len(word) == 1 or word[1:].islower())
    return titled and not sentence_starts_at(text, start)


# a bracketed date right after an expression: "[Friday, 5 May 2023]", "(week of 1 May 2023)", "[= May 2023]"
_RESOLVED = re.compile(r"[ \t]*[\[(](?:= ?)?[^\[\]()\n]{0,60}?(?<!\d)\d{4}(?!\d)[^\[\]()\n]{0,20}[\])]")


def already_resolved(text: str, end: int) -> bool:
    """Whether the expression ending at ``end`` is followed by the date it means, in brackets."""
    return _RESOLVED.match(text, end) is not None


def quoted_or_titled(text: str) -> Callable[[int, int], bool]:
    """The rules-v3 guard of one text: whether the expression at given offsets is in quotes, a title
    mid-sentence, or already followed by its date, and so is left as written (quotations found once)."""
    quotations = _quotations(text)
    return lambda start, end: (already_resolved(text, end) or titled_mid_sentence(text, start, end)
                               or in_quotes(text, start, end, quotations))


__all__ = ["already_resolved", "in_quotes", "quoted_or_titled", "quoted_spans", "sentence_starts_at", "titled_mid_sentence"]
