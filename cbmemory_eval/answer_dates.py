"""The date (or span of days) an answer or a gold answer names, and how far an answer's is from the gold's.

LoCoMo's temporal golds are often relative to an absolute date: "The week before 9 June 2023", "The sunday
before 25 May 2023", "two weekends before 17 July 2023". Reading only the absolute date in them (9 June)
scores "Friday, 9 June 2023" as exact when it is wrong, so every expression is resolved to the days it
covers, with the conventions of ``cbmemory.dates.relative`` (ISO weeks from Monday to Sunday):
"the week before X" is the ISO week before X's week, "the Sunday before X" the nearest Sunday strictly
before X, "the weekend before / after X" the nearest Saturday-Sunday wholly before / after X (a Friday's
"weekend after" is the next day's: LoCoMo's golds read it so), "two days before X" X - 2.

| text | days |
|---|---|
| ``7 May 2023``, ``May 7th, 2023``, ``7th of May``, ``2023-05-07``, ``3June, 2022``, ``21Janury, 2022`` | that day |
| ``November 5-6, 2022``, ``between October 19 and 24, 2023``, ``29 May to 4 June 2023`` | that range |
| ``<n> day(s) / week(s) / weekend(s) / month(s) / year(s) / <weekday> before / after X`` | relative to X |
| ``a few days before X`` | X - 6 to X - 2 (kept vague: "a few" is 2 to 6, as in the ingest's rules) |
| ``the week of X``, ``the weekend of X`` | X's ISO week, its Saturday-Sunday |
| ``first / second / third / last week of May 2023``, ``first weekend of August 2023`` | those 7 (2) days |
| ``early / mid / late August 2023`` | days 1-10, 11-20, 21-end |
| ``May 2023``, ``summer 2022``, ``2022`` | the month, season, year |

A missing year is taken from ``default_year`` (the question's date). X may itself be a month ("the month
before May 2023" is April 2023): "before" counts from its first day, "after" from its last. Misspelt months
are read when the first three letters agree and at most two letters differ. Durations ("four months"),
dates relative to an unnamed day ("10 years ago") and slashed day/month orders (ambiguous) are no date.

``date_error`` of an answer against the gold is the largest distance in days from a day the answer allows
to the gold's span: 0 when the answer's day (or every day of its span) lies inside the gold's span, else
the days to the span's nearer end. An answer naming a coarser span than the gold is charged for it
("June 2023" against "9 June 2023" is 21 days off).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

from cbmemory.dates import resolve_expression

_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december")
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2}
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


@dataclass(frozen=True, slots=True)
class DateRange:
    """The first and last day a date expression covers (equal for one day)."""

    start: date
    end: date

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1


def _edits(a: str, b: str) -> int:
    """Levenshtein distance (short words only)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def month_number(word: str) -> int | None:
    """1-12 for a month name, its abbreviation ("Sept", "Aug.") or a near miss ("Janury"), else ``None``."""
    w = word.lower().rstrip(".")
    if len(w) < 3:
        return None
    for i, name in enumerate(_MONTH_NAMES):
        if name.startswith(w):
            return i + 1
    if len(w) >= 5:
        for i, name in enumerate(_MONTH_NAMES):
            if name[:3] == w[:3] and _edits(w, name) <= 2:
                return i + 1
    return None


# ---------------------------------------------------------------------------- absolute expressions
_M = r"(?P<mon>[A-Za-z]{3,10})\.?"
_D = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_Y = r"(?:\s*,?\s*(?P<year>\d{4}))?"
_TO = r"\s*(?:-|–|—|to|and|through|until)\s*"
_ABSOLUTE = {
    "iso": re.compile(r"\b(?P<year>\d{4})[-/](?P<mo>\d{1,2})[-/](?P<day>\d{1,2})\b"),
    "range_month_first": re.compile(
        rf"\b{_M}\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?{_TO}(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\b{_Y}", re.I),
    "range_day_first": re.compile(
        rf"\b(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?{_TO}(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?[\s`']*(?:of\s+)?{_M}{_Y}",
        re.I),
    "across_months_day_first": re.compile(
        r"\b(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s*(?:of\s+)?(?P<mon1>[A-Za-z]{3,10})\.?" + _TO +
        r"(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s*(?:of\s+)?(?P<mon2>[A-Za-z]{3,10})\.?" + _Y, re.I),
    "across_months_month_first": re.compile(
        r"\b(?P<mon1>[A-Za-z]{3,10})\.?\s+(?P<d1>\d{1,2})(?:st|nd|rd|th)?" + _TO +
        r"(?P<mon2>[A-Za-z]{3,10})\.?\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\b" + _Y, re.I),
    "day_first": re.compile(rf"\b{_D}[\s`'’]*(?:of\s+)?{_M}{_Y}", re.I),
    "month_first": re.compile(rf"\b{_M}\s+{_D}\b{_Y}", re.I),
    "part_of_month": re.compile(
        rf"\b(?P<part>early|mid|late|beginning of|start of|middle of|end of)[\s-]+(?:of\s+)?{_M}[\s,.]*"
        r"(?P<year>\d{4})\b", re.I),
    "week_of_month": re.compile(
        rf"\b(?:the\s+)?(?P<nth>first|second|third|fourth|last)\s+(?P<unit>week|weekend)\s+(?:of|in)\s+{_M}"
        r"[\s,.]*(?P<year>\d{4})\b", re.I),
    "month": re.compile(rf"\b{_M}[\s,.]*(?P<year>\d{{4}})\b", re.I),
    "season": re.compile(r"\b(?P<season>spring|summer|autumn|fall|winter)\s+(?:of\s+)?(?P<year>\d{4})\b", re.I),
    "year": re.compile(r"(?<![\d/-])\b(?P<year>(?:19|20)\d{2})\b(?![-/]\d)"),
}


