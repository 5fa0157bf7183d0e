"""Unit layer: rules-v2 of the relative-date resolver (each new rule, the rules it declines), and rules-v1
staying exactly as released (pinned outputs) now that v2 is out (and rules-v3 the latest)."""

from datetime import date, datetime, timezone

import pytest

from cbmemory.dates.relative import (
    RULE_TABLES,
    RULES_V1,
    find_relative_dates,
    resolve_expression,
    resolve_relative_dates,
)
from cbmemory.ingest import DATE_RULES, LATEST_DATE_RULES

D = date  # brevity in the tables
# 7 May 2023 is a Sunday, 8 May a Monday, 10 May a Wednesday, 13 May a Saturday.

# (expression, session day, first day, last day, label)
V2_TABLE = [
    # abbreviated weekdays, capitalised
    ("last Fri", D(2023, 7, 15), D(2023, 7, 14), D(2023, 7, 14), "14 July 2023"),
    ("Last Fri", D(2023, 4, 10), D(2023, 4, 7), D(2023, 4, 7), "7 April 2023"),
    ("next Tues", D(2023, 5, 7), D(2023, 5, 9), D(2023, 5, 9), "9 May 2023"),
    ("last Thurs", D(2024, 3, 1), D(2024, 2, 29), D(2024, 2, 29), "29 February 2024"),
    ("this Sat", D(2023, 5, 10), D(2023, 5, 13), D(2023, 5, 13), "13 May 2023"),
    # "past" for "last"
    ("this past Saturday", D(2023, 5, 8), D(2023, 5, 6), D(2023, 5, 6), "6 May 2023"),
    ("past Saturday", D(2023, 5, 6), D(2023, 4, 29), D(2023, 4, 29), "29 April 2023"),  # a Saturday
    ("this past weekend", D(2023, 5, 8), D(2023, 5, 6), D(2023, 5, 7), "weekend of 6–7 May 2023"),
    ("the past weekend", D(2023, 5, 12), D(2023, 5, 6), D(2023, 5, 7), "weekend of 6–7 May 2023"),
    # N weekends ago: the weekend of the ISO week 7N days back
    ("two weekends ago", D(2023, 5, 8), D(2023, 4, 29), D(2023, 4, 30), "weekend of 29–30 April 2023"),
    ("a weekend ago", D(2023, 5, 10), D(2023, 5, 6), D(2023, 5, 7), "weekend of 6–7 May 2023"),
    ("a couple of weekends ago", D(2024, 1, 3), D(2023, 12, 23), D(2023, 12, 24), "weekend of 23–24 December 2023"),
    # ... before last
    ("the week before last", D(2023, 5, 7), D(2023, 4, 17), D(2023, 4, 23), "week of 17 April 2023"),
    ("the weekend before last", D(2023, 5, 8), D(2023, 4, 29), D(2023, 4, 30), "weekend of 29–30 April 2023"),
    ("the month before last", D(2023, 3, 31), D(2023, 1, 1), D(2023, 1, 31), "January 2023"),
    ("the year before last", D(2024, 2, 29), D(2022, 1, 1), D(2022, 12, 31), "2022"),
    # later / earlier this ...
    ("later this month", D(2023, 5, 20), D(2023, 5, 21), D(2023, 5, 31), "21–31 May 2023"),
    ("earlier this month", D(2024, 3, 2), D(2024, 3, 1), D(2024, 3, 1), "1 March 2024"),
    ("later this week", D(2023, 5, 10), D(2023, 5, 11), D(2023, 5, 14), "11–14 May 2023"),
    ("earlier this week", D(2023, 5, 7), D(2023, 5, 1), D(2023, 5, 6), "1–6 May 2023"),
    ("earlier this year", D(2023, 3, 1), D(2023, 1, 1), D(2023, 2, 28), "1 January–28 February 2023"),
    ("later this year", D(2023, 11, 30), D(2023, 12, 1), D(2023, 12, 31), "1–31 December 2023"),
    # "a couple" without "of"
    ("a couple days ago", D(2023, 3, 1), D(2023, 2, 27), D(2023, 2, 27), "27 February 2023"),
    ("a couple weeks ago", D(2023, 5, 7), D(2023, 4, 17), D(2023, 4, 23), "week of 17 April 2023"),
    ("in a couple months", D(2023, 12, 31), D(2024, 2, 1), D(2024, 2, 29), "February 2024"),
    # a few ... ago: every "N ... ago" for N from 2 to 6, labelled as in v1
    ("a few days ago", D(2023, 5, 8), D(2023, 5, 2), D(2023, 5, 6), "a few days before 8 May 2023"),
    ("a few weeks ago", D(2023, 5, 7), D(2023, 3, 20), D(2023, 4, 23), "a few weeks before 7 May 2023"),
    ("a few months ago", D(2024, 3, 31), D(2023, 9, 1), D(2024, 1, 31), "a few months before 31 March 2024"),
    ("a few years ago", D(2023, 5, 7), D(2017, 1, 1), D(2021, 12, 31), "a few years before 7 May 2023"),
]


