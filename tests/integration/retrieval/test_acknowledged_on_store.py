"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) reading the assistant's replies
(``cbmemory.retrieval.acknowledged``) over a real SQLite file with the real MiniLM embedder. A change told by a clue
("Got a Fernhill Analytics hoodie in my welcome pack"), under the slot head's floor, is taken when the assistant's
short reply names it back, and not when the reply names nothing of it or is another user's; the reads see only the
asking user's memory. The place for a value named first (``followed.named_anew``, ``test_named_anew_on_store.py``)
and a company's name putting a statement on the employer (``followed.shaped``: "Fernhill Analytics") would take such
a clue by themselves: they are set aside here, so each case shows the acknowledgement's part."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import SearchFilters
from cbmemory.retrieval import current_value, followed
from cbmemory.retrieval.acknowledged import acknowledged
from cbmemory.retrieval.current_value import latest_statements

from .test_current_value_on_store import FILLER  # the same everyday talk

D0 = datetime(2023, 1, 2, tzinfo=timezone.utc)
OLD = "I work at Tidewater Freight, on the customer desk."
CLUE = "Got a Fernhill Analytics hoodie in my welcome pack."
PLAIN_REPLY = "Sounds good, tell me more."
QUESTION = "Which company do I work for these days?"


def _say(memory, user, sid, day, text, reply=PLAIN_REPLY):
    memory.add_session(user, sid, [{"role": "user", "speaker": "Ana", "content": text},
                                   {"role": "assistant", "speaker": "Bot", "content": reply}],
                       date=D0 + timedelta(days=day))


def _history(memory, reply: str, user: str = "ana") -> None:
    """The old employer, much other talk, then the clue to the new one answered by ``reply``."""
    _say(memory, user, "s0", 0, OLD)
    for i in range(1, 25):
        _say(memory, user, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _say(memory, user, "s_clue", 60, CLUE, reply)


@pytest.fixture(autouse=True)
def _no_value_named_first_nor_shape(monkeypatch):
    monkeypatch.setattr(followed, "ANEW", 0)
    monkeypatch.setattr(current_value, "shaped", lambda said, slot: False)


def _chosen(memory, user: str = "ana") -> set[str]:
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id=user), user,
                                              QUESTION, SearchFilters(), None)}


def test_a_clue_the_assistant_named_back_is_taken(memory):
    """Under the head's floor the clue is off the matter; the reply "Noted, Fernhill Analytics." puts it on."""
    _history(memory, "Noted, Fernhill Analytics.")
    chosen = _chosen(memory)
    assert CLUE in chosen
    assert OLD in chosen  # the history stays


@pytest.mark.parametrize("reply", [PLAIN_REPLY, "That is lovely, enjoy it! " * 4 + "Fernhill Analytics sounds fun."])
def test_a_clue_answered_by_no_acknowledgement_is_not(memory, reply):
    """A reply naming nothing of it, or a long one that talks on, leaves the clue to the head's own floor."""
    _history(memory, reply)
    assert CLUE not in _chosen(memory)


def test_without_its_place_the_acknowledged_clue_is_not_taken(memory, monkeypatch):
    """The case above rests on the acknowledgement's place (``ACK_PLACES``): without it the same memory shows no
    clue."""
    _history(memory, "Noted, Fernhill Analytics.")
    monkeypatch.setattr("cbmemory.retrieval.acknowledged.ACK_PLACES", 0)
    assert CLUE not in _chosen(memory)


def test_replies_are_read_in_the_asking_users_memory_only(memory):
    """Another user with the same turn ids and an acknowledging reply: the asker's own plain reply decides."""
    _history(memory, PLAIN_REPLY, user="ana")
    _history(memory, "Noted, Fernhill Analytics.", user="bea")
    assert CLUE not in _chosen(memory, "ana")
    assert CLUE in _chosen(memory, "bea")
    clue = [r for r in memory.store.list_records("ana", SearchFilters()) if r.text == CLUE]
    assert acknowledged(memory.store, "ana", [(clue[0], CLUE)], SearchFilters(), None) == [False]
