"""Unit layer (pure function, no store, no model): ``cbmemory.text.clauses``, a statement's clauses, which the
current-value stage reads for a change told in passing. A statement parts at punctuation, at a dash between spaces and
at the words that join clauses; pieces shorter than ``CLAUSE_WORDS`` are dropped; a statement of one clause has none
(it is its own clause)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cbmemory.text import CLAUSE_WORDS, clauses


@pytest.mark.parametrize(("text", "parts"), [
    ("Work was hectic, but the view from our new flat makes up for it.",
     ["Work was hectic", "the view from our new flat makes up for it"]),
    ("I moved to Porto (finally) and I love it - really!", ["I moved to Porto", "I love it"]),
    ("The class moved to Tuesdays because the hall was booked; I go every week.",
     ["The class moved to Tuesdays", "the hall was booked", "I go every week"]),
    # a dash between spaces right after another break is a break too, not the start of the next clause
    ('I recently finished rereading "The Alchemist" - it was really inspiring.',
     ["I recently finished rereading", "it was really inspiring"]),
    # "and" between names parts them too; "Sandra" and "was nice" are too short, so one piece is left: none
    ("Sandra and Brandon stayed late, which was nice", []),
])
def test_a_statement_parts_into_its_clauses(text, parts):
    assert clauses(text) == parts


@pytest.mark.parametrize("text", ["I live in Paris.", "", "Yes, and so?", "Moved. New flat. Love it."])
def test_a_statement_of_one_clause_or_none_has_no_clauses(text):
    assert clauses(text) == []


@given(st.text(max_size=200))
def test_clauses_are_pieces_of_the_text_of_enough_words(text):
    parts = clauses(text)
    assert len(parts) != 1
    for p in parts:
        assert p in text and p == p.strip() and len(p.split()) >= CLAUSE_WORDS
        assert not any(ch in p for ch in ',;:!?.()"')  # parted at every such mark
        assert not any(dash in p for dash in (" - ", " – ", " — "))
