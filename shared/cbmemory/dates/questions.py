"""The calendar period a question names, if it names one: "in May 2023", "on 7 May 2023", "last year".

``question_span(question, reference)`` reads a question and returns the span of days it asks about
(``QuestionSpan``), or ``None``. Retrieval can then favour memories dated inside that span
(``RetrievalConfig.boosts.date_weight``). It is a pure function of the text and the reference date, the
day the question is asked ("Today is ..."): relative expressions ("last week", "two months ago") are resolved
against it by the ingest rules (``cbmemory.dates.relative``), and so are dates without a year.

It is deliberately conservative, because a wrong span pulls the wrong memories up while no span changes
nothing:

- Absolute dates and periods: ``7 May 2023``, ``May 7th, 2023``, ``2023-05-07``, ``May 2023``,
  ``in 2022``, ``in the summer of 2023``, ``summer 2022``, ``between August 11 and 15, 2023``. A part of a
  period ("the first week of August 2023", "early 2022", "the beginning of November") gives the whole
  period, which contains it. A year alone counts only after ``in``/``during``/``throughout`` ("Cyberpunk
  2077" is not a year); "winter 2022" is left alone (is it Jan-Feb 2022 or Dec 2022-Feb 2023?).
- Without a year: ``May 7th``, ``in May``, ``during the summer``: the latest such day, month or season that
  has begun by the reference date (questions to a memory are about the past).
- A period anchored on a date ("the week before 16 November 2023", "two weeks before August 11, 2023",
  "the Saturday after October 28, 2023"): from the anchored period to the anchor date, both included, so
  the span holds the event and the day it was named. "A few days before ..." is too vague: ``None``.
- Relative expressions, resolved against the reference: "yesterday", "last week", "two months ago",
  "last summer", "this year" (the vague "a few weeks ago" is left alone). When the question also has an
  absolute date, the relative one is ignored: "what did she finish last Friday, on 23 January 2022?" is
  about 23 January 2022, and "last Friday" is relative to that day, not to today.
- ``None`` for everything else: no date ("when did ...", "how long ..."), an event rather than a date
  ("before her birthday"), a date used as a bound rather than a period ("as of December 2023", "since
  2020", "before May 2023", "by July 10, 2022"), and two periods neither of which holds the other ("in May
  2022 or in June 2023"). Where one period holds the others ("on 7 May 2023, in May 2023") it is that one.

Month names are matched with their capital only ("May" the month, not "may" the verb), and a month
without a year only after ``in``/``during``/``throughout`` ("May I ask" names no month). Words and digits
are read in ASCII only (issue 22): "in the ſummer of 2023" (long s) or "in ٢٠٢٢" names no period, and a
form that cannot be read gives no span rather than an error.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from ..errors import InvalidInputError
from .relative import add_months, find_relative_dates

GRANULARITIES = ("day", "week", "weekend", "month", "season", "year", "range")

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2}


@dataclass(frozen=True, slots=True)
class QuestionSpan:
    """The days a question asks about, ``start`` to ``end`` (both included), how it was read
    (``granularity``, one of ``GRANULARITIES``; ``range`` for spans joined from two dates) and the words it
    was read from (``expression``)."""

    start: date
    end: date
    granularity: str
    expression: str

    def contains(self, when: date | datetime) -> bool:
        """Whether ``when`` (a datetime counts by its own calendar day) falls inside the span."""
        day = when.date() if isinstance(when, datetime) else when
        return self.start <= day <= self.end


# ---------------------------------------------------------------------------- calendar helpers
def _month(year: int, month: int) -> tuple[date, date]:
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _season(year: int, start_month: int) -> tuple[date, date]:
    first = date(year, start_month, 1)
    last = add_months(first, 2)
    return first, last.replace(day=calendar.monthrange(last.year, last.month)[1])


def _latest_day(month: int, day: int, today: date) -> date:
    """The latest ``month``/``day`` on or before ``today`` (29 February: the latest leap year's)."""
    for year in range(today.year, today.year - 9, -1):
        try:
            d = date(year, month, day)
        except ValueError:  # 29 February of a common year, or 31 April
            continue
        if d <= today:
            return d
    raise ValueError(f"no {month}/{day} before {today}")


def _month_number(name: str) -> int:
    return _MONTHS.index(name) + 1


# ---------------------------------------------------------------------------- the patterns
# Months and weekdays with their capital only; every other word in any case.
_MONTH = r"(?-i:{})".format("|".join(_MONTHS))
_ORD = r"(?:st|nd|rd|th)?"
_DAY_NUM = r"(?:[12]\d|3[01]|0?[1-9])"
_YEAR_NUM = r"(?:1[89]|20)\d\d"
_END = r"(?![\w-])"  # a year or day ends a word ("2022s", "2022-23" and "12345" are not years)
_NO_YEAR = r"(?!,?\s*\d)"  # a month or day with no year after it
# A part of a period, read as the whole period ("the first week of", "early", "mid-")
_PART = (r"(?:(?:early|late|mid) |mid-|the (?:very )?(?:beginning|start|middle|end|rest|first half|second half|"
         r"(?:first|second|third|fourth|last|final) (?:week|weekend|days?|half|part|quarter|months?)) of )")
_IN = r"(?:in|during|throughout)"

Resolver = Callable[[re.Match[str], date | None], tuple[date, date] | None]


def _day_with_year(m: re.Match[str], today: date | None) -> tuple[date, date]:
    d = date(int(m["y"]), _month_number(m["m"]), int(m["d"]))
    return d, d


def _iso_day(m: re.Match[str], today: date | None) -> tuple[date, date]:
    d = date(int(m["y"]), int(m["mo"]), int(m["d"]))
    return d, d


def _month_with_year(m: re.Match[str], today: date | None) -> tuple[date, date]:
    return _month(int(m["y"]), _month_number(m["m"]))


def _season_with_year(m: re.Match[str], today: date | None) -> tuple[date, date]:
    return _season(int(m["y"]), _SEASON_START[m["s"].lower()])


def _year(m: re.Match[str], today: date | None) -> tuple[date, date]:
    return date(int(m["y"]), 1, 1), date(int(m["y"]), 12, 31)


def _range(m: re.Match[str], today: date | None) -> tuple[date, date] | None:
    year = int(m["y"])
    second = date(year, _month_number(m["m2"] or m["m1"]), int(m["d2"]))
    first = date(year, _month_number(m["m1"] or m["m2"]), int(m["d1"]))
    return (first, second) if first <= second else None


def _day_without_year(m: re.Match[str], today: date | None) -> tuple[date, date] | None:
    if today is None:
        return None
    d = _latest_day(_month_number(m["m"]), int(m["d"]), today)
    return d, d


def _month_without_year(m: re.Match[str], today: date | None) -> tuple[date, date] | None:
    if today is None:
        return None
    month = _month_number(m["m"])
    return _month(today.year if month <= today.month else today.year - 1, month)


def _season_without_year(m: re.Match[str], today: date | None) -> tuple[date, date] | None:
    if today is None:
        return None
    start_month = _SEASON_START[m["s"].lower()]
    return _season(today.year if today.month >= start_month else today.year - 1, start_month)


@dataclass(frozen=True, slots=True)
class _Form:
    """One way of writing a date: its pattern, how precise it is, and how it resolves (``None``: it
    cannot be resolved here, e.g. no reference date for a date without a year)."""

    granularity: str
    pattern: re.Pattern[str]
    resolve: Resolver
    is_day: bool = False  # a single day, which a period before or after it can be anchored on


def _form(granularity: str, pattern: str, resolve: Resolver, *, is_day: bool = False) -> _Form:
    return _Form(granularity, re.compile(rf"\b{pattern}", re.IGNORECASE), resolve, is_day)


_DMY = rf"(?P<d>{_DAY_NUM}){_ORD}(?: of)? (?P<m>{_MONTH}),? (?P<y>{_YEAR_NUM}){_END}"
_MDY = rf"(?P<m>{_MONTH}) (?P<d>{_DAY_NUM}){_ORD}(?:,\s*|\s+)(?P<y>{_YEAR_NUM}){_END}"
_RANGE_MD = (rf"(?:between|from) (?P<m1>{_MONTH}) (?P<d1>{_DAY_NUM}){_ORD} (?:and|to|until|through|-) "
             rf"(?:(?P<m2>{_MONTH}) )?(?P<d2>{_DAY_NUM}){_ORD},? (?P<y>{_YEAR_NUM}){_END}")
_RANGE_DM = (rf"(?:between|from) (?P<d1>{_DAY_NUM}){_ORD}(?: (?P<m1>{_MONTH}))? (?:and|to|until|through|-) "
             rf"(?P<d2>{_DAY_NUM}){_ORD} (?P<m2>{_MONTH}),? (?P<y>{_YEAR_NUM}){_END}")

# In priority order: where two overlap, the earlier form wins (a date with its year before one without).
_FORMS: tuple[_Form, ...] = (
    _form("range", _RANGE_MD, _range),
    _form("range", _RANGE_DM, _range),
    _form("day", rf"(?P<y>{_YEAR_NUM})-(?P<mo>0[1-9]|1[0-2])-(?P<d>{_DAY_NUM}){_END}", _iso_day, is_day=True),
    _form("day", _DMY, _day_with_year, is_day=True),
    _form("day", _MDY, _day_with_year, is_day=True),
    _form("season", rf"(?P<s>spring|summer|autumn|fall)(?: of)?,? (?P<y>{_YEAR_NUM}){_END}", _season_with_year),
    _form("month", rf"(?P<m>{_MONTH}),? (?P<y>{_YEAR_NUM}){_END}", _month_with_year),
    _form("year", rf"{_IN} {_PART}?(?:the year )?(?P<y>{_YEAR_NUM}){_END}", _year),
    _form("day", rf"(?P<d>{_DAY_NUM}){_ORD}(?: of)? (?P<m>{_MONTH})\b{_NO_YEAR}", _day_without_year, is_day=True),
    _form("day", rf"(?P<m>{_MONTH}) (?P<d>{_DAY_NUM}){_ORD}\b{_NO_YEAR}", _day_without_year, is_day=True),
    _form("month", rf"{_IN} (?:the month of )?{_PART}?(?P<m>{_MONTH})\b{_NO_YEAR}", _month_without_year),
    _form("season", rf"(?:{_IN}|over) (?:the )?{_PART}?(?P<s>spring|summer|autumn|fall|winter)\b(?! of){_NO_YEAR}",
          _season_without_year),
)

# A date used as a bound, not as the period asked about: "as of December 2023", "since 2020".
_BOUND = re.compile(r"\b(?:before|after|since|until|till|by|as of|prior to|up to|from|to|through|between)"
                    r"(?: the)?(?: on)?\s*$", re.IGNORECASE)
# A period anchored on a day: "the week before", "two weeks before", "the Saturday after".
_NUM = r"(?P<n>\d{1,2}|a couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_ANCHORED = re.compile(
    rf"\b(?:(?:the|last|that) (?P<week>week|weekend)|(?:the |last |that )?(?-i:(?P<wd>{'|'.join(_WEEKDAYS)}))"
    rf"|the (?P<day>day|night|evening|morning)|{_NUM} (?P<unit>day|week|month)s?)"
    rf" (?P<dir>before|after)(?: the)?(?: on)?\s*$", re.IGNORECASE)
