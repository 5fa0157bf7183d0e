"""Unit layer: the rule-based relative-date resolver, table-driven (month ends, leap years, weekday and
ISO-week arithmetic, seasons), and its use as the ingest hook (indexed text only)."""

from datetime import date, datetime, timezone

import pytest

from cbmemory.dates.relative import (
    add_months,
    find_relative_dates,
    resolve_expression,
    resolve_relative_dates,
)
from cbmemory.ingest import IngestConfig, build_records, validate_messages

D = date  # brevity in the table

# (expression, session date, label written next to it)
TABLE = [
    # days
    ("yesterday", D(2023, 5, 7), "6 May 2023"),
    ("Yesterday", D(2023, 5, 7), "6 May 2023"),
    ("yesterday", D(2024, 3, 1), "29 February 2024"),  # leap year
    ("yesterday", D(2023, 3, 1), "28 February 2023"),
    ("yesterday", D(2024, 1, 1), "31 December 2023"),
    ("last night", D(2023, 5, 8), "7 May 2023"),
    ("today", D(2023, 5, 7), "7 May 2023"),
    ("tonight", D(2023, 5, 7), "7 May 2023"),
    ("this morning", D(2023, 5, 7), "7 May 2023"),
    ("tomorrow", D(2023, 12, 31), "1 January 2024"),
    ("tomorrow", D(2024, 2, 28), "29 February 2024"),
    ("tomorrow", D(2023, 2, 28), "1 March 2023"),
    ("the day before yesterday", D(2024, 3, 2), "29 February 2024"),
    ("the day after tomorrow", D(2024, 2, 28), "1 March 2024"),
    ("3 days ago", D(2023, 3, 2), "27 February 2023"),
    ("a couple of days ago", D(2023, 5, 7), "5 May 2023"),
    ("in 10 days", D(2023, 12, 25), "4 January 2024"),
    ("two days from now", D(2024, 2, 28), "1 March 2024"),
    # weeks (ISO, Monday first); 7 May 2023 is a Sunday, 1 January 2024 a Monday
    ("last week", D(2023, 5, 7), "week of 24 April 2023"),
    ("last week", D(2024, 1, 1), "week of 25 December 2023"),
    ("this week", D(2023, 5, 7), "week of 1 May 2023"),
    ("next week", D(2023, 5, 7), "week of 8 May 2023"),
    ("two weeks ago", D(2023, 5, 7), "week of 17 April 2023"),
    ("a week ago", D(2024, 1, 3), "week of 25 December 2023"),
    ("in 3 weeks", D(2023, 5, 7), "week of 22 May 2023"),
    # weekends
    ("last weekend", D(2023, 5, 8), "weekend of 6–7 May 2023"),  # Monday: the one just gone
    ("last weekend", D(2023, 5, 7), "weekend of 29–30 April 2023"),  # Sunday: the one before
    ("this weekend", D(2023, 5, 3), "weekend of 6–7 May 2023"),
    ("next weekend", D(2023, 5, 3), "weekend of 13–14 May 2023"),
    ("last weekend", D(2023, 10, 2), "weekend of 30 September–1 October 2023"),
    ("last weekend", D(2024, 1, 2), "weekend of 30–31 December 2023"),
    # weekdays: nearest strictly before / after; "this" = in the same ISO week
    ("last Friday", D(2023, 5, 7), "5 May 2023"),  # Sunday
    ("last Friday", D(2023, 5, 6), "5 May 2023"),  # Saturday
    ("last Friday", D(2023, 5, 5), "28 April 2023"),  # Friday: a week back, not today
    ("last Wednesday", D(2024, 3, 1), "28 February 2024"),
    ("last Thursday", D(2024, 3, 1), "29 February 2024"),
    ("next Monday", D(2023, 5, 7), "8 May 2023"),
    ("next Sunday", D(2023, 5, 7), "14 May 2023"),
    ("next friday", D(2023, 12, 30), "5 January 2024"),
    ("this Friday", D(2023, 5, 3), "5 May 2023"),
    # months, with month-end clamping underneath
    ("last month", D(2023, 1, 15), "December 2022"),
    ("last month", D(2023, 3, 31), "February 2023"),
    ("next month", D(2023, 12, 31), "January 2024"),
    ("next month", D(2024, 1, 31), "February 2024"),
    ("this month", D(2023, 5, 7), "May 2023"),
    ("a month ago", D(2024, 3, 31), "February 2024"),
    ("three months ago", D(2023, 2, 15), "November 2022"),
    ("2 months from now", D(2023, 12, 31), "February 2024"),
    ("last May", D(2023, 5, 7), "May 2022"),
    ("last March", D(2023, 5, 7), "March 2023"),
    ("next May", D(2023, 5, 7), "May 2024"),
    ("next June", D(2023, 5, 7), "June 2023"),
    # years, including 29 February
    ("last year", D(2023, 1, 1), "2022"),
    ("next year", D(2023, 12, 31), "2024"),
    ("a year ago", D(2024, 2, 29), "2023"),
    ("in a year", D(2024, 2, 29), "2025"),
    ("20 years ago", D(2023, 5, 7), "2003"),
    # seasons (meteorological, northern hemisphere)
    ("last summer", D(2023, 7, 15), "summer 2022"),  # in summer: the previous one
    ("last summer", D(2023, 9, 10), "summer 2023"),
    ("last winter", D(2023, 5, 7), "winter 2022–2023"),
    ("last winter", D(2023, 1, 15), "winter 2021–2022"),
    ("this winter", D(2023, 10, 1), "winter 2023–2024"),
    ("next summer", D(2023, 7, 15), "summer 2024"),
    ("next summer", D(2023, 5, 7), "summer 2023"),
    ("last fall", D(2023, 5, 7), "autumn 2022"),
    # vague on purpose
    ("a few weeks ago", D(2023, 5, 7), "a few weeks before 7 May 2023"),
]


