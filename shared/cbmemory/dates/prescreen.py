"""What lets the relative-date rules skip a text cheaply: ``mentions_time`` (a unit or a named time, which
every rule needs) and ``alternatives`` (a table's rules as one pattern, for a single pass). Pure; no state
but a cache of compiled patterns."""

from __future__ import annotations

import functools
import operator
import re

# Every rule of every table needs one of these in its match (lower-cased): a unit or a named time ("day" is
# in "today", "yesterday" and the weekdays' names; "week" in "weekend"; "night" in "tonight"; the short
# weekday names and month names of the case-sensitive rules too). A text with none is read no further;
# tests/unit/dates/test_time_words.py holds every rule's examples to this.
TIME_WORDS = ("day", "week", "month", "year", "night", "tomorrow", "morning", "afternoon", "evening", "spring",
              "summer", "autumn", "fall", "winter", "january", "february", "march", "april", "may", "june", "july",
              "august", "september", "october", "november", "december", "mon", "tue", "wed", "thu", "fri", "sat",
              "sun")


def mentions_time(text: str) -> bool:
    """Whether ``text`` holds one of ``TIME_WORDS`` (anywhere, any case): without one, no rule matches."""
    low = text.lower()
    return any(word in low for word in TIME_WORDS)


@functools.cache
def alternatives(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """One pattern that matches where any of ``patterns`` does (as alternatives, their group names dropped):
    a text it does not match is matched by none of them, found in one pass."""
    flags = functools.reduce(operator.or_, (p.flags for p in patterns), 0)
    return re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[A-Za-z_][A-Za-z0-9_]*>', '(?:', p.pattern)})"
                               for p in patterns), flags)


__all__ = ["TIME_WORDS", "alternatives", "mentions_time"]