BEFORE_CHARS = 120  # the words before a date read for a bound or an anchor ("the Saturday after the", "since")
_VAGUE_ANCHOR = re.compile(r"\b(?:a few|several|some|few) \w+ (?:before|after)(?: on)?\s*$", re.IGNORECASE)


def _anchored(m: re.Match[str], anchor: date) -> tuple[date, date]:
    """From the anchored period to the anchor, both included: a superset of the period asked about that
    also holds the day it was named on."""
    sign = -1 if m["dir"].lower() == "before" else 1
    if m["unit"]:
        n = int(m["n"]) if m["n"].isdigit() else _NUMBERS[m["n"].lower()]
        unit = m["unit"].lower()
        other = add_months(anchor, sign * n) if unit == "month" else anchor + timedelta(days=sign * n * (7 if unit == "week" else 1))
    elif m["day"]:
        other = anchor + timedelta(days=sign)
    else:  # a week, a weekend or a weekday before or after: within seven days of the anchor
        other = anchor + timedelta(days=sign * 7)
    return (other, anchor) if other <= anchor else (anchor, other)


@dataclass(frozen=True, slots=True)
class _Found:
    start: int
    end: int
    span: QuestionSpan


class _Unresolvable(Exception):
    """The question has a date this module will not turn into a span (a bound, a vague anchor)."""