@pytest.mark.parametrize(("expression", "session", "label"), TABLE, ids=[f"{e}@{s}" for e, s, _ in TABLE])
def test_expression_table(expression, session, label):
    span = resolve_expression(expression, session)
    assert span is not None, expression
    assert span.label == label
    assert span.start <= span.end


@pytest.mark.parametrize(("day", "months", "expected"), [
    (D(2023, 3, 31), -1, D(2023, 2, 28)),
    (D(2024, 3, 31), -1, D(2024, 2, 29)),
    (D(2024, 1, 31), 1, D(2024, 2, 29)),
    (D(2023, 12, 31), 2, D(2024, 2, 29)),
    (D(2024, 2, 29), 12, D(2025, 2, 28)),
    (D(2023, 5, 31), -12 * 3 - 1, D(2020, 4, 30)),
    (D(2023, 1, 15), -1, D(2022, 12, 15)),
])
def test_add_months_clamps_to_month_ends(day, months, expected):
    assert add_months(day, months) == expected


def test_spans_carry_exact_bounds():
    assert resolve_expression("a month ago", D(2024, 3, 31)).start == D(2024, 2, 1)
    week = resolve_expression("last week", D(2023, 5, 7))
    assert (week.start, week.end, week.granularity) == (D(2023, 4, 24), D(2023, 4, 30), "week")
    winter = resolve_expression("last winter", D(2024, 5, 1))
    assert (winter.start, winter.end) == (D(2023, 12, 1), D(2024, 2, 29))


@pytest.mark.parametrize("text", [
    "See you on Friday!", "I have been busy recently.", "I saw her the other day.", "Next, we talked.",
    "It was the last week of the semester.", "over the last year I grew", "my last year of college",
    "the last Friday of the month", "You next may be", "a few years back", "in a few days",
])
def test_ambiguous_or_non_date_phrases_are_left_alone(text):
    assert find_relative_dates(text, D(2023, 5, 7)) == []
    assert resolve_relative_dates(text, datetime(2023, 5, 7, tzinfo=timezone.utc)) == text


def test_annotates_every_expression_in_place_and_is_idempotent():
    when = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
    text = "I went to a LGBTQ support group yesterday, and last week I ran a 5k. Next month: Paris!"
    once = resolve_relative_dates(text, when)
    assert once == ("I went to a LGBTQ support group yesterday [= 6 May 2023], and last week [= week of "
                    "24 April 2023] I ran a 5k. Next month [= June 2023]: Paris!")
    assert resolve_relative_dates(once, when) == once
    found = find_relative_dates(text, when)
    assert [text[f.start:f.end] for f in found] == ["yesterday", "last week", "Next month"]


def test_longest_match_wins_where_rules_overlap():
    found = find_relative_dates("the day before yesterday", D(2023, 5, 7))
    assert len(found) == 1 and found[0].span.label == "5 May 2023"
    assert resolve_expression("not only yesterday", D(2023, 5, 7)) is None  # more than an expression


def test_as_ingest_hook_it_rewrites_the_index_text_only():
    msgs = validate_messages([{"role": "user", "content": "I went to the museum yesterday.", "speaker": "Caroline",
                               "turn_id": "D1:3"}])
    when = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
    cfg = IngestConfig(date_rules="rules-v1")
    r = build_records("u", "s", msgs, when, when, config=cfg)[0]
    assert r.text == "I went to the museum yesterday."
    assert r.index_text == "[Sunday, 7 May 2023] Caroline: I went to the museum yesterday [= 6 May 2023]."
    assert cfg.key.endswith("dates=rules-v1")


def test_expressions_past_the_calendars_ends_stay_unresolved():
    """No OverflowError or ValueError for a session at either end of the calendar: what would fall past
    it is left as said, what fits is still resolved."""
    late = resolve_relative_dates("next year, and yesterday", datetime(9999, 12, 30, tzinfo=timezone.utc))
    assert late.startswith("next year, and yesterday [= ") and late.count("[= ") == 1
    early = resolve_relative_dates("two weeks ago, and tomorrow", datetime(1, 1, 2, tzinfo=timezone.utc))
    assert early.startswith("two weeks ago, and tomorrow [= ") and early.count("[= ") == 1


def test_rules_are_named_by_version_and_an_unknown_one_is_refused():
    from cbmemory.dates.relative import LATEST_DATE_RULES, RULE_TABLES, UnknownDateRulesError

    assert LATEST_DATE_RULES in RULE_TABLES
    assert find_relative_dates("yesterday", D(2023, 5, 7), rules="rules-v1")[0].span.label == "6 May 2023"
    assert resolve_expression("last week", D(2023, 5, 7), rules="rules-v1").label == "week of 24 April 2023"
    for call in (lambda: find_relative_dates("yesterday", D(2023, 5, 7), rules="rules-v0"),
                 lambda: resolve_expression("yesterday", D(2023, 5, 7), rules="v1")):
        with pytest.raises(UnknownDateRulesError, match="known versions"):
            call()