def _year(m: re.Match[str], default_year: int | None) -> int | None:
    return int(m["year"]) if m["year"] else default_year


def _month_range(year: int, month: int) -> DateRange:
    return DateRange(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))


def _absolute(kind: str, m: re.Match[str], default_year: int | None) -> DateRange | None:
    """The days one absolute match names, or ``None`` when it is no date (a word that is no month,
    a day past the month's end, a range running backwards)."""
    groups = m.groupdict()
    year = _year(m, default_year) if "year" in groups else None
    if kind == "season":
        start = date(int(m["year"]), _SEASONS[m["season"].lower()], 1)
        last = start.month + 2
        end_year, end_month = (start.year + 1, last - 12) if last > 12 else (start.year, last)
        return DateRange(start, _month_range(end_year, end_month).end)
    if kind == "year":
        return DateRange(date(int(m["year"]), 1, 1), date(int(m["year"]), 12, 31))
    if year is None:
        return None
    if kind.startswith("across_months"):
        return _across_months(m, year)
    month = int(m["mo"]) if kind == "iso" else month_number(m["mon"])
    if month is None or not 1 <= month <= 12:
        return None
    whole = _month_range(year, month)
    if kind == "month":
        return whole
    if kind == "part_of_month":
        part = m["part"].lower()
        if part in ("early", "beginning of", "start of"):
            return DateRange(whole.start, whole.start.replace(day=10))
        if part in ("mid", "middle of"):
            return DateRange(whole.start.replace(day=11), whole.start.replace(day=20))
        return DateRange(whole.start.replace(day=21), whole.end)
    if kind == "week_of_month":
        return _week_of_month(whole, m["nth"].lower(), m["unit"].lower())
    if kind.startswith("range"):
        d1, d2 = int(m["d1"]), int(m["d2"])
        if not 1 <= d1 < d2 <= whole.end.day:
            return None
        return DateRange(whole.start.replace(day=d1), whole.start.replace(day=d2))
    day = int(m["day"])
    if not 1 <= day <= whole.end.day:
        return None
    return DateRange(whole.start.replace(day=day), whole.start.replace(day=day))


def _across_months(m: re.Match[str], year: int) -> DateRange | None:
    """"29 May to 4 June 2023": the year belongs to the end; a range over New Year starts the year before."""
    mon1, mon2 = month_number(m["mon1"]), month_number(m["mon2"])
    if mon1 is None or mon2 is None or mon1 == mon2:
        return None
    start_year = year if mon1 < mon2 else year - 1
    try:
        start, end = date(start_year, mon1, int(m["d1"])), date(year, mon2, int(m["d2"]))
    except ValueError:
        return None
    return DateRange(start, end) if 0 < (end - start).days <= 62 else None


def _names_a_month(kind: str, m: re.Match[str]) -> bool:
    """Whether a match that gave no days still reads as a date (a real month with an impossible day)."""
    groups = m.groupdict()
    if kind == "iso":
        return True
    names = [groups[g] for g in ("mon", "mon1", "mon2") if groups.get(g)]
    return bool(names) and all(month_number(n) is not None for n in names) and kind not in ("month", "season")


def _week_of_month(month: DateRange, nth: str, unit: str) -> DateRange:
    if unit == "week":
        if nth == "last":
            return DateRange(month.end - timedelta(days=6), month.end)
        first = month.start + timedelta(days=7 * ("first", "second", "third", "fourth").index(nth))
        return DateRange(first, first + timedelta(days=6))
    saturdays = [d for d in (month.start + timedelta(days=i) for i in range(month.days)) if d.weekday() == 5]
    saturday = saturdays[-1] if nth == "last" else saturdays[("first", "second", "third", "fourth").index(nth)]
    return DateRange(saturday, saturday + timedelta(days=1))


