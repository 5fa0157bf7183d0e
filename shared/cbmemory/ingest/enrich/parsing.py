r"""Tolerant reading of a model's JSON reply: strict JSON first, then a lenient parser that repairs what
small local models get wrong, then validation into frozen data. Pure functions; no model calls here.

Repairs, in the order a reply meets them: a reasoning model's ``<think>...</think>`` block; prose or
Markdown fences around the JSON (and braces in that prose); a JSON document escaped as a string
(``{\"events\": ...}``); single-quoted and curly-quoted strings; double quotes left unescaped inside a
string (``"she said "hi" to me"``); strings joined with ``+``; unquoted keys; Python's and JavaScript's
``True``/``False``/``None``/``undefined``; ``//``, ``/* */`` and ``#`` comments; missing or trailing commas;
``...`` placeholders; non-breaking and zero-width spaces; a key with no value; numbers like ``.5``;
unknown escapes (``C:\path`` keeps its backslash); several objects one per line (read as a list); and
output cut off mid-way (open strings, arrays and objects are closed). What cannot be read raises
``MalformedReplyError`` with the reason, which the caller records instead of losing the turn.

These are the failure shapes that JSON-repair libraries (``json_repair``, ``jsonrepair``) list, checked
one by one in tests/unit/ingest/enrich/test_parsing.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import CbMemoryError
from ..slots import clean_key, clean_value


class MalformedReplyError(CbMemoryError, ValueError):
    """A model reply that is not JSON even after repair, or JSON of the wrong shape."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed reply and whether it needed repair (``repaired``) to be read."""

    value: Any
    repaired: bool


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_BARE = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None,
         "none": None, "NaN": None, "nan": None, "undefined": None}
_SPACE = " \t\r\n,\u00a0\u2007\u202f\u200b\ufeff"  # commas are optional separators here
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![\w-])")
_WORD = re.compile(r"[A-Za-z_]\w*")
_UNQUOTED = re.compile(r"[^,\]\}\n]+")
_KEY = re.compile(r"[A-Za-z_$][\w$\- ]*?(?=\s*[:=])|[A-Za-z_$][\w$]*")
# what follows a string's closing quote when a comma was left out before the next key
_NEXT_KEY = re.compile(r"(?:\"[^\"\n]*\"|'[^'\n]*'|[A-Za-z_$][\w$\- ]*?)\s*[:=]")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\", "/": "/"}
_MAX_STARTS = 16  # where the JSON may begin, tried in order, when prose before it holds braces too


