"""Unit layer (cbmemory.context), issue 30: where a memory's dates go (``ContextConfig.layout``). Each layout's
line for the issue's example, how the reader is told to read it, and the context stage's guarantees in every
layout: one line per memory, brackets only from cbmemory, the session date on every dated line."""

from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory import InvalidInputError
from cbmemory.context import ContextConfig, answer_messages, format_context, header, memory_line
from cbmemory.context.config import LAYOUTS
from cbmemory.models import Hit, MemoryRecord

SAT_8_MARCH = datetime(2025, 3, 8, 10, tzinfo=timezone.utc)
PUPPY = "I adopted a puppy last week and yesterday we went to the vet."


def hit(text: str, speaker: str | None = "user") -> Hit:
    r = MemoryRecord("r0", "u", "s1", "turn", 0, "user", text, text, SAT_8_MARCH, SAT_8_MARCH, "h", "t0", speaker)
    return Hit(r, 1.0)


@pytest.mark.parametrize(("layout", "line"), [
    ("session_first", "[Saturday, 8 March 2025] user: I adopted a puppy last week [week of 24 February 2025] and "
                      "yesterday [Friday, 7 March 2025] we went to the vet."),
    ("resolved_first", "[week of 24 February 2025; Friday, 7 March 2025; said Saturday, 8 March 2025] user: I "
                       "adopted a puppy last week and yesterday we went to the vet."),
    ("replace", "[Saturday, 8 March 2025] user: I adopted a puppy [week of 24 February 2025] and [Friday, 7 March "
                "2025] we went to the vet."),
    ("session_last", "user: I adopted a puppy last week [week of 24 February 2025] and yesterday [Friday, 7 March "
                     "2025] we went to the vet. [said Saturday, 8 March 2025]"),
])
def test_each_layout_places_the_dates_its_own_way(layout, line):
    assert memory_line(hit(PUPPY), ContextConfig(layout=layout)) == line


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_memory_without_relative_dates_starts_with_its_session_date_in_every_layout(layout):
    assert memory_line(hit("I love dogs."), ContextConfig(layout=layout)) == "[Saturday, 8 March 2025] user: I love dogs."


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_reader_is_told_how_to_read_its_layout(layout):
    config = ContextConfig(layout=layout)
    (_, system), (_, user) = answer_messages("When?", format_context([hit(PUPPY)], config).text, SAT_8_MARCH,
                                             config)
    assert user.startswith(header(config))
    assert ("said" in system) == (layout in ("resolved_first", "session_last"))
    assert system.endswith("Today is Saturday, 8 March 2025.")


def test_a_layout_is_checked_and_round_trips():
    with pytest.raises(InvalidInputError, match="layout"):
        ContextConfig(layout="sideways")
    config = ContextConfig(layout="replace")
    assert ContextConfig.from_dict(config.to_dict()) == config
    assert ContextConfig.from_dict({"dates": True}).layout == ContextConfig().layout  # stamped before layouts


@pytest.mark.heavy
@settings(max_examples=150, deadline=None)
@given(text=st.text(min_size=1, max_size=200).map(lambda t: t + " yesterday, last week"),
       speaker=st.one_of(st.none(), st.text(min_size=1, max_size=30)))
def test_every_layout_keeps_one_line_and_only_cbmemory_brackets(text, speaker):
    for layout in LAYOUTS:
        line = memory_line(hit(text, speaker), ContextConfig(layout=layout))
        assert "\n" not in line and len(line.splitlines()) == 1
        assert "said Saturday, 8 March 2025]" in line or line.startswith("[Saturday, 8 March 2025] ")
        # every "[" is a date cbmemory wrote (or its cut mark): none comes from the text or the speaker
        opened = [part.split("]", 1)[0] for part in line.split("[")[1:]]
        assert all(any(ch.isdigit() for ch in part) for part in opened)
