"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) following a name that the
statement ranked nearest the matter gave, named again later (``followed.named_again`` with ``BEST_VALUED``), over a
real SQLite file with the real MiniLM embedder. A change back told quietly ("Callum burnt the toast again...") names
the partner the user's plainest statement of the matter named, in words far from the matter, and no claim rule reads
a value from "Callum's the one for me, we've been together since ..." (its claim is the clause after the comma, which
names no one); the name is what links them."""

from __future__ import annotations

from cbmemory.retrieval import followed

from .test_current_value_on_store import FILLER, _chosen, _turns

FIRST = "Callum's the one for me, we've been together since we were students."
MIDDLE = "I'm seeing someone new now, Ewan, and honestly it's going really well."
BACK = "Callum burnt the toast again this morning, the whole flat smells of it."
ASKED = "Who am I dating at the moment?"


def _history(memory, last: str) -> None:
    _turns(memory, "s0", 0, FIRST)
    for i in range(1, 31):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _turns(memory, "s_mid", 70, MIDDLE)
    for i in range(31, 41):
        _turns(memory, f"s{i}", 2 * i + 10, FILLER[i % len(FILLER)])
    _turns(memory, "s_last", 100, last)


def test_a_change_back_naming_the_best_statements_name_is_shown(memory, monkeypatch):
    _history(memory, BACK)
    kept = _chosen(memory, ASKED)
    monkeypatch.setattr(followed, "BEST_VALUED", 0)
    plain = _chosen(memory, ASKED)
    assert {FIRST, MIDDLE} <= plain and BACK not in plain  # off the matter by its words: the stage leaves it
    assert kept - plain == {BACK}  # one place, besides what the stage shows as before


def test_a_name_the_best_statement_did_not_give_is_not_followed(memory):
    other = "Rowan burnt the toast again this morning, the whole flat smells of it."
    _history(memory, other)
    assert other not in _chosen(memory, ASKED)
