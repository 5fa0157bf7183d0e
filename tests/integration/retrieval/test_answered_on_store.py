"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) reaching a statement through
the assistant's short reply to it (``cbmemory.retrieval.acknowledged.answered``), over a real SQLite file with the real
MiniLM embedder. A change told quietly and confirmed ("Noted, Fernhill Analytics.") can lie deeper in the stage's
searches than the reply that names it back: the reply, among the records the searches read, brings the statement it
answers, shown in a place of its own (``heard_places``: it takes no place the pool's statements hold). The searches'
reach is made small here (``EMBEDDED``, ``HEAD_DEPTH``) so the statement is reached through its reply alone; the place
for a value named first and a company's name as the employer's shape (read, and searched by its words) are set aside,
as in ``test_acknowledged_on_store.py``."""

from __future__ import annotations

import pytest

from cbmemory import SearchFilters
from cbmemory.retrieval import current_value, followed
from cbmemory.retrieval.acknowledged import answered
from cbmemory.retrieval.current_value import latest_statements

# the same history: the old employer, everyday talk, then the clue answered by a reply of the test's choosing
from .test_acknowledged_on_store import CLUE, D0, OLD, PLAIN_REPLY, QUESTION, _history

ACK = "Noted, Fernhill Analytics."


@pytest.fixture(autouse=True)
def _searches_reach_no_statement(monkeypatch):
    """The vector searches' statements cut to none: only the claim words' search (the old employer) and the replies
    reach a statement; no value named first, no company shape."""
    monkeypatch.setattr(current_value, "EMBEDDED", 0)
    monkeypatch.setattr(current_value, "HEAD_DEPTH", 0)
    monkeypatch.setattr(followed, "ANEW", 0)
    monkeypatch.setattr(current_value, "shaped", lambda said, slot: False)
    monkeypatch.setattr(followed, "SHAPE_EMBEDDED", 0)  # nor the company's name searched by its words


def _chosen(memory, user: str = "ana") -> set[str]:
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id=user), user,
                                              QUESTION, SearchFilters(), None)}


def test_a_statement_reached_only_by_its_reply_is_taken(memory):
    _history(memory, ACK)
    chosen = _chosen(memory)
    assert CLUE in chosen
    assert OLD in chosen  # found by the claim words, as before


def test_without_the_reply_it_is_not_reached(memory, monkeypatch):
    """The case above rests on the reply: with ``answered`` bringing nothing the same memory shows no clue."""
    _history(memory, ACK)
    monkeypatch.setattr(current_value, "answered", lambda *args, **kwargs: [])
    assert CLUE not in _chosen(memory)


def test_without_their_own_place_it_is_not_shown(memory, monkeypatch):
    """A statement only its reply brought has a place of its own (``HEARD``), not one of the acknowledged places the
    pool's statements hold: with none, the same memory shows no clue."""
    _history(memory, ACK)
    monkeypatch.setattr("cbmemory.retrieval.acknowledged.HEARD", 0)
    assert CLUE not in _chosen(memory)


@pytest.mark.parametrize("reply", [PLAIN_REPLY, "That is lovely, enjoy it! " * 4 + "Fernhill Analytics sounds fun."])
def test_a_reply_that_names_nothing_of_it_or_talks_on_brings_nothing(memory, reply):
    _history(memory, reply)
    assert CLUE not in _chosen(memory)


def _records(memory, user):
    return memory.store.list_records(user, SearchFilters())


def _own(r):
    return r.text if r.role == "user" else ""


def test_answered_reads_the_turn_before_each_short_reply(memory):
    _history(memory, ACK)
    records = _records(memory, "ana")
    got = answered(memory.store, "ana", records, (), _own, SearchFilters(), None)
    assert [said for _, said in got] == [CLUE]
    clue = next(r for r in records if r.text == CLUE)
    assert answered(memory.store, "ana", records, {clue.record_id}, _own, SearchFilters(), None) == []  # pooled
    assert answered(memory.store, "ana", records, (), lambda r: "", SearchFilters(), None) == []  # not the user's own


def test_answered_reads_the_asking_users_memory_only(memory):
    """Bea's reply acknowledges her clue; Ana's turn at the same place is answered by a plain reply: asked for Ana
    with Bea's records, nothing of Bea's comes back and Ana's plain-answered turn is not taken."""
    _history(memory, PLAIN_REPLY, user="ana")
    _history(memory, ACK, user="bea")
    assert answered(memory.store, "ana", _records(memory, "bea"), (), _own, SearchFilters(), None) == []
    got = answered(memory.store, "bea", _records(memory, "bea"), (), _own, SearchFilters(), None)
    assert [r.user_id for r, _ in got] == ["bea"]


def test_a_reply_that_opens_its_session_looks_back_at_nothing(memory):
    memory.add_session("ana", "s_open", [{"role": "assistant", "speaker": "Bot", "content": "Noted, Leith."},
                                         {"role": "user", "speaker": "Ana", "content": "I moved to Leith."}],
                       date=D0)
    assert answered(memory.store, "ana", _records(memory, "ana"), (), _own, SearchFilters(), None) == []
