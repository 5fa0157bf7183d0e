"""Unit layer: ``question_span`` reads the calendar period a question names (absolute dates and periods,
dates without a year, periods anchored on a date, relative expressions against the reference date) and
leaves alone what is not a period: events, bounds ("as of", "since"), vague or conflicting dates."""

from datetime import date, datetime, timezone

import pytest

from cbmemory import InvalidInputError
from cbmemory.dates.questions import GRANULARITIES, QuestionSpan, question_span

REF = datetime(2023, 10, 20, 15, 30, tzinfo=timezone.utc)  # a Friday


def days(question, reference=REF):
    span = question_span(question, reference)
    return None if span is None else (span.start.isoformat(), span.end.isoformat(), span.granularity)


# ---------------------------------------------------------------------------- absolute dates and periods
@pytest.mark.parametrize("question, expected", [
    ("What did she cook on 7 May 2023?", ("2023-05-07", "2023-05-07", "day")),
    ("What movie did Joanna watch on 1 May, 2022?", ("2022-05-01", "2022-05-01", "day")),
    ("Which book did Tim recommend on 8th December, 2023?", ("2023-12-08", "2023-12-08", "day")),
    ("What happened on the 3rd of March 2021?", ("2021-03-03", "2021-03-03", "day")),
    ("How was John feeling on April 10, 2022?", ("2022-04-10", "2022-04-10", "day")),
    ("What did we do on May 7th, 2023?", ("2023-05-07", "2023-05-07", "day")),
    ("Where was the picture shared on December 1,2023 taken?", ("2023-12-01", "2023-12-01", "day")),
    ("What happened on 2023-05-07?", ("2023-05-07", "2023-05-07", "day")),
    ("Where did Joanna travel to in July 2022?", ("2022-07-01", "2022-07-31", "month")),
    ("What did she read in February, 2024?", ("2024-02-01", "2024-02-29", "month")),
    ("Which tournament did Nate win in the beginning of November 2022?", ("2022-11-01", "2022-11-30", "month")),
    ("Where was she during the last week of August 2023?", ("2023-08-01", "2023-08-31", "month")),
    ("Was the first half of September 2022 a good month?", ("2022-09-01", "2022-09-30", "month")),
    ("Which country were they visiting in 2010?", ("2010-01-01", "2010-12-31", "year")),
    ("What did he organize during 2024?", ("2024-01-01", "2024-12-31", "year")),
    ("What changed in early 2021?", ("2021-01-01", "2021-12-31", "year")),
    ("What did they build in mid-2022?", ("2022-01-01", "2022-12-31", "year")),
    ("What did he do in the first half of 2022?", ("2022-01-01", "2022-12-31", "year")),
    ("What did we discuss in the summer of 2023?", ("2023-06-01", "2023-08-31", "season")),
    ("In what country was Jolene during summer 2022?", ("2022-06-01", "2022-08-31", "season")),
    ("What did she plant in spring 2021?", ("2021-03-01", "2021-05-31", "season")),
    ("Where did they go in the fall of 2020?", ("2020-09-01", "2020-11-30", "season")),
    ("Where was John between August 11 and August 15 2023?", ("2023-08-11", "2023-08-15", "range")),
    ("Where was John between August 11 and 15, 2023?", ("2023-08-11", "2023-08-15", "range")),
    ("What happened between 11 and 15 August 2023?", ("2023-08-11", "2023-08-15", "range")),
    ("What happened from 28 July to 2 August 2023?", ("2023-07-28", "2023-08-02", "range")),
])
def test_absolute_dates_and_periods(question, expected):
    assert days(question) == expected


def test_absolute_dates_need_no_reference():
    assert days("What did she cook on 7 May 2023?", None) == ("2023-05-07", "2023-05-07", "day")
    assert days("Which country did they visit in 2010?", None) == ("2010-01-01", "2010-12-31", "year")


# ---------------------------------------------------------------------------- dates without a year
@pytest.mark.parametrize("question, expected", [
    ("When did Melanie go camping in June?", ("2023-06-01", "2023-06-30", "month")),
    ("What did she buy in October?", ("2023-10-01", "2023-10-31", "month")),  # the reference's own month
    ("What did she buy in December?", ("2022-12-01", "2022-12-31", "month")),  # not yet: last year's
    ("Which country was Tim visiting in the second week of November?", ("2022-11-01", "2022-11-30", "month")),
    ("What did we do on May 7th?", ("2023-05-07", "2023-05-07", "day")),
    ("What happened on 25 December?", ("2022-12-25", "2022-12-25", "day")),
    ("When did Caroline go to a pride parade during the summer?", ("2023-06-01", "2023-08-31", "season")),
    ("Where did they ski in the winter?", ("2022-12-01", "2023-02-28", "season")),
])
def test_dates_without_a_year_are_the_latest_begun_by_the_reference(question, expected):
    assert days(question) == expected


def test_dates_without_a_year_need_a_reference():
    assert question_span("When did Melanie go camping in June?", None) is None
    assert question_span("What did we do on May 7th?") is None


def test_29_february_without_a_year_is_the_latest_leap_day():
    assert days("What happened on 29 February?", date(2023, 10, 1)) == ("2020-02-29", "2020-02-29", "day")


