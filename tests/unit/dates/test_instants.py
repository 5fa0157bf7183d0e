"""Unit layer (dates): date parsing, UTC storage and the readable anchor label; instants outside the supported
range (an offset that overflows), and LoCoMo's 12-hour clock."""

from datetime import date, datetime, timedelta, timezone

import pytest

from cbmemory.dates import MAX_INSTANT, anchor_label, iso, to_utc
from cbmemory.errors import InvalidDateError


@pytest.mark.parametrize("text, expected", [
    ("2023-05-07", datetime(2023, 5, 7, tzinfo=timezone.utc)),
    ("2023-05-07T13:56:00Z", datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)),
    ("2023-05-07 13:56", datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)),
    ("2023-05-07T15:56:00+02:00", datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)),
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
    ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9, tzinfo=timezone.utc)),
    ("12:30 pm on 1 Jan, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=timezone.utc)),
    ("2023/05/30 (Tue) 23:40", datetime(2023, 5, 30, 23, 40, tzinfo=timezone.utc)),
])
def test_accepted_formats_become_utc(text, expected):
    assert to_utc(text) == expected


def test_naive_datetimes_are_taken_as_utc_and_aware_ones_converted():
    assert to_utc(datetime(2023, 5, 7, 10)) == datetime(2023, 5, 7, 10, tzinfo=timezone.utc)
    paris = timezone(timedelta(hours=2))
    assert to_utc(datetime(2023, 5, 7, 10, tzinfo=paris)).hour == 8
    assert to_utc(date(2023, 5, 7)) == datetime(2023, 5, 7, tzinfo=timezone.utc)


@pytest.mark.parametrize("bad", ["", "   ", "yesterday", "31 February 2023", "13:99 pm on 8 May, 2023",
                                 "1:56 pm on 31 February, 2023", "1:56 pm on 8 Smarch, 2023", "2023-13-01", 20230507])
def test_unparseable_dates_raise_a_typed_error(bad):
    with pytest.raises(InvalidDateError):
        to_utc(bad)


def test_anchor_label_is_readable():
    assert anchor_label(datetime(2023, 5, 7, tzinfo=timezone.utc)) == "Sunday, 7 May 2023"


# ----------------------------------------------- poison instants (tests/reliability/test_poison_input.py)
@pytest.mark.parametrize("text", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00",
                                  "0001-01-01T00:00:00Z"])
def test_offsets_that_overflow_are_a_date_error(text):
    with pytest.raises(InvalidDateError, match="supported range"):
        to_utc(text)


def test_iso_of_a_stored_instant_never_fails():
    assert iso(datetime.max.replace(tzinfo=timezone.utc)) == MAX_INSTANT.isoformat(timespec="seconds")


@pytest.mark.parametrize("text", ["13:56 pm on 8 May, 2023", "0:30 am on 8 May, 2023",
                                  "00:10 pm on 8 May, 2023", "23:00 am on 8 May, 2023"])
def test_locomo_hours_must_be_on_a_12_hour_clock(text):
    with pytest.raises(InvalidDateError, match="1 to 12"):
        to_utc(text)
