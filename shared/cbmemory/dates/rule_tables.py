"""The relative-date rules, one table per released version (``RULE_TABLES``), and what each version checks
around a match (``RULE_GUARDS``); ``cbmemory.dates.relative`` finds and resolves the expressions with them.

Everything is a pure function of (text, session date, version); each version's rules are one table
(``RULE_TABLES``, with what it checks around a match in ``RULE_GUARDS``), which never changes once
released: widened rules are a new version (one exception: the fix for look-alike letters, in
``cbmemory.dates.relative``). Conventions (English, ISO weeks from Monday to Sunday, northern-hemisphere
meteorological seasons):

| expression | resolves to |
|---|---|
| today, tonight, this morning/afternoon/evening, earlier today | the session day |
| yesterday, last night / tomorrow | the day before / after |
| the day before yesterday / the day after tomorrow | two days before / after |
| N days ago, in N days, N days from now | that day |
| N weeks ago, in N weeks | the ISO week containing the day 7N days before / after |
| N months ago, in N months | that calendar month (day clamped at month ends: 31 Mar - 1 month = 28/29 Feb) |
| N years ago, in N years | that year |
| a few days/weeks/months/years ago | "a few weeks before <session day>" (kept vague on purpose) |
| last / this / next week | the ISO week before / containing / after the session day |
| last / this / next month, year | the calendar month or year before / of / after |
| last / this / next weekend | Saturday-Sunday of the ISO week before / of / after the session day |
| last Friday / next Friday | the nearest Friday strictly before / after the session day |
| this Friday | the Friday of the session day's ISO week |
| last May / next May (capitalised month) | the nearest May strictly before / after the session month |
| last / this / next summer (spring, autumn/fall, winter) | Jun-Aug, Mar-May, Sep-Nov, Dec-Feb |

N is a numeral (1-999) or a word: a, an, one ... twelve, a couple of. Bare weekdays ("on Friday"),
"recently" and "the other day" are left alone: the tense that would disambiguate them is not a date rule.

``rules-v2`` (``RULES_V2``) keeps every row above and adds or changes these:

| expression | resolves to |
|---|---|
| a couple days ago (N = "a couple", without "of") | as "a couple of days ago" |
| a few days/weeks/months/years ago | the span of "N ... ago" for N from 2 to 6 (days; ISO weeks; calendar months; years), labelled as in v1 |
| last / this / next Fri (capitalised Mon, Tue(s), Wed, Thu(r)(s), Fri, Sat, Sun) | as the full weekday |
| (this) past Saturday | as "last Saturday" |
| (this / the) past weekend | as "last weekend" when said Monday to Friday; left alone on a Saturday or Sunday |
| N weekends ago | Saturday-Sunday of the ISO week 7N days before ("a weekend ago" = last weekend) |
| the week / weekend / month / year before last | two weeks (ISO) / weekends / months / years back |
| later this week / month / year | the days after the session day to the period's end (none left: unresolved) |
| earlier this week / month / year | from the period's start to the day before the session day (none: unresolved) |
| together next year, the economy last year | dates: v1 skipped them, reading "...her next year" as the owner word "her" |
| this / that / your / its last year | not dates (v1 knew the, my, her, his, our, their; v2 reads all as whole words) |

``rules-v3`` (``RULES_V3``, the latest; issue 22) keeps v2's rows and leaves more words as written:

| expression | resolves to |
|---|---|
| in quotation marks: my favourite song is "Yesterday", she said “see you tomorrow” | not a date (a title, or words whose "tomorrow" counts from when they were said) |
| title-cased mid-sentence: we watched Yesterday at the cinema, I Know What You Did Last Summer | not a date (a title); "Yesterday I went..." at a sentence's start still is |
| blast night, yesterdays, photonight | not a date (v1 and v2 bound the rows "yesterday, last night" and "today, tonight, this morning..." on their outer side only) |

(``cbmemory.dates.guards`` says which quotation marks pair and where a sentence starts.)

Not resolved in any version, on purpose: "the week before" and "the day before" without "last" (they
count back from a time the text names, not from the session day), "since we last talked", "in a few
days", "the past week" (a duration), "soon", "lately".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from types import MappingProxyType

from .guards import quoted_or_titled
from .spans import (
    MONTHS,
    DateSpan,
    day_span,
    month_span,
    season_span,
    shift,
    week_span,
    weekend_span,
    year_span,
)

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
            "a couple": 2}
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


# ---------------------------------------------------------------------------- rules
_NUM = r"(?P<n>\d{1,3}|a couple of|couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_DIR = r"(?P<dir>last|this|next)"


def _count(m: re.Match[str]) -> int:
    n = m["n"].lower()
    return int(n) if n.isdigit() else _NUMBERS[n]


def _offset(days: int) -> Callable[[re.Match[str], date], DateSpan]:
    return lambda m, today: day_span(today + timedelta(days=days))


def _ago(m: re.Match[str], today: date) -> DateSpan:
    return shift(m["unit"].lower(), -_count(m), today)


def _ahead(m: re.Match[str], today: date) -> DateSpan:
    return shift(m["unit"].lower(), _count(m), today)


def _few_ago(m: re.Match[str], today: date) -> DateSpan:
    unit = m["unit"].lower()
    span = {"day": 3, "week": 21, "month": 92, "year": 3 * 366}[unit]
    return DateSpan(today - timedelta(days=span), today, "vague", anchor=today, unit=unit + "s")


def _step(m: re.Match[str]) -> int:
    return {"last": -1, "this": 0, "next": 1}[m["dir"].lower()]


def _period(m: re.Match[str], today: date) -> DateSpan:
    return shift(m["unit"].lower(), _step(m), today)


def _weekend(m: re.Match[str], today: date) -> DateSpan:
    return weekend_span(today + timedelta(weeks=_step(m)))


def _weekday(m: re.Match[str], today: date) -> DateSpan:
    return _weekday_span(_WEEKDAYS.index(m["wd"].lower()), _step(m), today)


def _weekday_span(target: int, step: int, today: date) -> DateSpan:
    """The weekday ``target`` (0 = Monday) of the session's ISO week (``step`` 0), or the nearest one
    strictly before (-1) / after (+1) the session day."""
    if step == 0:
        return day_span(today - timedelta(days=today.weekday()) + timedelta(days=target))
    if step < 0:
        back = (today.weekday() - target) % 7 or 7
        return day_span(today - timedelta(days=back))
    ahead = (target - today.weekday()) % 7 or 7
    return day_span(today + timedelta(days=ahead))


def _named_month(m: re.Match[str], today: date) -> DateSpan:
    month = MONTHS.index(m["month"]) + 1
    if m["dir"].lower() == "last":
        year = today.year if month < today.month else today.year - 1
    else:
        year = today.year if month > today.month else today.year + 1
    return month_span(date(year, month, 1))


def _season(m: re.Match[str], today: date) -> DateSpan:
    start_month = _SEASON_START[m["season"].lower()]
    # the season (by its start year) that contains today, or else the last one that began before today
    year = today.year if today.month >= start_month else today.year - 1
    current = season_span(year, start_month)
    contains = current.start <= today <= current.end
    step = _step(m)
    if step == 0:  # this summer: the one we are in, else this year's (winter: the one starting this December)
        return current if contains else season_span(today.year, start_month)
    if step < 0:  # the last one that has ended
        return season_span(year - 1, start_month) if contains else current
    return season_span(year + 1, start_month)


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the table: a name, a pattern (case-insensitive unless it says otherwise) and what it
    resolves to given the match and the session day; ``None`` declines (the words stay unresolved and no
    shorter expression inside them is tried: "earlier this week" on a Monday is not "this week")."""

    name: str
    pattern: re.Pattern[str]
    resolve: Callable[[re.Match[str], date], DateSpan | None]