def _plain(words: str) -> bool:
    """Whether matched words are ASCII but for their spaces: the patterns match in any case, and Unicode
    case folding takes look-alike letters for ASCII ones ("ſummer" for summer, "ı" for i, the Kelvin sign
    for k), as ``\\d`` takes other scripts' digits; such words are not the pattern's."""
    return all(c.isascii() or c.isspace() for c in words)


def _before(pattern: re.Pattern[str], question: str, start: int) -> re.Match[str] | None:
    """``pattern`` (one that ends with ``$``) matched at the end of the words before ``start``: only their last
    ``BEFORE_CHARS`` are read (a long question with many dates would otherwise be read again for each)."""
    return pattern.search(question, max(0, start - BEFORE_CHARS), start)


def _absolute(question: str, today: date | None) -> list[_Found]:
    taken: list[_Found] = []
    covered = bytearray(len(question) + 1)  # where a date already taken is
    for form in _FORMS:
        for m in form.pattern.finditer(question):
            if not _plain(m.group(0)) or any(covered[m.start():m.end()]):
                continue
            try:
                days = form.resolve(m, today)
            except (LookupError, OverflowError, ValueError):  # 31 April, 29 February 2023: not a date, so
                raise _Unresolvable(m.group(0)) from None    # no span (not the month's); or unreadable words
            if days is None:
                continue
            start, granularity = m.start(), form.granularity
            anchored = _before(_ANCHORED, question, start) if form.is_day else None
            if anchored and _plain(anchored.group(0)):
                try:
                    days, start, granularity = _anchored(anchored, days[0]), anchored.start(), "range"
                except (LookupError, OverflowError, ValueError):
                    raise _Unresolvable(anchored.group(0)) from None
            elif form.is_day and _before(_VAGUE_ANCHOR, question, m.start()):
                raise _Unresolvable(m.group(0))
            elif form.granularity != "range" and _before(_BOUND, question, m.start()):
                raise _Unresolvable(m.group(0))
            span = QuestionSpan(days[0], days[1], granularity, question[start:m.end()])
            taken.append(_Found(start, m.end(), span))
            covered[start:m.end()] = b"\x01" * (m.end() - start)
    return taken


