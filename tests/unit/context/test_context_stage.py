"""Unit layer (cbmemory.context): what the answering model reads — the line format, the date prefix, relative
dates resolved in place (stored text untouched), "Today is", the answer instructions, the one token-budget
rule, and the config's validation and JSON round trip."""

from datetime import datetime, timezone

import pytest

from cbmemory import InvalidInputError
from cbmemory.context import (
    READINGS,
    ContextConfig,
    answer_messages,
    context_tokens,
    count_tokens,
    fit,
    format_context,
    header,
    line_tokens,
    memory_line,
    memory_prompt,
)
from cbmemory.dates.relative import UnknownDateRulesError
from cbmemory.models import Hit, MemoryRecord

MON_8_MAY = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)


def hit(text: str, when: datetime = MON_8_MAY, *, pos: int = 0, speaker: str | None = "Caroline",
        session: str = "s1") -> Hit:
    r = MemoryRecord(f"r{pos}-{session}", "u", session, "turn", pos, "user", text, text, when, when, "h",
                     turn_id=f"t{pos}", speaker=speaker)
    return Hit(r, 1.0 / (pos + 1))


def test_the_default_dates_each_memory_and_resolves_relative_dates_in_place():
    h = hit("I went to the LGBTQ support group yesterday.")
    # the default layout, session_last (experiments/date_layout): a line with a relative date ends with the day
    # it was said; one without starts with it
    assert memory_line(h) == ("Caroline: I went to the LGBTQ support group yesterday [Sunday, 7 May 2023]. "
                              "[said Monday, 8 May 2023]")
    assert memory_line(hit("I love pizza.")) == "[Monday, 8 May 2023] Caroline: I love pizza."
    assert h.record.text == "I went to the LGBTQ support group yesterday."  # stored text stays verbatim


@pytest.mark.parametrize(("reading", "line"), [
    ("undated", "Caroline: We met last week."),
    ("dated", "[Monday, 8 May 2023] Caroline: We met last week."),
    ("resolved", "Caroline: We met last week [week of 1 May 2023]. [said Monday, 8 May 2023]"),
    ("resolved_no_today", "Caroline: We met last week [week of 1 May 2023]. [said Monday, 8 May 2023]"),
])
def test_each_reading_of_the_study_renders_its_own_line(reading, line):
    assert memory_line(hit("We met last week."), READINGS[reading]) == line


def test_undated_memories_carry_no_date_anywhere():
    shown = READINGS["undated"]
    ctx = format_context([hit("I moved yesterday.")], shown)
    system = answer_messages("When?", ctx.text, MON_8_MAY, shown)[0][1]
    assert "2023" not in ctx.text and "May" not in ctx.text
    assert "date" not in system.split("Today is")[0].lower()  # no date guidance for undated memories
    assert "Today is Monday, 8 May 2023." in system


def test_answer_instructions_follow_the_reading():
    dated = answer_messages("When?", "ctx", MON_8_MAY, READINGS["dated"])[0][1]
    resolved = answer_messages("When?", "ctx", MON_8_MAY, READINGS["resolved"])[0][1]
    no_today = answer_messages("When?", "ctx", MON_8_MAY, READINGS["resolved_no_today"])[0][1]
    assert "relative to that date" in dated and "in brackets" not in dated
    assert "in brackets" in resolved and "Today is Monday, 8 May 2023." in resolved
    assert "Today is" not in no_today and "in brackets" in no_today
    user = answer_messages("When did she go?", "CTX", MON_8_MAY)[1][1]
    assert user == "CTX\n\nQuestion: When did she go?\nAnswer:"


def test_agent_prompt_has_memories_guidance_and_today_or_nothing():
    ctx = format_context([hit("I adopted a dog yesterday.")])
    text = memory_prompt(ctx, MON_8_MAY)
    assert text.startswith(header()) and "in brackets" in text and text.endswith("Today is Monday, 8 May 2023.")
    assert memory_prompt(format_context([]), MON_8_MAY) == "Today is Monday, 8 May 2023."
    assert memory_prompt(format_context([]), None) == ""
    assert memory_prompt(format_context([]), MON_8_MAY, ContextConfig(say_today=False)) == ""


def test_chronological_order_reads_like_the_conversation_and_rank_order_keeps_ranks():
    later = hit("second", datetime(2023, 6, 1, tzinfo=timezone.utc), pos=0, session="s2")
    earlier = hit("first", MON_8_MAY, pos=1, session="s1")
    assert [h.record.text for h in format_context([later, earlier]).hits] == ["first", "second"]
    ranked = format_context([later, earlier], ContextConfig(order="rank"))
    assert [h.record.text for h in ranked.hits] == ["second", "first"]


def test_one_budget_rule_header_plus_each_line_and_its_break():
    hits = [hit(f"memory number {i} about pottery class and glazing", pos=i) for i in range(6)]
    full = context_tokens(hits)
    assert full == count_tokens(header()) + sum(count_tokens(memory_line(h)) + 1 for h in hits)
    assert format_context(hits).tokens == full
    for budget in range(1, full + 2):
        kept = fit(hits, budget)
        assert kept == hits[: len(kept)]  # the lowest-ranked go first
        assert (context_tokens(kept) <= budget) or not kept
        if len(kept) < len(hits):
            assert context_tokens(hits[: len(kept) + 1]) > budget  # the next one would not have fit
        assert format_context(hits, budget=budget).tokens == context_tokens(kept)
    assert fit(hits, None) == hits
    assert line_tokens(hits[0]) == count_tokens(memory_line(hits[0])) + 1


def test_resolution_counts_in_the_budget():
    h = hit("I went there yesterday.")
    assert line_tokens(h, READINGS["resolved"]) > line_tokens(h, READINGS["dated"]) > line_tokens(h, READINGS["undated"])


def test_speaker_falls_back_to_role():
    assert memory_line(hit("hello", speaker=None), READINGS["undated"]) == "user: hello"


def test_config_refuses_contradictions_and_unknowns_and_round_trips():
    with pytest.raises(InvalidInputError, match="contradicts dates=False"):
        ContextConfig(dates=False)  # resolve_dates=True by default would write dates back in
    with pytest.raises(InvalidInputError, match="order"):
        ContextConfig(order="newest")
    with pytest.raises(InvalidInputError, match="say_today"):
        ContextConfig(say_today="yes")  # type: ignore[arg-type]
    with pytest.raises(UnknownDateRulesError):
        ContextConfig(date_rules="rules-v0")
    with pytest.raises(InvalidInputError, match="unknown ContextConfig fields"):
        ContextConfig.from_dict({"dates": True, "colour": "red"})
    with pytest.raises(InvalidInputError, match="unknown ContextConfig fields"):
        ContextConfig().with_(colour="red")
    for cfg in READINGS.values():
        assert ContextConfig.from_dict(cfg.to_dict()) == cfg
    assert ContextConfig.from_dict({}) == ContextConfig()