# "the last week", "over the past year", "my last year of college" are not dates. rules-v1 looks back for
# the letters, so it also skips "together next year" (...her next year) and "economy last year" (...my);
# rules-v2 looks for whole words, and adds "your", "its", "this" and "that" ("this last year" is a duration).
_OWNERS_V1 = r"(?<!the )(?<!my )(?<!her )(?<!his )(?<!our )(?<!their )"
_OWNERS_V2 = "".join(rf"(?<!\b{w} )" for w in ("the", "my", "her", "his", "our", "their", "your", "its", "this",
                                                "that"))


def _rule(name: str, pattern: str, resolve: Callable[[re.Match[str], date], DateSpan | None], *,
          not_a_period: bool = False, owners: str = _OWNERS_V1) -> Rule:
    if not_a_period:
        pattern = rf"{owners}{pattern}(?! of\b)(?! or so\b)"
    return Rule(name, re.compile(rf"\b{pattern}\b", re.IGNORECASE), resolve)


def _calendar_rules(owners: str) -> tuple[Rule, ...]:
    """last / this / next + week, weekend, weekday, month name, season: the rows that must not read "my
    last year of college" as a date (``owners``: the words that may not come before them)."""
    return (
        _rule("weekend", rf"{_DIR} weekend", _weekend, not_a_period=True, owners=owners),
        _rule("period", rf"{_DIR} (?P<unit>week|month|year)", _period, not_a_period=True, owners=owners),
        _rule("weekday", rf"{_DIR} (?P<wd>{'|'.join(_WEEKDAYS)})", _weekday, not_a_period=True, owners=owners),
        _rule("named_month", rf"(?P<dir>last|next) (?-i:(?P<month>{'|'.join(MONTHS)}))", _named_month,
              not_a_period=True, owners=owners),
        _rule("season", rf"{_DIR} (?P<season>spring|summer|autumn|fall|winter)", _season, not_a_period=True,
              owners=owners),
    )


