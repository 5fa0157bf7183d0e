"""Unit layer (dates, context; issue 24 item 3): no date is resolved twice. Text that already carries the date
an expression means — the context stage's own form, copied back by a model into its reply, stored, and
shown again weeks later — is never resolved again: rendered, fed back as a new turn dated later and
rendered again, no phrase gains a second date."""

import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory.context import memory_line
from cbmemory.dates import find_relative_dates
from cbmemory.models import MemoryRecord

FRI_5_MAY = datetime(2023, 5, 5, 18, 0, tzinfo=timezone.utc)
PHRASES = ["yesterday", "today", "tomorrow", "last week", "next week", "two days ago", "last Friday",
           "this weekend", "last month", "next summer", "a few days ago", "the week before last",
           "later this month", "in 3 weeks", "last night", "this morning", "the day after tomorrow"]
# a bracketed date right after a bracketed date: what a second resolution of the same phrase looks like
DOUBLE = re.compile(r"[\])]\s*\[[^\]]*\d{4}[^\]]*\]")


def record(text: str, when: datetime) -> MemoryRecord:
    return MemoryRecord("r", "u", "s", "turn", 0, "assistant", text, text, when, when, "h", turn_id="t")


def said(line: str) -> str:
    # the text after "[date] speaker: " or "speaker: ", before " [said date]" (the default layout, session_last)
    text = line.split(": ", 1)[1]
    return re.sub(r" \[said [^\]]*\]$", "", text)


def test_a_reply_that_copied_a_resolved_date_is_shown_with_that_date_only():
    first = said(memory_line(record("I adopted a puppy yesterday, her name is Biscuit.", FRI_5_MAY)))
    assert first == "I adopted a puppy yesterday [Thursday, 4 May 2023], her name is Biscuit."
    reply = f"You said: {first}"  # the agent's reply restates the memory as it read it
    again = said(memory_line(record(reply, FRI_5_MAY + timedelta(days=14))))
    assert again == "You said: I adopted a puppy yesterday (Thursday, 4 May 2023), her name is Biscuit."
    assert find_relative_dates(first, FRI_5_MAY + timedelta(days=14)) == []


def test_ingests_form_and_every_label_kind_count_as_resolved():
    later = FRI_5_MAY + timedelta(days=30)
    for text in ("I moved yesterday [= 6 May 2023].", "We met last week [week of 1 May 2023].",
                 "Back next summer (summer 2024).", "See you this weekend [weekend of 6–7 May 2023]!",
                 "It was a few weeks ago [a few weeks before 5 May 2023]."):
        assert find_relative_dates(text, later) == [], text


def test_a_bracket_without_a_date_does_not_count():
    assert [f.expression for f in find_relative_dates("yesterday (2 pm) was fun", FRI_5_MAY)] == ["yesterday"]


_FILLER = st.sampled_from(["I", "we met", "she said", "and then", "really", "at the park", ",", ".", "ok"])


@pytest.mark.heavy
@settings(max_examples=300, deadline=None)
@given(words=st.lists(st.one_of(st.sampled_from(PHRASES), _FILLER), min_size=1, max_size=12),
       gap=st.integers(min_value=1, max_value=400), hours=st.integers(min_value=0, max_value=23))
def test_a_rendered_text_fed_back_later_gains_no_second_date(words, gap, hours):
    first_day = FRI_5_MAY.replace(hour=hours)
    first = said(memory_line(record(" ".join(words), first_day)))
    again = said(memory_line(record(first, first_day + timedelta(days=gap))))
    assert not DOUBLE.search(again), (first, again)
    # and what was resolved the first time is shown with its one date, as it was
    assert again.count("(") >= first.count("[")
