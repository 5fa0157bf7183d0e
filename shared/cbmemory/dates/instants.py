"""Parsing and formatting of event times.

Accepted inputs: ``datetime`` objects, ISO 8601 strings (``2023-05-07``, ``2023-05-07T13:56:00+02:00``,
``2023-05-07 13:56``), LoCoMo's ``1:56 pm on 8 May, 2023`` and LongMemEval's ``2023/05/30 (Tue) 23:40``.
Everything is stored in UTC. A naive time (no offset) is taken to be UTC already: conversation datasets
give wall-clock times without a zone, and shifting them by the machine's zone would move sessions across
midnight depending on where the code runs.

Supported range: ``MIN_INSTANT`` (0001-01-02T00:00:00Z) to ``MAX_INSTANT`` (9999-12-30T23:59:59.999999Z).
Stores keep instants as float epoch seconds; a day of margin at each end of Python's datetime range keeps
that round trip (and any shift by a time zone) inside years 1..9999. ``to_utc`` refuses an instant outside
it with ``InvalidDateError``; with ``clamp=True`` (search bounds, times read back from a store) it moves
the instant to the nearest end instead.
"""

from __future__ import annotations

import functools
import re
from datetime import date, datetime, timezone

from ..errors import InvalidDateError

MIN_INSTANT = datetime(1, 1, 2, tzinfo=timezone.utc)
MAX_INSTANT = datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=timezone.utc)
_RANGE = f"{MIN_INSTANT.date().isoformat()} to {MAX_INSTANT.date().isoformat()} UTC"

_LOCOMO = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>am|pm)\s+on\s+(?P<d>\d{1,2})\s+(?P<mon>[A-Za-z]+),?\s+(?P<y>\d{4})\s*$",
    re.IGNORECASE,
)
_LME = re.compile(r"^\s*(?P<y>\d{4})/(?P<mo>\d{2})/(?P<d>\d{2})\s*(?:\([A-Za-z]{3}\))?\s*(?:(?P<h>\d{2}):(?P<m>\d{2}))?\s*$")
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
         "november", "december"]
    )
}


def _month(name: str) -> int:
    key = name.lower()
    for full, num in _MONTHS.items():
        if full == key or (len(key) >= 3 and full.startswith(key)):
            return num
    raise InvalidDateError(f"unknown month name {name!r}")


def to_utc(value: datetime | date | str, *, clamp: bool = False) -> datetime:
    """Parse ``value`` into an aware UTC datetime inside the supported range, or raise ``InvalidDateError``
    saying why. With ``clamp``, an instant outside the range becomes ``MIN_INSTANT`` or ``MAX_INSTANT``."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        dt = _parse_str(value)
    else:
        raise InvalidDateError(f"expected a datetime, date or string, got {type(value).__name__}")
    try:
        utc = dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)
    except OverflowError:  # year 1 or 9999 shifted by its offset past Python's range
        utc = (datetime.min if dt.year < 5000 else datetime.max).replace(tzinfo=timezone.utc)
    if MIN_INSTANT <= utc <= MAX_INSTANT:
        return utc
    if clamp:
        return MIN_INSTANT if utc < MIN_INSTANT else MAX_INSTANT
    shown = repr(value) if isinstance(value, str) else str(value)
    raise InvalidDateError(f"date {shown} is outside the supported range {_RANGE}")


def _parse_str(text: str) -> datetime:
    s = text.strip()
    if not s:
        raise InvalidDateError("empty date string")
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        pass
    if (m := _LOCOMO.match(s)) and not 1 <= int(m["h"]) <= 12:
        raise InvalidDateError(f"date {text!r}: with am/pm the hour must be 1 to 12")
    try:
        if m:
            hour = int(m["h"]) % 12 + (12 if m["ampm"].lower() == "pm" else 0)
            return datetime(int(m["y"]), _month(m["mon"]), int(m["d"]), hour, int(m["m"]))
        if m := _LME.match(s):
            return datetime(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"] or 0), int(m["m"] or 0))
    except ValueError as exc:  # e.g. 31 February
        raise InvalidDateError(f"date {text!r} is out of range: {exc}") from exc
    raise InvalidDateError(
        f"cannot parse date {text!r}: use ISO 8601 (2023-05-07T13:56:00Z) or '1:56 pm on 8 May, 2023'"
    )


def anchor_label(dt: datetime) -> str:
    """The readable session date used to anchor memories, e.g. ``Sunday, 7 May 2023``."""
    return _day_label(dt.date())


@functools.lru_cache(maxsize=4096)  # a session's memories share their day: formatted once
def _day_label(day: date) -> str:
    return f"{day.strftime('%A')}, {day.day} {day.strftime('%B')} {day.year}"


def iso(dt: datetime) -> str:
    """Canonical storage form: ``2023-05-07T13:56:00+00:00`` (clamped into the supported range, so a time
    read back from an old store always formats)."""
    return to_utc(dt, clamp=True).isoformat(timespec="seconds")


def utcnow() -> datetime:
    return datetime.now(timezone.utc)
