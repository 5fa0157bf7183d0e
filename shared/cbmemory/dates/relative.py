"""Rule-based, LLM-free resolution of relative dates against the session date.

"I went to the museum yesterday", said on Sunday 7 May 2023, is indexed as
``I went to the museum yesterday [= 6 May 2023]``: the raw text is kept and the absolute date is added
next to the expression, so that a search for "6 May" finds the turn and a reader months later does not
resolve "yesterday" against its own clock (REFERENCE.md section 2, the failure mode of temporal anchoring).

Ingest names the rules by version, ``IngestConfig(date_rules="rules-v1")`` (``DATE_RULES`` maps a version to
its resolver; it rewrites only the indexed text), so a config stays plain data. Call
``find_relative_dates`` / ``resolve_expression`` for the structured spans; their keyword ``rules`` names
the version (default ``LATEST_DATE_RULES``; an unknown one raises ``UnknownDateRulesError``).

What each rules version resolves, and to what, is in ``cbmemory.dates.rule_tables``: one table a version
(``RULE_TABLES``), which never changes once released, with its conventions (English, ISO weeks from Monday to
Sunday, northern-hemisphere meteorological seasons) and what no version resolves, on purpose.

A fix in every version (issue 22): the rules are ASCII, matched in any case, and Unicode case folding took
look-alike letters for theirs ("laſt week", long s; "thıs week", dotless i; "weeK", Kelvin sign; "İn"):
the resolvers' look-ups raised KeyError, and "laſt May" was read as *next* May. A match is now a phrase
only if it is ASCII; a look-alike letter or another script's digit ("٣ days ago") is not the phrase and
is left as written. Such text was never stored resolved where it raised; where it did not, it was
resolved by accident and no longer is ("yeſterday", "last weeK", "٣ days ago" stay as written in
rules-v1 and rules-v2 too). A resolver that cannot read its words (``LookupError``) leaves them alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from types import MappingProxyType

from ..errors import InvalidInputError
from .prescreen import alternatives, mentions_time
from .rule_tables import (
    LATEST_DATE_RULES,
    RULE_GUARDS,
    RULE_TABLES,
    RULES,
    RULES_V1,
    RULES_V2,
    RULES_V3,
    Guard,
    Rule,
)
from .spans import GRANULARITIES, DateSpan, add_months


@dataclass(frozen=True, slots=True)
class RelativeDate:
    """One relative expression found in a text: where it is (``start``/``end`` character offsets), the
    words as written, and the span it resolves to."""

    expression: str
    start: int
    end: int
    span: DateSpan




class UnknownDateRulesError(InvalidInputError):
    """A rules version (``IngestConfig.date_rules``, or ``rules=``) that is not in ``DATE_RULES``."""


def check_date_rules(version: str) -> str:
    """``version`` if it names a released rules version, else ``UnknownDateRulesError``."""
    if not isinstance(version, str) or version not in RULE_TABLES:
        raise UnknownDateRulesError(
            f"unknown date rules {version!r}; known versions: {', '.join(sorted(RULE_TABLES))}")
    return version


def _as_day(value: datetime | date) -> date:
    return value.date() if isinstance(value, datetime) else value


def find_relative_dates(text: str, session_date: datetime | date, *,
                        rules: str = LATEST_DATE_RULES) -> list[RelativeDate]:
    """Every relative expression in ``text``, resolved against ``session_date`` with the ``rules``
    version's table, left to right and non-overlapping (the longest match wins where two rules overlap)."""
    table = RULE_TABLES[check_date_rules(rules)]
    if not mentions_time(text) or alternatives(tuple(r.pattern for r in table)).search(text) is None:
        return []
    today = _as_day(session_date)
    found: list[tuple[int, int, Rule, re.Match[str]]] = []
    for rule in table:
        for m in rule.pattern.finditer(text):
            if m.group(0).isascii():  # else a look-alike letter ("laſt", "thıs") or digit ("٣"): not the phrase
                found.append((m.start(), -m.end(), rule, m))
    found.sort(key=lambda f: (f[0], f[1]))
    guard = RULE_GUARDS[rules](text) if found and rules in RULE_GUARDS else None
    out: list[RelativeDate] = []
    last_end = -1
    for start, neg_end, rule, m in found:
        if start < last_end:
            continue
        if guard is not None and guard(start, -neg_end):  # quoted, or a title (rules-v3 on): left as written,
            last_end = -neg_end                            # and nothing inside it is a date either
            continue
        try:
            span = rule.resolve(m, today)
        except (LookupError, OverflowError, ValueError):  # past the calendar's ends (year 1 or 9999), or
            continue                                      # words the rule cannot read: left unresolved
        if span is None:  # the rule declined (rules-v2 on): the words stay as said
            last_end = -neg_end
            continue
        out.append(RelativeDate(m.group(0), start, -neg_end, span))
        last_end = -neg_end
    return out


def resolve_expression(expression: str, session_date: datetime | date, *,
                       rules: str = LATEST_DATE_RULES) -> DateSpan | None:
    """The span of an expression that is *only* a relative date ("last Friday"), else ``None``."""
    text = expression.strip().rstrip(".").strip()
    found = find_relative_dates(text, session_date, rules=rules)
    if len(found) == 1 and found[0].start == 0 and found[0].end == len(text):
        return found[0].span
    return None


def resolve_relative_dates(text: str, session_date: datetime, *, rules: str = LATEST_DATE_RULES) -> str:
    """``text`` with ``[= <absolute date>]`` after every relative expression (the ingest hook; rewrites
    the indexed text only). Idempotent: an expression already followed by ``[=`` is left alone."""
    parts: list[str] = []
    pos = 0
    for found in find_relative_dates(text, session_date, rules=rules):
        if text[found.end:].lstrip(" ").startswith("[="):
            continue
        parts.append(text[pos:found.end])
        parts.append(f" [= {found.span.label}]")
        pos = found.end
    parts.append(text[pos:])
    return "".join(parts)


# ---------------------------------------------------------------------------- the registry, by version
DateResolver = Callable[[str, datetime], str]


def _indexer(version: str) -> DateResolver:
    """The ingest hook of one rules version (``resolve_relative_dates`` with ``rules`` fixed)."""
    def resolve(text: str, session_date: datetime) -> str:
        return resolve_relative_dates(text, session_date, rules=version)
    resolve.__name__ = resolve.__qualname__ = f"resolve_relative_dates[{version}]"
    return resolve


DATE_RULES: Mapping[str, DateResolver] = MappingProxyType({v: _indexer(v) for v in RULE_TABLES})


def date_resolver(version: str) -> DateResolver:
    """The resolver of a ``DATE_RULES`` version (``UnknownDateRulesError`` for an unknown one)."""
    return DATE_RULES[check_date_rules(version)]


__all__ = ["DATE_RULES", "GRANULARITIES", "LATEST_DATE_RULES", "RULES", "RULES_V1", "RULES_V2", "RULES_V3",
           "RULE_GUARDS", "RULE_TABLES", "DateResolver", "DateSpan", "Guard", "RelativeDate", "Rule",
           "UnknownDateRulesError", "add_months",
           "check_date_rules", "date_resolver", "find_relative_dates", "resolve_expression",
           "resolve_relative_dates"]