@pytest.mark.parametrize(("expression", "session", "first", "last", "label"), V2_TABLE,
                         ids=[f"{e}@{s}" for e, s, *_ in V2_TABLE])
def test_v2_expression_table(expression, session, first, last, label):
    span = resolve_expression(expression, session, rules="rules-v2")
    assert span is not None, expression
    assert (span.start, span.end, span.label) == (first, last, label)


def test_v2_is_a_released_version_with_every_v1_row():
    # rules-v3 is the latest since issue 22 (tests/unit/dates/test_relative_dates_v3.py)
    assert {"rules-v1", "rules-v2"} <= set(DATE_RULES) == set(RULE_TABLES) and LATEST_DATE_RULES != "rules-v1"
    assert resolve_expression("last Fri", D(2023, 7, 15), rules="rules-v2") == resolve_expression(
        "last Fri", D(2023, 7, 15), rules=LATEST_DATE_RULES)
    # every v1 row has a v2 row of the same name; the day rows are the very same objects
    v2 = RULE_TABLES["rules-v2"]
    assert {r.name for r in RULES_V1} <= {r.name for r in v2}
    assert all(r in v2 for r in RULES_V1 if r.name in {"yesterday", "today", "tomorrow"})


@pytest.mark.parametrize(("text", "v1", "v2"), [
    ("go somewhere together next year", [], ["2024"]),  # v1 read "...her next year" as "her next year"
    ("the economy last year", [], ["2022"]),
    ("met another last Friday", [], ["5 May 2023"]),
    ("this last year has been hard", [], []),  # a duration: "this" joins the owner words in v2
    ("your last week of school", [], []),
    ("that last weekend together", ["weekend of 6–7 May 2023"], []),  # v1 reads a date here, v2 not
    ("her next year of college", [], []),
])
def test_v2_reads_owner_words_as_whole_words(text, v1, v2):
    for rules, expected in (("rules-v1", v1), ("rules-v2", v2)):
        assert [f.span.label for f in find_relative_dates(text, D(2023, 5, 10), rules=rules)] == expected, rules


@pytest.mark.parametrize(("text", "session"), [
    ("this past weekend", D(2023, 5, 6)),  # Saturday: the weekend under way, or the one before?
    ("this past weekend", D(2023, 5, 7)),  # Sunday
    ("later this week", D(2023, 5, 7)),  # Sunday: no day of the week is left
    ("earlier this week", D(2023, 5, 8)),  # Monday: none has gone
    ("later this month", D(2023, 5, 31)),
    ("earlier this year", D(2023, 1, 1)),
])
def test_v2_declines_where_no_span_is_right_and_tries_nothing_shorter(text, session):
    assert find_relative_dates(text, session, rules="rules-v2") == []  # not even "this week" inside


@pytest.mark.parametrize("text", [
    "I saw her the week before.", "the day before, we packed", "in a few days", "over the past week",
    "I'll call you soon", "Things have been tough lately.", "since we last talked", "the sun was out last",
    "the last Fri of the month", "We fri the fish.", "their past weekend plans were different",
])
def test_v2_leaves_ambiguous_and_non_date_phrases_alone(text):
    assert find_relative_dates(text, D(2023, 5, 10), rules="rules-v2") == []


def test_v1_still_resolves_exactly_as_released():
    """Outputs of rules-v1 pinned as released (stored index texts were made with them)."""
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)  # a Monday
    pinned = {
        "I went to a LGBTQ support group yesterday and last Fri, a few days ago.":
            "I went to a LGBTQ support group yesterday [= 7 May 2023] and last Fri, a few days ago "
            "[= a few days before 8 May 2023].",
        "Later this month, two weekends ago, this past weekend, a couple weeks ago.":
            "Later this month [= May 2023], two weekends ago, this past weekend, a couple weeks ago.",
        "the week before last, next Friday and last summer":
            "the week before last, next Friday [= 12 May 2023] and last summer [= summer 2022]",
    }
    for text, expected in pinned.items():
        assert resolve_relative_dates(text, when, rules="rules-v1") == expected
        assert DATE_RULES["rules-v1"](text, when) == expected
    # v1's vague span for "a few days ago" is [session - 3 days, session]; v2's is 2 to 6 days back
    v1 = resolve_expression("a few days ago", when, rules="rules-v1")
    v2 = resolve_expression("a few days ago", when, rules="rules-v2")
    assert (v1.start, v1.end) == (D(2023, 5, 5), D(2023, 5, 8))
    assert (v2.start, v2.end) == (D(2023, 5, 2), D(2023, 5, 6)) and v1.label == v2.label


def test_v2_rewrites_the_index_text_with_its_new_rules():
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    text = "Later this month, two weekends ago, this past weekend, a couple weeks ago."
    assert DATE_RULES["rules-v2"](text, when) == (
        "Later this month [= 9–31 May 2023], two weekends ago [= weekend of 29–30 April 2023], this past "
        "weekend [= weekend of 6–7 May 2023], a couple weeks ago [= week of 24 April 2023].")
