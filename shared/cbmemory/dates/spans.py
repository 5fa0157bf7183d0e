"""The spans relative dates resolve to, and the calendar arithmetic that makes them (pure functions).

``DateSpan`` is a first and last day and a precision (``GRANULARITIES``); ``label`` is how it is written next
to the expression. Conventions: ISO weeks from Monday to Sunday, weekends Saturday-Sunday of an ISO week,
calendar months and years, northern-hemisphere meteorological seasons (Mar-May, Jun-Aug, Sep-Nov, Dec-Feb).
The rules that find the expressions are in ``cbmemory.dates.rule_tables``.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

GRANULARITIES = ("day", "week", "weekend", "month", "year", "season", "vague", "range")

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December")


@dataclass(frozen=True, slots=True)
class DateSpan:
    """A resolved date: the first and last day it covers, and how precise it is (``GRANULARITIES``).
    ``anchor`` is the session day, used in the label of vague spans."""

    start: date
    end: date
    granularity: str
    anchor: date | None = None
    unit: str = ""

    @property
    def label(self) -> str:
        """How the span is written next to the expression: ``6 May 2023``, ``week of 1 May 2023``..."""
        g = self.granularity
        if g == "day":
            return _day(self.start)
        if g == "week":
            return f"week of {_day(self.start)}"
        if g == "weekend":
            return f"weekend of {_range(self.start, self.end)}"
        if g == "month":
            return f"{MONTHS[self.start.month - 1]} {self.start.year}"
        if g == "year":
            return str(self.start.year)
        if g == "season":
            name = _season_name(self.start.month)
            years = str(self.start.year) if self.start.year == self.end.year else f"{self.start.year}–{self.end.year}"
            return f"{name} {years}"
        if g == "range":
            return _day(self.start) if self.start == self.end else _range(self.start, self.end)
        return f"a few {self.unit} before {_day(self.anchor or self.end)}"


def _day(d: date) -> str:
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def _range(a: date, b: date) -> str:
    if a.year != b.year:
        return f"{_day(a)}–{_day(b)}"
    if a.month != b.month:
        return f"{a.day} {MONTHS[a.month - 1]}–{_day(b)}"
    return f"{a.day}–{_day(b)}"


def _season_name(start_month: int) -> str:
    return {3: "spring", 6: "summer", 9: "autumn", 12: "winter"}[start_month]


def add_months(d: date, months: int) -> date:
    """``d`` moved by whole calendar months, the day clamped to the target month's length
    (31 March - 1 month = 28 February, or 29 in a leap year)."""
    index = d.year * 12 + (d.month - 1) + months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def month_span(d: date) -> DateSpan:
    """The calendar month of ``d``."""
    last = calendar.monthrange(d.year, d.month)[1]
    return DateSpan(d.replace(day=1), d.replace(day=last), "month")


def year_span(year: int) -> DateSpan:
    return DateSpan(date(year, 1, 1), date(year, 12, 31), "year")


def week_span(d: date) -> DateSpan:
    """The ISO week (Monday to Sunday) of ``d``."""
    monday = d - timedelta(days=d.weekday())
    return DateSpan(monday, monday + timedelta(days=6), "week")


def weekend_span(d: date) -> DateSpan:
    """Saturday and Sunday of the ISO week of ``d``."""
    saturday = d - timedelta(days=d.weekday()) + timedelta(days=5)
    return DateSpan(saturday, saturday + timedelta(days=1), "weekend")


def day_span(d: date) -> DateSpan:
    return DateSpan(d, d, "day")


def season_span(start_year: int, start_month: int) -> DateSpan:
    """The three months from ``start_month`` of ``start_year`` (winter 2023 runs to February 2024)."""
    start = date(start_year, start_month, 1)
    last_month = add_months(start, 2)
    end = last_month.replace(day=calendar.monthrange(last_month.year, last_month.month)[1])
    return DateSpan(start, end, "season")


def shift(unit: str, n: int, today: date) -> DateSpan:
    """The ``unit`` (day, ISO week, calendar month, year) ``n`` units away from ``today``."""
    if unit == "day":
        return day_span(today + timedelta(days=n))
    if unit == "week":
        return week_span(today + timedelta(weeks=n))
    if unit == "month":
        return month_span(add_months(today, n))
    return year_span(today.year + n)


__all__ = ["GRANULARITIES", "MONTHS", "DateSpan", "add_months", "day_span", "month_span", "season_span", "shift",
           "week_span", "weekend_span", "year_span"]
