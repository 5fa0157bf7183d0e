"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) reading a change the user tells
inside a request to the assistant ("Could you remind me to bring my Fernhill Analytics pass to the quiz, since that's
where I work now?"), over a real SQLite file with the real MiniLM embedder. Such a sentence ends in a question mark
and opens as a question, but it asks for something to be done, not to be told a fact: ``text.stated`` reads it as a
statement, and the stage, which reads only what the user's turns state, finds it. A request to be told something ("Can
you tell me about ...?") stays a question and states nothing."""

from __future__ import annotations

# the same history as the acknowledged places' tests: the old employer, everyday talk, then a turn of the test's choosing;
# what the stage chooses for their question, read the same way
from .test_acknowledged_on_store import OLD, _chosen, _say
from .test_current_value_on_store import FILLER

REQUEST = "Could you remind me to bring my Fernhill Analytics pass to the quiz, since that's where I work now?"
ASKED = "Can you tell me what the canteen at Fernhill Analytics serves on Fridays?"


def _history(memory, last: str, user: str = "ana") -> None:
    _say(memory, user, "s0", 0, OLD)
    for i in range(1, 25):
        _say(memory, user, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _say(memory, user, "s_last", 60, last)


def test_a_change_told_in_a_request_is_shown(memory):
    _history(memory, REQUEST)
    assert REQUEST in _chosen(memory)


def test_a_request_to_be_told_states_nothing(memory):
    _history(memory, ASKED)
    chosen = _chosen(memory)
    assert ASKED not in chosen
    assert OLD in chosen  # the stage ran and found the user's statement of the matter