# ---------------------------------------------------------------------------- periods anchored on a date
@pytest.mark.parametrize("question, expected", [
    ("Where was Tim in the week before 16 November 2023?", ("2023-11-09", "2023-11-16", "range")),
    ("What did John do the week before August 3, 2023 with his kids?", ("2023-07-27", "2023-08-03", "range")),
    ("What did Maria do last weekend before April 10, 2023?", ("2023-04-03", "2023-04-10", "range")),
    ("What did she do over the weekend before 4th October, 2023?", ("2023-09-27", "2023-10-04", "range")),
    ("What did they do on the Monday before July 24, 2023?", ("2023-07-17", "2023-07-24", "range")),
    ("What did they plan on the Saturday after October 28, 2023?", ("2023-10-28", "2023-11-04", "range")),
    ("What puppy did she get two weeks before August 11, 2023?", ("2023-07-28", "2023-08-11", "range")),
    ("What did he sign 3 days after 1 May 2023?", ("2023-05-01", "2023-05-04", "range")),
    ("What did he sign a month before 31 March 2023?", ("2023-02-28", "2023-03-31", "range")),
    ("What did he eat the day before 1 March 2024?", ("2024-02-29", "2024-03-01", "range")),
])
def test_a_period_anchored_on_a_day_runs_to_the_anchor(question, expected):
    assert days(question) == expected


# ---------------------------------------------------------------------------- relative to the reference
@pytest.mark.parametrize("question, expected", [
    ("What happened yesterday?", ("2023-10-19", "2023-10-19", "day")),
    ("What did I say today?", ("2023-10-20", "2023-10-20", "day")),
    ("What did I do last week?", ("2023-10-09", "2023-10-15", "week")),
    ("What did I do last weekend?", ("2023-10-14", "2023-10-15", "weekend")),
    ("What did I buy two months ago?", ("2023-08-01", "2023-08-31", "month")),
    ("Where did I go 3 weeks ago?", ("2023-09-25", "2023-10-01", "week")),
    ("What did Melanie see during their camping trip last year?", ("2022-01-01", "2022-12-31", "year")),
    ("What did we plant last summer?", ("2023-06-01", "2023-08-31", "season")),
    ("What happened last month?", ("2023-09-01", "2023-09-30", "month")),
    ("What did I start this year?", ("2023-01-01", "2023-12-31", "year")),
    ("Where did we eat last Friday?", ("2023-10-13", "2023-10-13", "day")),
])
def test_relative_expressions_resolve_against_the_reference(question, expected):
    assert days(question) == expected


def test_the_reference_may_be_a_date_or_a_datetime():
    assert question_span("What happened yesterday?", date(2023, 10, 20)) == question_span(
        "What happened yesterday?", REF)


def test_relative_expressions_need_a_reference():
    assert question_span("What did I do last week?") is None


def test_an_absolute_date_wins_over_a_relative_one():
    # "last Friday" is relative to the day named, not to the reference
    assert days("What did Joanna finish last Friday on 23 January, 2022?") == ("2022-01-23", "2022-01-23", "day")
    assert days("What was Tim's issue last week, as mentioned on November 6, 2023?") == (
        "2023-11-06", "2023-11-06", "day")


def test_a_period_holding_the_others_is_the_span():
    assert days("What did I buy on 7 May 2023, in May 2023?") == ("2023-05-01", "2023-05-31", "month")
    assert days("What did I buy on 7 May 2023, on 7 May 2023?") == ("2023-05-07", "2023-05-07", "day")


# ---------------------------------------------------------------------------- what stays unparsed
@pytest.mark.parametrize("question", [
    "When did she go, before her birthday?",
    "When did James meet Samantha?",
    "How long has she been painting?",
    "How long ago was Caroline's 18th birthday?",
    "What year did John start surfing?",
    "Which month was John in Italy?",
    "When did James try Cyberpunk 2077 game?",  # a number, not a year
    "What are Caroline's plans for the summer?",  # plans for: not when they were made
    "What aspect of autumn does Andrew find beautiful?",
    "May I ask how you are?",  # the verb, not the month
    "What did she say in may?",  # months only with their capital
    "How many pets will Andrew have, as of December 2023?",  # bounds, not periods
    "How many tournaments has Nate won by July 10, 2022?",
    "What has she done since 2020?",
    "What happened before May 2023?",
    "What happened after 7 May 2023?",
    "What did she do until last week?",
    "Where did Caroline move from 4 years ago?",
    "What changed between May 2022 and July 2022?",
    "What did I buy in May 2022 or in June 2023?",  # two periods, neither holding the other
    "What happened on 31 April 2023?",  # not a date
    "What did she finish a few days before 23 January, 2023?",  # too vague to anchor
    "What did I do a few weeks ago?",
    "Which of his family members visited him in the last year?",  # the past twelve months, not a year
    "What did they do in the winter of 2022?",  # Jan-Feb 2022 or Dec 2022-Feb 2023?
    "What happened in the 1990s?",
    "",
])
def test_what_is_not_a_calendar_period_stays_unparsed(question):
    assert question_span(question, REF) is None


# ---------------------------------------------------------------------------- the result and bad input
def test_the_span_says_where_it_was_read_and_what_it_holds():
    span = question_span("Where did Joanna travel to in July 2022?", REF)
    assert span == QuestionSpan(date(2022, 7, 1), date(2022, 7, 31), "month", "July 2022")
    assert span.granularity in GRANULARITIES
    assert span.contains(date(2022, 7, 31)) and span.contains(datetime(2022, 7, 1, 0, 0, tzinfo=timezone.utc))
    assert not span.contains(date(2022, 8, 1)) and not span.contains(datetime(2022, 6, 30, 23, 59))


@pytest.mark.parametrize("question, reference", [(None, REF), (b"in May 2023", REF), ("in May", "2023-10-20")])
def test_bad_input_raises_invalid_input(question, reference):
    with pytest.raises(InvalidInputError):
        question_span(question, reference)