RULES_V1: tuple[Rule, ...] = (
    _rule("day_before_yesterday", r"the day before yesterday", _offset(-2)),
    _rule("day_after_tomorrow", r"the day after tomorrow", _offset(2)),
    _rule("yesterday", r"yesterday|last night", _offset(-1)),
    _rule("today", r"today|tonight|this (?:morning|afternoon|evening)", _offset(0)),
    _rule("tomorrow", r"tomorrow", _offset(1)),
    _rule("few_ago", rf"a few {_UNIT} ago", _few_ago),
    _rule("ago", rf"{_NUM} {_UNIT} ago", _ago),
    _rule("in", rf"in {_NUM} {_UNIT}", _ahead),
    _rule("from_now", rf"{_NUM} {_UNIT} from now", _ahead),
    *_calendar_rules(_OWNERS_V1),
)

# ---------------------------------------------------------------------------- rules-v2: what v1 missed
# Written from the misses of the "tune" half of tests/data/relative_dates/locomo_dev.jsonl and the cases
# named in issue 15 ("the week before last", "last Saturday", "two weekends ago", "a few days ago").
_NUM_V2 = _NUM.replace("a couple of|couple of|", "a couple of|couple of|a couple|")
_WD_ABBREV = {"Mon": 0, "Tue": 1, "Tues": 1, "Wed": 2, "Thu": 3, "Thur": 3, "Thurs": 3, "Fri": 4, "Sat": 5,
              "Sun": 6}
_PERIOD_SPAN: Mapping[str, Callable[[date], DateSpan]] = MappingProxyType({
    "week": week_span, "weekend": weekend_span, "month": month_span,
    "year": lambda d: year_span(d.year)})


def _few_ago_v2(m: re.Match[str], today: date) -> DateSpan:
    """"a few weeks ago": every "N weeks ago" for N from 2 to 6 (ISO weeks, calendar months, years)."""
    unit = m["unit"].lower()
    first, last = shift(unit, -6, today), shift(unit, -2, today)
    return DateSpan(first.start, last.end, "vague", anchor=today, unit=unit + "s")


def _weekday_abbrev(m: re.Match[str], today: date) -> DateSpan:
    return _weekday_span(_WD_ABBREV[m["wd"]], _step(m), today)


def _past_weekday(m: re.Match[str], today: date) -> DateSpan:
    return _weekday_span(_WEEKDAYS.index(m["wd"].lower()), -1, today)


def _past_weekend(m: re.Match[str], today: date) -> DateSpan | None:
    """"this past weekend": the weekend just gone, said from Monday to Friday; on a Saturday or Sunday it
    could be the weekend under way or the one before, so it is left alone."""
    return weekend_span(today - timedelta(weeks=1)) if today.weekday() < 5 else None


