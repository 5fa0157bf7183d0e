"""Unit layer: the days a gold answer or an answer names (real LoCoMo dev golds, verbatim with their typos),
and the date error of an answer against a gold span."""

from datetime import date

import pytest

from cbmemory_eval.answer_dates import DateRange, date_error, date_range, extract_date, month_number


def _span(a: str, b: str | None = None) -> DateRange:
    return DateRange(date.fromisoformat(a), date.fromisoformat(b or a))


# Every gold below is copied from a category-2 answer of ../shared/data/locomo/locomo-dev.json; the weekday of
# each anchor is in the comment where the rule depends on it.
REAL_GOLDS = [
    # relative to an absolute day: the ISO week before the anchor's week
    ("The week before 9 June 2023", _span("2023-05-29", "2023-06-04")),  # Fri
    ("The week before 6 July 2023", _span("2023-06-26", "2023-07-02")),
    ("The week before 1 January 2023", _span("2022-12-19", "2022-12-25")),  # Sun: the week of 19 Dec
    ("the week before 21Janury, 2022", _span("2022-01-10", "2022-01-16")),  # typo, no space
    ("The week before 15April, 2022.", _span("2022-04-04", "2022-04-10")),
    ("The week before October 13th, 2023.", _span("2023-10-02", "2023-10-08")),
    ("Last week before 13 October 2022.", _span("2022-10-03", "2022-10-09")),
    ("week before 16 August, 2023", _span("2023-08-07", "2023-08-13")),
    ("a week before 24 August,2023", _span("2023-08-14", "2023-08-20")),
    ("Two weeks before 11 August 2023", _span("2023-07-24", "2023-07-30")),
    # the nearest such weekday strictly before / after
    ("The sunday before 25 May 2023", _span("2023-05-21")),  # Thu
    ("The sunday before 3` July 2023", _span("2023-07-02")),  # stray backtick; Mon
    ("The Friday before 15 July 2023", _span("2023-07-14")),  # Sat
    ("The friday before 15 July 2023", _span("2023-07-14")),
    ("The Tuesday before 20 July 2023", _span("2023-07-18")),
    ("The Saturday before 7November, 2022", _span("2022-11-05")),
    ("The Monday before 14September, 2022", _span("2022-09-12")),  # Wed
    ("Wednesday before 9 February, 2023", _span("2023-02-08")),  # Thu
    ("Sunday before 2 March, 2023", _span("2023-02-26")),
    ("Friday before 13 March, 2023", _span("2023-03-10")),  # Mon
    ("Saturday after 27 January, 2023", _span("2023-01-28")),  # Fri
    # weekends: the nearest Saturday-Sunday wholly before / after
    ("The weekend before 17 July 2023", _span("2023-07-15", "2023-07-16")),  # Mon
    ("two weekends before 17 July 2023", _span("2023-07-08", "2023-07-09")),
    ("The weekend before 13 September 2023", _span("2023-09-09", "2023-09-10")),
    ("weekend before August 24, 2023", _span("2023-08-19", "2023-08-20")),
    ("the weekend before October 24, 2023", _span("2023-10-21", "2023-10-22")),
    ("The weekend after 3June, 2022.", _span("2022-06-04", "2022-06-05")),  # Fri: the next day's weekend
    ("The weekend of 24June, 2022.", _span("2022-06-25", "2022-06-26")),  # Fri
    ("The week of 23 August 2023", _span("2023-08-21", "2023-08-27")),
    # vague, ranges, parts of months
    ("few days before November 22, 2023", _span("2023-11-16", "2023-11-20")),
    ("between October 19 and 24, 2023", _span("2023-10-19", "2023-10-24")),
    ("November 5-6, 2022", _span("2022-11-05", "2022-11-06")),
    ("On the night of October 30 to 31, 2022", _span("2022-10-30", "2022-10-31")),
    ("The week of April 3rd to 9th", _span("2023-04-03", "2023-04-09")),  # no year: the default
    ("first week of May 2023", _span("2023-05-01", "2023-05-07")),
    ("first week of April, 2023", _span("2023-04-01", "2023-04-07")),
    ("last week of September 2023", _span("2023-09-24", "2023-09-30")),
    ("first weekend of August 2023", _span("2023-08-05", "2023-08-06")),
    ("early August, 2023", _span("2023-08-01", "2023-08-10")),
    # absolute days, with LoCoMo's spellings
    ("7 May 2023", _span("2023-05-07")),
    (" 23 July, 2023", _span("2023-07-23")),
    ("23 March, 2022.", _span("2022-03-23")),
    ("on 9 April, 2023", _span("2023-04-09")),
    ("February 24, 2023", _span("2023-02-24")),
    ("Januarty 5, 2024", _span("2024-01-05")),
    ("around April 2, 2023", _span("2023-04-02")),
    ("13 August", _span("2023-08-13")),
    # months, seasons, years
    ("June 2023", _span("2023-06-01", "2023-06-30")),
    ("May, 2023", _span("2023-05-01", "2023-05-31")),
    ("April.2023", _span("2023-04-01", "2023-04-30")),
    ("In July, 2022", _span("2022-07-01", "2022-07-31")),
    ("Around August 2022", _span("2022-08-01", "2022-08-31")),
    ("February, 2024", _span("2024-02-01", "2024-02-29")),
    ("The summer of 2022", _span("2022-06-01", "2022-08-31")),
    ("in 2022", _span("2022-01-01", "2022-12-31")),
    ("Since 2016", _span("2016-01-01", "2016-12-31")),
]