def _absolute_at(text: str, pos: int, default_year: int | None) -> tuple[int, DateRange] | None:
    """The longest absolute date starting exactly at ``pos``: (its end, its days)."""
    best: tuple[int, DateRange] | None = None
    for kind, pattern in _ABSOLUTE.items():
        m = pattern.match(text, pos)
        if m is None:
            continue
        days = _absolute(kind, m, default_year)
        if days is not None and (best is None or m.end() > best[0]):
            best = (m.end(), days)
    return best


# ---------------------------------------------------------------------------- relative to an absolute date
_COUNT = r"(?P<n>\d{1,2}|a couple of|couple of|a few|few|an|a|one|two|three|four|five|six|seven|eight|nine|ten|" \
         r"eleven|twelve)"
_RELATIVE = re.compile(
    rf"\b(?:the\s+)?(?:last\s+)?(?:{_COUNT}\s+)?(?P<unit>day|weekend|week|month|year|{'|'.join(_WEEKDAYS)})s?"
    r"\s+(?P<dir>before|after|prior\s+to)\s+(?:on\s+|the\s+)?", re.I)
_OF = re.compile(r"\b(?:the\s+)?(?P<unit>week|weekend)\s+of\s+(?:the\s+)?", re.I)


def _relative(m: re.Match[str], anchor: DateRange) -> DateRange | None:
    """The days of "<count> <unit> before/after <anchor>", or ``None`` when the rules cannot say."""
    unit = m["unit"].lower()
    before = not m["dir"].lower().startswith("after")
    ref = anchor.start if before else anchor.end
    count = (m["n"] or "1").lower()
    if count in ("few", "a few"):  # a few = 2 to 6, as the ingest's rules-v2 read "a few days ago"
        if unit not in ("day", "week", "month", "year") or not before:
            return None
        first, last = resolve_expression(f"6 {unit}s ago", ref), resolve_expression(f"2 {unit}s ago", ref)
        return None if first is None or last is None else DateRange(first.start, last.end)
    n = int(count) if count.isdigit() else _NUMBER_WORDS[count]
    if n < 1:
        return None
    shifted = ref + timedelta(weeks=(n - 1) * (-1 if before else 1))
    if unit == "weekend":  # the nearest Saturday-Sunday wholly before / after the anchor
        span = resolve_expression("last sunday" if before else "next saturday", shifted)
        if span is None:
            return None
        return DateRange(span.start - timedelta(days=1), span.start) if before else \
            DateRange(span.start, span.start + timedelta(days=1))
    if unit in _WEEKDAYS:
        span = resolve_expression(f"{'last' if before else 'next'} {unit}", shifted)
    else:
        span = resolve_expression(f"{n} {unit}s ago" if before else f"in {n} {unit}s", ref)
    return None if span is None else DateRange(span.start, span.end)


def _week_of(unit: str, anchor: DateRange) -> DateRange | None:
    if anchor.days > 1:  # "the week of April 3rd to 9th": the range says it
        return anchor
    span = resolve_expression(f"this {unit.lower()}", anchor.start)
    return None if span is None else DateRange(span.start, span.end)


# ---------------------------------------------------------------------------- the first date of a text
def date_range(text: str, default_year: int | None = None) -> DateRange | None:
    """The days covered by the first date expression in ``text`` (earliest start; the longest there), or
    ``None`` when it names none. A relative expression whose anchor is a date but whose days the rules
    cannot resolve makes the answer ``None`` rather than the anchor's date."""
    found: list[tuple[int, int, DateRange | None]] = []  # (start, -end, days)
    for pattern in (_RELATIVE, _OF):
        for m in pattern.finditer(text):
            anchored = _absolute_at(text, m.end(), default_year)
            if anchored is None:
                continue
            end, anchor = anchored
            days = _relative(m, anchor) if pattern is _RELATIVE else _week_of(m["unit"], anchor)
            found.append((m.start(), -end, days))
    for kind, pattern in _ABSOLUTE.items():
        for m in pattern.finditer(text):
            days = _absolute(kind, m, default_year)
            if days is not None or _names_a_month(kind, m):  # "30 February 2023" is no date, not February
                found.append((m.start(), -m.end(), days))
    if not found:
        return None
    return min(found, key=lambda f: (f[0], f[1]))[2]


def extract_date(text: str, default_year: int | None = None) -> date | None:
    """The day named by the first date expression in ``text`` when it names exactly one day, else ``None``
    ("The sunday before 25 May 2023" is 21 May 2023; "June 2023" is no single day)."""
    days = date_range(text, default_year)
    return days.start if days is not None and days.days == 1 else None


def _distance(day: date, span: DateRange) -> int:
    if day < span.start:
        return (span.start - day).days
    return max(0, (day - span.end).days)


def date_error(answer: DateRange, gold: DateRange) -> int:
    """Days from the answer's farthest day to the gold's span: 0 when the answer lies inside it."""
    return max(_distance(answer.start, gold), _distance(answer.end, gold))


__all__ = ["DateRange", "date_error", "date_range", "extract_date", "month_number"]
