"""Unit layer (retrieval.context): the answer prompt says what day it is, and can be told not to."""

from datetime import datetime, timezone

from cbmemory.retrieval.context import answer_messages


def test_answer_prompt_says_today_and_can_be_switched_off():
    day = datetime(2023, 7, 1, tzinfo=timezone.utc)
    with_today = answer_messages("When?", "ctx", day)
    assert "Today is Saturday, 1 July 2023." in with_today[0][1]
    assert "Today is" not in answer_messages("When?", "ctx", day, say_today=False)[0][1]