def _relative(question: str, today: date) -> list[_Found]:
    found = []
    for rel in find_relative_dates(question, today):
        if rel.span.granularity == "vague":  # "a few weeks ago": no calendar period
            continue
        if _before(_BOUND, question, rel.start):  # "since last year", "until next week"
            raise _Unresolvable(rel.expression)
        found.append(_Found(rel.start, rel.end, QuestionSpan(rel.span.start, rel.span.end, rel.span.granularity,
                                                             rel.expression)))
    return found


def _widest_holding_all(found: list[_Found]) -> QuestionSpan | None:
    """The span that holds every other one, or ``None`` when there is no such span: the first found from the
    earliest start to the latest end (a span holding all the others is that wide; one pass, however many)."""
    first = min(f.span.start for f in found)
    last = max(f.span.end for f in found)
    return next((f.span for f in found if f.span.start == first and f.span.end == last), None)


def question_span(question: str, reference: datetime | date | None = None) -> QuestionSpan | None:
    """The span of days ``question`` asks about, or ``None`` (see the module docstring for what is read
    and what is left alone). ``reference`` is the day the question is asked: relative expressions and
    dates without a year need it, and are left alone without it."""
    if not isinstance(question, str):
        raise InvalidInputError(f"question must be a string, got {type(question).__name__}")
    if reference is not None and not isinstance(reference, (datetime, date)):
        raise InvalidInputError(f"reference must be a datetime, a date or None, got {type(reference).__name__}")
    today = reference.date() if isinstance(reference, datetime) else reference
    try:
        found = _absolute(question, today)
        if not found and today is not None:
            found = _relative(question, today)
    except _Unresolvable:
        return None
    return _widest_holding_all(found) if found else None


__all__ = ["GRANULARITIES", "QuestionSpan", "question_span"]
