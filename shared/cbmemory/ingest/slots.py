"""Slot keys of the user's facts, from an LLM enricher (the optional path of issue 31; the rules without an
LLM are ``cbmemory.ingest.updates``). Pure functions over plain data; no model, no store.

The extraction prompt asks, for each lasting fact about the speaker of a line, a slot key (a short snake_case
name of the matter, not its value: one of ``KEYS`` for the common matters, ``home_city``, ``employer``, ``phone``,
``partner`` ...) and the value. With ``IngestConfig(link_updates=True)`` and the ``facts`` mode, each user turn
stores the keys of its facts about the speaker in two reserved annotations per key (``SLOT_PREFIX``, which a
message's or session's own annotations may not use: ``validation.check_annotations`` refuses it):

- ``cbmemory.slot.<key>`` = ``"1"``: what a later write filters on (one exact pair, which every backend's
  ``list_records`` evaluates), to find the user's latest earlier statement with the same key;
- ``cbmemory.slot_value.<key>`` = the value as the model gave it.

A later user statement with key K supersedes that latest earlier statement when their values differ
(``same_value``; ``cbmemory.memory.updates.linked``). A key the model wrote badly is dropped, never fatal:
at worst a change is not linked, which is the behaviour without the enricher.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import InvalidInputError
from ..models import SLOT_PREFIX, MemoryRecord
from ..validation import check_annotation_limits

MARK = SLOT_PREFIX + "."  # cbmemory.slot.<key> = "1"
VALUE = SLOT_PREFIX + "_value."  # cbmemory.slot_value.<key> = the value
MARKED = "1"
MAX_KEY_CHARS = 40
MAX_VALUE_CHARS = 200
MAX_SLOTS = 4  # keyed facts kept per record: a turn rarely states more, and each costs two annotations
_KEY = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
# The keys the extraction prompt names for the common matters (a model left to name them calls one matter
# "doctor" in one turn and "doctor_switch" in the next, and two keys never link); any other lasting fact gets a
# short name of the model's own. The kinds of fact the write-time rules know (``cbmemory.claims.SLOTS``).
KEYS = ("home_city", "home_type", "employer", "job_title", "weekly_class", "phone", "email", "favourite_food",
        "usual_drink", "child_school", "next_trip", "morning_routine", "partner", "computer", "household_size",
        "doctor", "language_learning", "car", "sport", "diet", "pet", "commute", "wake_time")
_WORDS = re.compile(r"\w+")


def clean_key(raw: object) -> str | None:
    """A model's slot key as stored (``Home City`` and ``home-city`` read as ``home_city``), or ``None`` for
    one that is not a short snake_case name (a sentence, a value, punctuation, too long, not a string)."""
    if not isinstance(raw, str):
        return None
    key = re.sub(r"[\s-]+", "_", raw.strip().lower())
    return key if len(key) <= MAX_KEY_CHARS and _KEY.fullmatch(key) else None


def clean_value(raw: object) -> str | None:
    """A model's slot value, stripped, or ``None`` for an empty, null-like or over-long one."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        return None
    value = " ".join(str(raw).split())
    if not value or value.lower() in ("null", "none", "n/a", "unknown", "-") or len(value) > MAX_VALUE_CHARS:
        return None
    return value


def same_value(a: str, b: str) -> bool:
    """Whether two values of one slot say the same: their words (case and punctuation aside) are equal, or
    one's are all in the other's ("Paris" and "Paris, France"). Precision first: a value that only adds
    words is taken as a restatement, not a change."""
    wa, wb = set(_WORDS.findall(a.casefold())), set(_WORDS.findall(b.casefold()))
    return wa <= wb or wb <= wa


def grounded(value: str, text: str) -> bool:
    """Whether a slot value is found in the words of the line it was extracted from: one of its words of three
    characters or more, or with a digit, occurs in the line (case aside; "7:00 AM" in "up at 7am"); a value of short
    words only ("UK") occurs in it as words. A small model copies the prompt's example value into facts of other
    matters ("home_city: Porto" for a pottery class), and such a key would link the line to the user's real home as
    its change; a value the model reworded ("New York" for "the Big Apple") is dropped too, and the line is then not
    linked (as without the enricher)."""
    line, words = text.casefold(), _WORDS.findall(value.casefold())
    telling = [w for w in words if len(w) >= 3 or any(c.isdigit() for c in w)]
    if telling:
        return any(w in line for w in telling)
    return bool(words) and re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", line) is not None


def slots_of(record: MemoryRecord) -> dict[str, str]:
    """The slot keys stored on ``record``, each with its value (a key whose value is missing is not one)."""
    ann = record.annotations
    return {k[len(MARK):]: ann[VALUE + k[len(MARK):]] for k in ann
            if k.startswith(MARK) and ann[k] == MARKED and VALUE + k[len(MARK):] in ann}


def marker(key: str) -> dict[str, str]:
    """The annotation filter that finds the records with slot ``key``."""
    return {MARK + key: MARKED}


def with_slots(annotations: Mapping[str, str], slots: Mapping[str, str]) -> dict[str, str]:
    """``annotations`` with exactly ``slots`` as slot keys (earlier ones replaced, not stacked; at most
    ``MAX_SLOTS``, by key); without any if they would take the record past the annotation limits."""
    base = {k: v for k, v in annotations.items() if not k.startswith(SLOT_PREFIX)}
    out = dict(base)
    for key in sorted(slots)[:MAX_SLOTS]:
        out[MARK + key] = MARKED
        out[VALUE + key] = slots[key]
    try:
        check_annotation_limits(out)
    except InvalidInputError:
        return base
    return out


__all__ = ["MARK", "MAX_SLOTS", "VALUE", "clean_key", "clean_value", "grounded", "marker", "same_value", "slots_of",
           "with_slots"]
