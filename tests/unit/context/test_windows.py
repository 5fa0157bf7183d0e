"""Unit layer (cbmemory.context): hits shown with their window — each hit's passage in session order, a turn
shown once however many hits it is next to, and the one budget rule counting every line a hit brings."""

from dataclasses import replace
from datetime import datetime, timezone

from cbmemory.context import (
    ContextConfig,
    context_tokens,
    count_tokens,
    distinct_passages,
    fit,
    format_context,
    header,
    line_tokens,
    passage,
    shown_records,
    unseen,
)
from cbmemory.models import Hit, MemoryRecord

DAY = datetime(2023, 5, 8, 13, 0, tzinfo=timezone.utc)


def rec(pos: int, text: str, session: str = "s1", when: datetime = DAY) -> MemoryRecord:
    return MemoryRecord(f"{session}-{pos}", "u", session, "turn", pos, "user", text, text, when, when, "h",
                        turn_id=f"{session}:{pos}", speaker="Ann" if pos % 2 else "Bob")


TURNS = [rec(i, t) for i, t in enumerate(["Did you get a pet?", "Yes, a dog called Biscuit!", "What breed?",
                                          "A beagle.", "Cute. Any trips planned?", "Paris in June."])]


def windowed(i: int, w: int = 1, score: float = 1.0) -> Hit:
    near = tuple(r for r in TURNS if r.position != i and abs(r.position - i) <= w)
    return Hit(TURNS[i], score, context=near)


def test_a_hit_is_read_between_the_turns_around_it():
    assert [r.position for r in passage(windowed(1))] == [0, 1, 2]
    assert [r.position for r in passage(windowed(0))] == [0, 1]  # the first turn has nothing before it
    assert passage(Hit(TURNS[3], 1.0)) == [TURNS[3]]  # no window: the hit alone
    text = format_context([windowed(1)]).text.splitlines()
    assert text[1:] == ["[Monday, 8 May 2023] Bob: Did you get a pet?",
                        "[Monday, 8 May 2023] Ann: Yes, a dog called Biscuit!",
                        "[Monday, 8 May 2023] Bob: What breed?"]


def test_a_turn_next_to_two_hits_is_shown_once_and_counted_once():
    hits = [windowed(1), windowed(3, score=0.5)]  # both are next to turn 2
    assert [r.position for r in shown_records(hits)] == [0, 1, 2, 3, 4]
    ctx = format_context(hits)
    assert ctx.text.count("What breed?") == 1
    expected = count_tokens(header()) + sum(line_tokens(TURNS[i]) for i in range(5))
    assert ctx.tokens == context_tokens(hits) == expected
    # a hit that is already shown as another's neighbour adds only its own new neighbours
    assert [r.position for r in shown_records([windowed(1), windowed(2, score=0.5)])] == [0, 1, 2, 3]


def test_the_budget_counts_every_line_a_hit_brings_and_keeps_a_hit_alone_when_its_window_does_not_fit():
    hits = [windowed(1), windowed(4, score=0.5)]
    first = context_tokens(hits[:1])
    assert fit(hits, first, ContextConfig()) == hits[:1]  # the second hit's passage would not fit, nor it alone
    assert fit(hits, context_tokens(hits), ContextConfig()) == hits
    kept = fit(hits, first - 1, ContextConfig())  # issue 29: the first without its window, not nothing
    assert kept[0] == replace(hits[0], context=()) and context_tokens(kept) <= first - 1
    alone = [replace(h, context=()) for h in hits]
    assert context_tokens(hits) > context_tokens(alone)  # the window is paid for


def test_chronological_order_sorts_hits_and_keeps_each_passage_in_session_order():
    early = rec(0, "We adopted a cat.", session="s0", when=datetime(2023, 4, 1, tzinfo=timezone.utc))
    hits = [windowed(4), Hit(early, 0.5)]
    lines = format_context(hits, ContextConfig(order="chronological")).text.splitlines()[1:]
    assert [line.split(": ", 1)[1] for line in lines] == [
        "We adopted a cat.", "A beagle.", "Cute. Any trips planned?", "Paris in June."]


def test_memories_the_prompt_already_shows_are_dropped_from_hits_and_from_their_windows():
    hits = [windowed(1), windowed(4, score=0.5)]
    in_prompt = {"s1-2", "s1-4"}  # the turn after the first hit; the second hit itself
    kept = unseen(hits, lambda r: r.record_id in in_prompt)
    assert [h.record.position for h in kept] == [1]
    assert [r.position for r in kept[0].context] == [0]
    assert unseen(hits, lambda r: False) == hits and kept[0].record is hits[0].record


def test_hits_shown_apart_show_each_turn_once_as_in_one_context():
    # hits 1 and 3 (window 1) share turn 2, and turn 3 is itself a hit: each shows itself and what no
    # earlier-ranked hit shows (the adapters' nodes and documents)
    hits = [windowed(1), windowed(3), windowed(4)]
    apart = distinct_passages(hits)
    assert [[r.position for r in passage(h)] for h in apart] == [[0, 1, 2], [3], [4, 5]]
    assert [h.record for h in apart] == [h.record for h in hits] and [h.score for h in apart] == [1.0] * 3
    shown = [r.position for h in apart for r in passage(h)]
    assert sorted(shown) == [r.position for r in shown_records(hits)] == list(range(6))  # each once, none lost
    assert distinct_passages([windowed(2)]) == [windowed(2)]  # alone: untouched

