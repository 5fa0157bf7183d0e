"""Unit layer (cbmemory.context), issue 22 breaks 1 and 9 seen where they hurt: the reader's context. A memory
with look-alike letters in a relative date ("laſt week") made rendering raise KeyError and so failed the
whole recall; a quoted title ("Yesterday" by the Beatles) was shown with a date after it. Properties over
arbitrary memory texts, through ``memory_line`` and ``format_context``, in every reading and rules version."""

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory.context import READINGS, ContextConfig, format_context, memory_line
from cbmemory.dates.relative import RULE_TABLES
from cbmemory.models import Hit, MemoryRecord
from tests.support.lookalikes import with_look_alikes

MON_8_MAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
PHRASES = ("last week", "this Friday", "two weeks ago", "a couple of days ago", "next summer",
           "the week before last", "later this month", "yesterday", "this past weekend", "in six months",
           "last May", "a few days ago", "tonight")
CONFIGS = (*READINGS.values(), *(ContextConfig(date_rules=v) for v in sorted(RULE_TABLES)))


def hit(text: str, when: datetime = MON_8_MAY, pos: int = 0) -> Hit:
    r = MemoryRecord(f"r{pos}", "u", "s1", "turn", pos, "user", text, text, when, when, "h", turn_id=f"t{pos}",
                     speaker="Caroline")
    return Hit(r, 1.0 / (pos + 1))


def _memory_texts() -> st.SearchStrategy[str]:
    alike = with_look_alikes(PHRASES).map(lambda pair: pair[1])
    phrase = st.one_of(st.sampled_from(PHRASES), alike, alike.map(lambda p: f'"{p}"'))
    around = st.tuples(st.text(max_size=60), phrase, st.text(max_size=60)).map(" ".join)
    return st.one_of(st.text(max_size=300), around, st.lists(phrase, min_size=1, max_size=4).map(" and ".join))


@pytest.mark.heavy
@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_memory_texts(), min_size=1, max_size=3),
       when=st.one_of(st.just(MON_8_MAY), st.datetimes(timezones=st.just(timezone.utc))))
def test_any_memory_text_renders_in_every_reading_and_version(texts, when):
    hits = [hit(t, when, pos) for pos, t in enumerate(texts)]
    for config in CONFIGS:
        for h in hits:
            line = memory_line(h, config)
            assert "\n" not in line
        ctx = format_context(hits, config)
        assert len(ctx.text.split("\n")) == len(hits) + 1  # the header, then one line per memory


def test_the_reported_memories_render():
    for text in ("I adopted a puppy laſt week", "thıs week was long", "ſix days ago"):
        assert memory_line(hit(text)).endswith(f"Caroline: {text}")  # shown as written, no date, no error
    line = memory_line(hit('my favourite song is "Yesterday" by the Beatles'))
    assert line == '[Monday, 8 May 2023] Caroline: my favourite song is "Yesterday" by the Beatles'