def _weekends_ago(m: re.Match[str], today: date) -> DateSpan:
    return weekend_span(today - timedelta(weeks=_count(m)))


def _before_last(m: re.Match[str], today: date) -> DateSpan:
    unit = m["unit"].lower()
    return weekend_span(today - timedelta(weeks=2)) if unit == "weekend" else shift(unit, -2, today)


def _rest_of_period(m: re.Match[str], today: date) -> DateSpan | None:
    """"later this month": the days after the session day to the period's end; "earlier this month": from
    its start to the day before. Declined when that leaves no day (later this week, said on a Sunday)."""
    period = _PERIOD_SPAN[m["unit"].lower()](today)
    if m["when"].lower() == "later":
        start, end = today + timedelta(days=1), period.end
    else:
        start, end = period.start, today - timedelta(days=1)
    return DateSpan(start, end, "range") if start <= end else None


_V2_KEEPS = {"day_before_yesterday", "day_after_tomorrow", "yesterday", "today", "tomorrow"}
RULES_V2: tuple[Rule, ...] = tuple(r for r in RULES_V1 if r.name in _V2_KEEPS) + (
    _rule("few_ago", rf"a few {_UNIT} ago", _few_ago_v2),
    _rule("ago", rf"{_NUM_V2} {_UNIT} ago", _ago),
    _rule("in", rf"in {_NUM_V2} {_UNIT}", _ahead),
    _rule("from_now", rf"{_NUM_V2} {_UNIT} from now", _ahead),
    *_calendar_rules(_OWNERS_V2),
    _rule("weekday_abbrev", rf"{_DIR} (?-i:(?P<wd>{'|'.join(sorted(_WD_ABBREV, key=len, reverse=True))}))",
          _weekday_abbrev, not_a_period=True, owners=_OWNERS_V2),
    _rule("past_weekday", rf"(?:this )?past (?P<wd>{'|'.join(_WEEKDAYS)})", _past_weekday, not_a_period=True,
          owners=_OWNERS_V2),
    _rule("past_weekend", r"(?:this |the )?past weekend", _past_weekend, not_a_period=True, owners=_OWNERS_V2),
    _rule("weekends_ago", rf"{_NUM_V2} weekends? ago", _weekends_ago),
    _rule("before_last", r"the (?P<unit>week|weekend|month|year) before last", _before_last),
    _rule("rest_of_period", r"(?P<when>later|earlier) this (?P<unit>week|month|year)", _rest_of_period),
)

# ---------------------------------------------------------------------------- rules-v3: not every match is a date
# v2's rows, with word boundaries on both sides of every alternative ("blast night", "yesterdays" and
# "photonight" held v2's "last night", "yesterday" and "tonight"), and a guard on what is around the match
# (``guards.quoted_or_titled``): quoted words and titles mid-sentence are left as written.
_V3_GROUPED = {
    "yesterday": _rule("yesterday", r"(?:yesterday|last night)", _offset(-1)),
    "today": _rule("today", r"(?:today|tonight|this (?:morning|afternoon|evening))", _offset(0)),
}
RULES_V3: tuple[Rule, ...] = tuple(_V3_GROUPED.get(r.name, r) for r in RULES_V2)

# A version's table never changes once released (stored index texts were made with it): a changed table
# is a new version. ``IngestConfig.key`` carries the version, so stores made with two differ.
RULE_TABLES: Mapping[str, tuple[Rule, ...]] = MappingProxyType(
    {"rules-v1": RULES_V1, "rules-v2": RULES_V2, "rules-v3": RULES_V3})
# What a version checks around a match before resolving it: given the text, whether the words at
# (start, end) are left as written.
Guard = Callable[[str], Callable[[int, int], bool]]
RULE_GUARDS: Mapping[str, Guard] = MappingProxyType({"rules-v3": quoted_or_titled})
LATEST_DATE_RULES = "rules-v3"
RULES = RULE_TABLES[LATEST_DATE_RULES]  # the latest table

__all__ = ["LATEST_DATE_RULES", "RULES", "RULES_V1", "RULES_V2", "RULES_V3", "RULE_GUARDS", "RULE_TABLES", "Guard",
           "Rule"]