@pytest.mark.parametrize("gold, expected", REAL_GOLDS)
def test_real_dev_golds_resolve_to_their_days(gold, expected):
    assert date_range(gold, default_year=2023) == expected


@pytest.mark.parametrize("gold", ["4 years", "10 years ago", "A few years ago", "four months", "19 days",
                                  "nearly three months", "two weeks", "her mother", "Yes", "August", "Toronto, Canada"])
def test_golds_without_a_date(gold):
    assert date_range(gold, default_year=2023) is None


def test_the_month_before_a_month_counts_from_its_first_day():
    assert date_range("the month before May 2023") == _span("2023-04-01", "2023-04-30")
    assert date_range("the month after May 2023") == _span("2023-06-01", "2023-06-30")
    assert date_range("two days before 7 May 2023") == _span("2023-05-05")
    assert date_range("three days after 30 April 2023") == _span("2023-05-03")
    assert date_range("few days before November 2023") == _span("2023-10-26", "2023-10-30")


@pytest.mark.parametrize("answer, expected", [
    ("Caroline gave the speech on Friday, 9 June 2023.", _span("2023-06-09")),
    ("It was the week before 9 June 2023.", _span("2023-05-29", "2023-06-04")),  # not read as 9 June
    ("Last Friday (the Friday before 15 July 2023)", _span("2023-07-14")),
    ("2023-05-26", _span("2023-05-26")),
    ("2023/05/07 (Sun)", _span("2023-05-07")),
    ("She went between May 29 - June 4, 2023", _span("2023-05-29", "2023-06-04")),
    ("from 28 December to 3 January 2023", _span("2022-12-28", "2023-01-03")),
    ("on the 7th of May", _span("2023-05-07")),
    ("Sept 3, 2022 and then 1 May 2023", _span("2022-09-03")),  # the first date named
    ("In 2022, on 5 May", _span("2022-01-01", "2022-12-31")),
])
def test_answers_are_read_the_same_way(answer, expected):
    assert date_range(answer, default_year=2023) == expected


@pytest.mark.parametrize("text", ["I may go there", "The information is not available.", "30 February 2023",
                                  "It was 5 days ago", "He decided 5 times", "06/07/2023"])
def test_no_date(text):
    assert date_range(text, default_year=2023) is None


def test_months_with_typos_but_not_other_words():
    assert [month_number(w) for w in ("Janury", "Januarty", "Sept", "aug.", "feburary", "May")] == [1, 1, 9, 8, 2, 5]
    assert [month_number(w) for w in ("decided", "marching", "junior", "mayo", "ma", "days")] == [None] * 6


def test_extract_date_is_the_single_day_or_none():
    assert extract_date("The sunday before 25 May 2023") == date(2023, 5, 21)
    assert extract_date("The week before 9 June 2023") is None
    assert extract_date("June 2023") is None
    assert extract_date("7 May", default_year=2023) == date(2023, 5, 7)
    assert extract_date("7 May") is None  # no year anywhere


def test_date_error_is_zero_inside_the_span_else_days_to_the_nearer_end():
    week = _span("2023-05-29", "2023-06-04")
    assert date_error(_span("2023-06-01"), week) == 0
    assert date_error(_span("2023-06-09"), week) == 5  # the example: 9 June is not in that week
    assert date_error(_span("2023-05-26"), week) == 3
    assert date_error(_span("2023-05-26"), _span("2023-05-21")) == 5  # "The sunday before 25 May 2023"
    assert date_error(week, week) == 0
    assert date_error(_span("2023-06-01", "2023-06-30"), _span("2023-06-09")) == 21  # a coarser answer pays
