"""Dates, at the base of the package (they import nothing of cbmemory but its errors):

- ``instants``: event times parsed to UTC (ISO 8601, LoCoMo's and LongMemEval's forms), their labels;
- ``relative``: relative expressions ("yesterday", "last week") found in a text and resolved against the
  day it was said, by versioned rule tables (``rule_tables``; ``spans``: the calendar arithmetic; ``guards``:
  where a rule version leaves a match alone);
- ``questions``: the calendar period a question names, if any.

The names most code needs are re-exported here."""

from .instants import MAX_INSTANT, MIN_INSTANT, anchor_label, iso, to_utc, utcnow
from .questions import QuestionSpan, question_span
from .relative import (
    DATE_RULES,
    LATEST_DATE_RULES,
    RULE_TABLES,
    DateSpan,
    RelativeDate,
    UnknownDateRulesError,
    check_date_rules,
    date_resolver,
    find_relative_dates,
    resolve_expression,
    resolve_relative_dates,
)

__all__ = [
    "DATE_RULES", "LATEST_DATE_RULES", "MAX_INSTANT", "MIN_INSTANT", "RULE_TABLES", "DateSpan", "QuestionSpan",
    "RelativeDate", "UnknownDateRulesError", "anchor_label", "check_date_rules", "date_resolver",
    "find_relative_dates", "iso", "question_span", "resolve_expression", "resolve_relative_dates", "to_utc",
    "utcnow",
]
