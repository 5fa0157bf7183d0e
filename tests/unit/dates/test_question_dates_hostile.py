"""Unit layer: ``question_span`` on hostile questions (issue 22, break 1). Its patterns are matched in any
case, and Unicode case folding took look-alike letters for ASCII ones ("in the ſummer of 2023", "ſix
weeks before 16 November 2023", "what did I do laſt week?"), so the table look-ups raised KeyError. A
date form is now read only from ASCII words and digits (spaces of any kind between them); a look-alike is
not the word, and a form that cannot be read gives no span. Properties over arbitrary Unicode text and over
the date forms with look-alike letters."""

from datetime import date, datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory.dates import questions as question_dates
from cbmemory.dates.questions import question_span
from tests.support.lookalikes import LOOK_ALIKE_CHARS, with_look_alikes

REF = date(2023, 10, 20)  # a Friday

# One phrase for each date form of the module, and the relative expressions it hands to the ingest rules
FORMS = (
    "on 7 May 2023", "on May 7th, 2023", "on 2023-05-07", "in July 2022", "in 2022", "in the summer of 2023",
    "summer 2022", "between August 11 and 15, 2023", "from 11 to 15 August 2023", "on May 7th", "in May",
    "during the spring", "in early 2021", "the first week of August 2023", "six weeks before 16 November 2023",
    "the week before 16 November 2023", "the Saturday after October 28, 2023", "two days before 7 May 2023",
    "a couple of days before 7 May 2023", "a few days before 7 May 2023", "since 2020", "as of December 2023",
    "last week", "two months ago", "last summer", "this year", "yesterday", "in the fall",
)
QUESTIONS = ("What did Caroline do {}?", "{}, where was she?", "When, {}, did it happen?", "{}")


def _no_look_alike(span) -> None:
    assert span is None or not set(span.expression) & LOOK_ALIKE_CHARS


@pytest.mark.parametrize("question", [
    "what did I do laſt week?", "What did we discuss in the ſummer of 2023?", "in the ſpring",
    "What did she do ſix weeks before 16 November 2023?", "What happened thıs year?",
    "a couple of dayſ before 7 May 2023", "WHAT HAPPENED İN 2022?", "What happened in ſummer 2022?",
])
def test_look_alike_letters_never_raise_and_are_not_read(question):
    span = question_span(question, REF)
    _no_look_alike(span)


@pytest.mark.parametrize(("question", "expected"), [
    # a look-alike in the anchor's count: not an anchored period; "before" then makes the date a bound
    ("What did she do ſix weeks before 16 November 2023?", None),
    ("What did we discuss in the ſummer of 2023?", None),  # not a season: "of 2023" alone is not a date
    ("What did I do laſt week?", None),
    ("What happened in ٢٠٢٢?", None),  # a year in another script's digits is not read
    ("What happened on 7 May ٢٠٢٣?", None),  # a year is there, unread: the day is not read without it
    ("What did we discuss in the summer of 2023?", (date(2023, 6, 1), date(2023, 8, 31))),  # ASCII: as before
])
def test_a_look_alike_is_not_the_word(question, expected):
    span = question_span(question, REF)
    assert (None if span is None else (span.start, span.end)) == expected


def test_a_form_that_cannot_be_read_gives_no_span(monkeypatch):
    import re

    def broken(m, today):
        return {"known": None}[m.group(0)]  # KeyError, as the table look-ups raised

    form = question_dates._Form("day", re.compile(r"\bmuseum\b"), broken)
    monkeypatch.setattr(question_dates, "_FORMS", (form, *question_dates._FORMS))
    assert question_span("What did she see at the museum?", REF) is None


@settings(max_examples=200, deadline=None)
@given(question=st.one_of(
           st.text(max_size=200),
           st.tuples(st.text(max_size=40), st.sampled_from(FORMS), st.text(max_size=40)).map("".join)),
       reference=st.one_of(st.none(), st.dates(), st.datetimes(timezones=st.just(timezone.utc))))
def test_arbitrary_unicode_questions_never_raise(question, reference):
    span = question_span(question, reference)
    assert span is None or span.start <= span.end


@pytest.mark.heavy
@settings(max_examples=200, deadline=None)
@given(pair=with_look_alikes(FORMS), template=st.sampled_from(QUESTIONS),
       reference=st.one_of(st.none(), st.just(REF), st.dates()))
def test_date_forms_with_look_alike_letters_never_raise_and_are_never_read(pair, template, reference):
    _, written = pair
    span = question_span(template.format(written), reference)
    _no_look_alike(span)
    assert span is None or span.start <= span.end


def test_every_form_here_is_read_as_written():
    # the other side of the properties: the phrases are dates (or bounds) when written in ASCII
    read = [f for f in FORMS if question_span(f"What happened {f}?", datetime(2023, 10, 20)) is not None]
    assert len(read) >= len(FORMS) - 4  # the bounds and the vague anchor give no span, on purpose
