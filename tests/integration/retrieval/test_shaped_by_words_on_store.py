"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) reaching a statement that names
a company or a school by the words of that shape (``cbmemory.retrieval.followed.shaped_by_words``, a full-text search),
over a real SQLite file (FTS) with the real MiniLM embedder. A change told in passing ("The walk to the Fenwick
Analytics office is shorter now") can lie past what the vector searches read in a long memory; such a name is rare
in talk and the search finds it wherever it lies. The vector searches' reach is made small here (``EMBEDDED``,
``HEAD_DEPTH``) so the statement is reached by the shape search alone."""

from __future__ import annotations

import pytest

from cbmemory import SearchFilters
from cbmemory.retrieval import current_value, followed
from cbmemory.retrieval.current_value import latest_statements
from cbmemory.retrieval.followed import shaped_by_words

from .test_current_value_on_store import FILLER  # the same everyday talk
from .test_named_anew_on_store import _say  # a user's turn and a plain reply, a session of its own

OLD = "I work at Marsh & Finch Consulting, on the customer desk."
PASSING = "The walk to the Fenwick Analytics office is shorter, so I might make the quiz."
THEIRS = "My cousin got hired by Quillon Labs last week."
QUESTION = "Which company do I work for these days?"


def _history(memory, user: str = "ana", change: str = PASSING) -> None:
    _say(memory, user, "s0", 0, OLD)
    for i in range(1, 25):
        _say(memory, user, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _say(memory, user, "s_change", 60, change)
    _say(memory, user, "s_theirs", 70, THEIRS)


@pytest.fixture(autouse=True)
def _vector_searches_reach_no_statement(monkeypatch):
    monkeypatch.setattr(current_value, "EMBEDDED", 0)
    monkeypatch.setattr(current_value, "HEAD_DEPTH", 0)


def _chosen(memory, user: str = "ana", question: str = QUESTION) -> set[str]:
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id=user), user,
                                              question, SearchFilters(), None)}


def test_a_company_named_in_passing_is_reached_by_its_words(memory):
    _history(memory)
    chosen = _chosen(memory)
    assert PASSING in chosen
    assert THEIRS not in chosen  # someone else's employer, named by the same shape


def test_without_the_shape_search_it_is_not_reached(memory, monkeypatch):
    """The case above rests on the shape search: with it off the same memory shows no passing statement."""
    _history(memory)
    monkeypatch.setattr(followed, "SHAPE_EMBEDDED", 0)
    assert PASSING not in _chosen(memory)


def _own(r):
    return r.text if r.role == "user" else ""


def test_the_search_keeps_the_users_statements_of_the_shape(memory):
    _history(memory)
    got = [said for _, said in shaped_by_words(memory.store, "ana", "employer", (), _own, SearchFilters(), None)]
    assert set(got) == {OLD, PASSING, THEIRS}  # ``read`` (the stage's ``own``) decides whose each is
    no_name = "Looking after my health more, so I might make the quiz."
    _say(memory, "ana", "s_plain", 80, no_name)  # an end word ("health") the search finds, but no company's name
    assert no_name not in {said for _, said in shaped_by_words(memory.store, "ana", "employer", (), _own,
                                                                SearchFilters(), None)}


def test_a_school_is_searched_by_its_words_and_a_city_not_at_all(memory):
    _say(memory, "ana", "s0", 0, "Our Isla started at Dunfermline High this week.")
    assert [s for _, s in shaped_by_words(memory.store, "ana", "child_school", (), _own, SearchFilters(), None)] \
        == ["Our Isla started at Dunfermline High this week."]
    _say(memory, "ana", "s1", 1, "We live in Inverness now.")
    assert shaped_by_words(memory.store, "ana", "home_city", (), _own, SearchFilters(), None) == []


def test_the_search_reads_the_asking_users_memory_only(memory):
    _history(memory, user="bea")
    _say(memory, "ana", "s0", 0, "Work was busy with the quarterly report.")
    assert shaped_by_words(memory.store, "ana", "employer", (), _own, SearchFilters(), None) == []