class _Lenient:
    """A recursive-descent JSON reader that accepts the usual mistakes (see the module docstring)."""

    MAX_DEPTH = 64

    def __init__(self, text: str):
        self.s, self.i, self.n = text, 0, len(text)
        self.depth = 0

    def _skip(self) -> None:
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in _SPACE or c.isspace():
                self.i += 1
            elif s.startswith("//", self.i) or c == "#":
                end = s.find("\n", self.i)
                self.i = self.n if end < 0 else end + 1
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                self.i = self.n if end < 0 else end + 2
            elif s.startswith("...", self.i) or c == "…":  # "[a, b, ...]": a placeholder, not a value
                self.i += 3 if c == "." else 1
            else:
                return

    def document(self) -> Any:
        """The value at the start; several objects one after the other (one per line) are a list."""
        first = self.value()
        values = [first]
        while isinstance(first, dict):
            self._skip()
            if self.i >= self.n or self.s[self.i] != "{":
                break
            mark = self.i
            try:
                values.append(self.value())
            except MalformedReplyError:
                self.i = mark
                break
        return values if len(values) > 1 else first

    def value(self, ctx: str = "top") -> Any:
        self._skip()
        if self.i >= self.n:
            raise MalformedReplyError("the reply ends where a value was expected")
        c = self.s[self.i]
        if c in "{[":
            self.depth += 1
            if self.depth > self.MAX_DEPTH:
                raise MalformedReplyError(f"the reply is nested more than {self.MAX_DEPTH} levels deep")
            try:
                return self._object() if c == "{" else self._array()
            finally:
                self.depth -= 1
        if c in "\"'“”‘’":
            return self._string(ctx)
        return self._bare()

    def _object(self) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        while True:
            self._skip()
            if self.i >= self.n:  # cut off: close the object
                return out
            c = self.s[self.i]
            if c in "}]":
                self.i += 1
                return out
            key = self._string("key") if c in "\"'“”‘’" else self._word()
            self._skip()
            if self.i < self.n and self.s[self.i] in ":=":
                self.i += 1
            else:
                if self.i >= self.n:
                    return out
                raise MalformedReplyError(f"expected ':' after key {key!r} at character {self.i}")
            self._skip()
            if self.i >= self.n or self.s[self.i] in "}]":  # cut off, or a key with no value
                out[str(key)] = None
                continue
            out[str(key)] = self.value("value")

    def _array(self) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        while True:
            self._skip()
            if self.i >= self.n:
                return out
            if self.s[self.i] in "]}":
                self.i += 1
                return out
            out.append(self.value("item"))

    def _closes(self, j: int, ctx: str) -> bool:
        """Whether the double quote at ``j`` ends a string in context ``ctx`` (``key``, ``value`` in an
        object, ``item`` of an array, ``top``), or is a quote the model left unescaped inside the text."""
        s, k = self.s, j + 1
        while k < self.n and s[k] not in ",\r\n" and (s[k] in _SPACE or s[k].isspace()):
            k += 1
        if k >= self.n or s[k] in ",:}]\r\n#" or s.startswith(("//", "/*"), k) or ctx in ("key", "top"):
            return True
        if ctx == "item":
            return s[k] in "\"'{["  # the next item, its comma left out
        return _NEXT_KEY.match(s, k) is not None  # the next key, its comma left out

    def _string(self, ctx: str) -> str:
        quote = self.s[self.i]
        closing = {"“": "”", "‘": "’"}.get(quote, quote)
        closers = {closing, "”"} if quote in "“”" else {closing}
        self.i += 1
        buf: list[str] = []
        while self.i < self.n:
            c = self.s[self.i]
            if c == "\\" and self.i + 1 < self.n:
                nxt = self.s[self.i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", self.s[self.i + 2:self.i + 6]):
                    buf.append(chr(int(self.s[self.i + 2:self.i + 6], 16)))
                    self.i += 6
                    continue
                buf.append(_ESCAPES.get(nxt, "\\" + nxt))  # an unknown escape keeps its backslash
                self.i += 2
                continue
            if c in closers:
                # an apostrophe inside a single-quoted word ("Caroline's") is not the end of the string
                if quote == "'" and self.i + 1 < self.n and self.s[self.i + 1].isalpha() and buf \
                        and buf[-1].isalpha():
                    buf.append(c)
                    self.i += 1
                    continue
                if quote == '"':
                    joined = re.compile(r'\s*\+\s*"').match(self.s, self.i + 1)
                    if joined and ctx != "key":  # "a long text" + " more": one string
                        self.i = joined.end()
                        continue
                    if not self._closes(self.i, ctx):
                        buf.append(c)
                        self.i += 1
                        continue
                self.i += 1
                return "".join(buf)
            buf.append(c)
            self.i += 1
        return "".join(buf)  # cut off inside a string

    def _word(self) -> str:
        m = _KEY.match(self.s, self.i)
        if not m:
            raise MalformedReplyError(f"unexpected character {self.s[self.i]!r} at {self.i}")
        self.i = m.end()
        return m.group(0).strip()

    def _bare(self) -> Any:
        m = _NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            text = m.group(0)
            return float(text) if any(ch in text for ch in ".eE") else int(text)
        m = _WORD.match(self.s, self.i)
        if m and m.group(0) in _BARE:
            self.i = m.end()
            return _BARE[m.group(0)]
        # an unquoted string value: read to the end of the line or the next structural character
        m = _UNQUOTED.match(self.s, self.i)
        if not m:
            raise MalformedReplyError(f"unexpected character {self.s[self.i]!r} at {self.i}")
        self.i = m.end()
        return m.group(0).strip()


def _unescaped(text: str) -> str | None:
    """A JSON document sent as the inside of a string (every ``"`` escaped), unescaped; else None."""
    if '\\"' not in text or text.count('"') != text.count('\\"'):
        return None
    try:
        inner = json.loads(f'"{text}"')
    except ValueError:
        inner = text.replace('\\"', '"')
    return inner if isinstance(inner, str) else None


def _candidates(text: str) -> list[tuple[str, bool]]:
    """Where the JSON may be: inside each fence, the whole reply (a reasoning block removed from both),
    then those unescaped (which is a repair: the flag)."""
    text = _THINK.sub("", text)
    out = [m.group(1).strip() for m in _FENCE.finditer(text) if m.group(1).strip()] + [text.strip()]
    return [(c, False) for c in out] + [(u, True) for u in map(_unescaped, out) if u]


def parse_reply(text: str) -> Parsed:
    """The JSON value in a model reply. Strict JSON (possibly inside a fence) is taken as it is; anything
    else goes through the lenient reader from the first ``{`` or ``[`` that reads (the ones in prose before
    the JSON do not)."""
    if not isinstance(text, str) or not text.strip():
        raise MalformedReplyError("empty reply")
    candidates = _candidates(text)
    for cand, unescaped in candidates:
        try:
            return Parsed(json.loads(cand), repaired=unescaped)
        except (ValueError, RecursionError):
            pass
    for cand, _ in candidates:
        starts = [m.start() for m in re.finditer(r"[\[{]", cand)][:_MAX_STARTS]
        for start in starts:
            try:
                return Parsed(_Lenient(cand[start:]).document(), repaired=True)
            except MalformedReplyError as exc:
                if "nested" in str(exc):
                    raise
                continue
    raise MalformedReplyError("no JSON object or array in the reply")


# ---------------------------------------------------------------------------- validation
@dataclass(frozen=True, slots=True)
class ExtractedEvent:
    """One event or fact as the model gave it (``turns`` are the prompt's line labels). ``key`` and
    ``value``: a lasting fact's slot key and value (``cbmemory.ingest.slots``), both or neither."""

    who: str
    what: str
    when: str | None = None
    date: str | None = None
    where: str | None = None
    turns: tuple[str, ...] = ()
    key: str | None = None
    value: str | None = None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        parts = [p for p in (_text(v) for v in value) if p]
        return ", ".join(parts) or None
    if isinstance(value, Mapping):
        return None
    text = str(value).strip()
    return None if not text or text.lower() in ("null", "none", "n/a", "unknown", "-") else text


def _labels(value: Any, known: Sequence[str]) -> tuple[str, ...]:
    items = value if isinstance(value, (list, tuple)) else re.split(r"[,\s]+", str(value or ""))
    out: list[str] = []
    for item in items:
        s = str(item).strip().strip("[]()").upper()
        if s.isdigit():
            s = f"T{int(s)}"
        if s in known and s not in out:
            out.append(s)
    return tuple(out)


def _first(d: Mapping[str, Any], *names: str) -> Any:
    lowered = {str(k).lower(): v for k, v in d.items()}
    for name in names:
        if name in lowered and lowered[name] is not None:
            return lowered[name]
    return None


def validate_events(value: Any, labels: Sequence[str]) -> tuple[list[ExtractedEvent], int]:
    """Events from a parsed reply (``{"events": [...]}``, a bare list, or one event object), with the
    number of items dropped because they had no ``what``. Labels not in ``labels`` are dropped; so is a slot
    key that is not a short snake_case name, or has no value (the event is kept without it)."""
    if isinstance(value, Mapping):
        items = _first(value, "events", "facts", "items", "results")
        if items is None and _first(value, "what", "event", "fact") is not None:
            items = [value]
        if items is None:
            raise MalformedReplyError(f"expected an 'events' list, got keys {sorted(map(str, value))[:6]}")
    else:
        items = value
    if isinstance(items, Mapping):
        items = [items]
    if not isinstance(items, list):
        raise MalformedReplyError(f"'events' must be a list, got {type(items).__name__}")
    out: list[ExtractedEvent] = []
    dropped = 0
    for item in items:
        if isinstance(item, str) and item.strip():
            out.append(ExtractedEvent(who="", what=item.strip()))
            continue
        if not isinstance(item, Mapping):
            dropped += 1
            continue
        what = _text(_first(item, "what", "event", "fact", "description", "summary"))
        if not what:
            dropped += 1
            continue
        key, value = clean_key(_first(item, "key", "slot", "slot_key")), clean_value(_first(item, "value", "slot_value"))
        out.append(ExtractedEvent(
            who=_text(_first(item, "who", "person", "subject", "speaker")) or "",
            what=what,
            when=_text(_first(item, "when", "time")),
            date=_text(_first(item, "date", "absolute_date", "resolved_date")),
            where=_text(_first(item, "where", "place", "location")),
            turns=_labels(_first(item, "turns", "turn", "lines", "line", "source", "sources"), labels),
            key=key if value else None, value=value if key else None,
        ))
    return out, dropped


def validate_summary(parsed: Parsed | None, raw: str) -> tuple[str, bool]:
    """The summary text and whether it needed repair. A reply that is plain prose (no JSON at all) is
    taken as the summary itself, since a summary is text anyway."""
    if parsed is not None:
        value = parsed.value
        if isinstance(value, Mapping):
            text = _text(_first(value, "summary", "text", "content"))
        elif isinstance(value, str):
            text = _text(value)
        else:
            text = None
        if text:
            return text, parsed.repaired
        raise MalformedReplyError("expected {\"summary\": \"...\"}")
    prose = raw.strip().strip("`").strip()
    if not prose or "{" in prose:
        raise MalformedReplyError("neither JSON nor a plain-text summary")
    return prose, True


def validate_round_summaries(value: Any, labels: Sequence[str]) -> tuple[dict[str, str], int]:
    """``{"summaries": [{"round": "R1", "summary": "..."}]}`` (or a mapping ``{"R1": "..."}``) as a dict
    from round label to summary, with the number of items dropped."""
    if isinstance(value, Mapping):
        items = _first(value, "summaries", "rounds")
        if items is None:
            items = [{"round": k, "summary": v} for k, v in value.items()]
    else:
        items = value
    if isinstance(items, Mapping):
        items = [{"round": k, "summary": v} for k, v in items.items()]
    if not isinstance(items, list):
        raise MalformedReplyError("expected a 'summaries' list")
    out: dict[str, str] = {}
    dropped = 0
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            dropped += 1
            continue
        label = str(_first(item, "round", "label", "id") or (labels[i] if i < len(labels) else "")).upper()
        if label.isdigit():
            label = f"R{int(label)}"
        text = _text(_first(item, "summary", "text"))
        if label in labels and text:
            out[label] = text
        else:
            dropped += 1
    return out, dropped


__all__ = ["ExtractedEvent", "MalformedReplyError", "Parsed", "parse_reply", "validate_events",
           "validate_round_summaries", "validate_summary"]
