"""Integration layer (issue 29 items 1 to 3): the agent seam's shortcuts never hide or drop what a user said,
over a real SQLite memory and the real MiniLM embedder. A new fact said inside a question, or a correction,
is stored as evidence (not as an echo) and found later; real repeats are stored; a reused id with new text is
stored under a derived id and reported; a retry is stored once; a fault never says "stored as" for a turn
that was not stored."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import Message
from cbmemory.errors import InvalidInputError

MAY_5 = datetime(2023, 5, 5, 18, 0, tzinfo=timezone.utc)
SISTER = "My sister lives in Paris."


def faults_of(found: list):
    return lambda fault: found.append(fault)


def step(memory, user: str, session: str, text: str, reply: str, day: datetime) -> None:
    """One agent step: recall for the user's message, then save it and the reply with that recall."""
    found = memory.recall(text, user, today=day)
    memory.save(user, session, [Message("user", text), Message("assistant", reply)], date=day, shown=found)


def recalled(memory, query: str, day: datetime) -> str:
    return memory.recall(query, "alice", today=day).text


@pytest.mark.parametrize("said", [
    "Did I mention my sister moved from Paris to Lyon?",
    "No — she lives in Lyon, not Paris?",
])
def test_a_new_fact_or_a_correction_inside_a_question_is_recalled_later(memory, said):
    memory.add_session("alice", "s1", [{"role": "user", "content": SISTER}], date=MAY_5)
    day = MAY_5 + timedelta(days=3)
    step(memory, "alice", "s2", said, "Thanks for telling me.", day)
    turn = next(r for r in memory.session_records("alice", "s2") if r.role == "user")
    assert turn.source_ids == ()  # stored as evidence, not as an echo of the Paris memory
    assert "Lyon" in recalled(memory, "Where does my sister live?", day + timedelta(days=1))


def test_a_question_that_only_restates_is_linked_and_its_words_still_find_what_it_restates(memory):
    memory.add_session("alice", "s1", [{"role": "user", "content": SISTER}], date=MAY_5)
    day = MAY_5 + timedelta(days=3)
    step(memory, "alice", "s2", "Where does my sister live?", "Your sister lives in Paris.", day)
    turns = memory.session_records("alice", "s2")
    assert all(r.source_ids for r in turns)  # both echoes, linked to the memory they restate
    assert SISTER in recalled(memory, "sister live", day)  # its own words find what it restates


def test_restates_cannot_be_set_through_a_message_dict(memory):
    with pytest.raises(InvalidInputError, match="restates"):
        memory.add_messages("alice", "s1", [{"role": "user", "content": "I moved to Lyon.", "restates": ["x"]}])
    assert memory.session_records("alice") == []


def test_real_repeats_are_stored(memory):
    for i in range(3):  # "yes" three times, under three ids
        memory.save("alice", "s1", [Message("user", "yes", turn_id=f"m{i}")])
    for _ in range(3):  # and without ids
        memory.save("alice", "s2", [Message("user", "yes")])
    for d in range(5):  # the same message on five days
        memory.save("alice", "pills", [Message("user", "Took my blood pressure pill")], date=MAY_5 + timedelta(days=d))
    assert [len(memory.session_records("alice", s)) for s in ("s1", "s2", "pills")] == [3, 3, 5]


def test_forty_concurrent_oks_are_stored(memory):
    faults: list = []
    threads = [threading.Thread(target=memory.save, args=("alice", "s1", [Message("user", "ok")]),
                                kwargs={"on_error": faults_of(faults)}) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(memory.session_records("alice", "s1")) == 40 and faults == []


def test_a_retry_is_stored_once_and_a_step_re_sent_too(memory):
    faults: list = []
    for _ in range(2):  # the same id, the same text: a retry
        memory.save("alice", "s1", [Message("user", "I moved to Lyon.", turn_id="m1")], on_error=faults_of(faults))
    found = memory.recall("Where do I live?", "alice", today=MAY_5)
    for _ in range(2):  # the same step (the same recall) re-sent, turns without ids
        memory.save("alice", "s1", [Message("user", "Where do I live?"), Message("assistant", "In Lyon.")],
                    shown=found, on_error=faults_of(faults))
    assert [r.text for r in memory.session_records("alice", "s1")] == ["I moved to Lyon.", "Where do I live?",
                                                                       "In Lyon."]
    assert faults == []


def test_a_reused_id_with_new_text_is_stored_under_a_derived_id_and_reported(memory):
    faults: list = []
    memory.save("alice", "s1", [Message("user", "My passport number is X1234567.", turn_id="m1")])
    for _ in range(2):  # the second time, a retry of the first: stored once
        memory.save("alice", "s1", [Message("user", "My locker code is 4471.", turn_id="m1")], on_error=faults_of(faults))
    stored = memory.session_records("alice", "s1")
    assert [r.text for r in stored] == ["My passport number is X1234567.", "My locker code is 4471."]
    assert stored[1].turn_id.startswith("m1~")
    assert len(faults) == 1 and stored[1].turn_id in faults[0].detail and "stored as" in faults[0].detail
    assert "4471" in recalled(memory, "What is my locker code?", MAY_5)


def test_a_fault_never_says_stored_as_for_a_turn_that_was_not_stored(memory):
    faults: list = []
    memory.close()  # the write fails
    memory.save("alice", "s1", [Message("user", "I moved to Lyon.", turn_id="bad\x00id")], on_error=faults_of(faults))
    assert faults and all("stored as" not in f.detail for f in faults)
    assert any("not stored" in f.detail for f in faults)
