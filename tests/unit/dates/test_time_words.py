"""Unit layer: ``relative.mentions_time``, the cheap test ``find_relative_dates`` reads a text with first. It
may pass texts that hold no date (it only has to be quick), but never skip one that a rule matches: every
rule of every table is matched here by phrases built from its own vocabulary, in any case, inside a
sentence, and each phrase a rule matches must pass. A rule no phrase matches fails the test too (a new rule
needs phrases here)."""

import itertools
import json
from pathlib import Path

import pytest

from cbmemory.dates.prescreen import mentions_time
from cbmemory.dates.relative import RULE_TABLES

NUMBERS = ("3", "a couple of", "couple of", "a couple", "an", "a", "one", "twelve")
UNITS = ("day", "days", "week", "weeks", "month", "months", "year", "years", "weekend", "weekends")
WEEKDAYS = ("monday", "friday", "sunday", "Mon", "Tue", "Tues", "Thurs", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("January", "May", "December")
SEASONS = ("spring", "summer", "autumn", "fall", "winter")
FIXED = ("the day before yesterday", "the day after tomorrow", "yesterday", "last night", "today", "tonight",
         "this morning", "this afternoon", "this evening", "tomorrow")


def phrases() -> list[str]:
    out = list(FIXED)
    for n, u in itertools.product(NUMBERS, UNITS):
        out += [f"{n} {u} ago", f"in {n} {u}", f"{n} {u} from now", f"a few {u} ago"]
    for d in ("last", "this", "next", "past", "this past", "the past"):
        out += [f"{d} {w}" for w in (*UNITS, *WEEKDAYS, *MONTHS, *SEASONS)]
    out += [f"the {u} before last" for u in UNITS]
    out += [f"{w} this {u}" for w, u in itertools.product(("later", "earlier"), UNITS)]
    return out


def texts() -> list[str]:
    base = phrases()
    shapes = ("{}", "We met {}.", "I said: {} was fun", "{}, and then more")
    out = [s.format(p) for p in base for s in shapes]
    out += [t.upper() for t in out[:200]] + [t.title() for t in out[:200]]
    here = Path(__file__).parents[2] / "data" / "relative_dates"
    for file in here.glob("*.jsonl"):
        out += [json.loads(line)["text"] for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


TEXTS = texts()


@pytest.mark.parametrize("table", sorted(RULE_TABLES))
def test_every_text_a_rule_matches_mentions_time(table):
    matched = set()
    for text in TEXTS:
        hits = [i for i, rule in enumerate(RULE_TABLES[table]) if any(m.group(0).isascii()
                                                                     for m in rule.pattern.finditer(text))]
        if hits:
            assert mentions_time(text), text
            matched.update(hits)
    assert matched == set(range(len(RULE_TABLES[table]))), "a rule without a phrase here"


def test_plain_text_is_read_no_further():
    assert not mentions_time("Caroline painted a lake with her kids.")
    assert mentions_time("Last WEEK she painted a lake.")
