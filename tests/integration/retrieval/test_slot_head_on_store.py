"""Integration layer: the slot head in the current-value stage (``cbmemory.retrieval.slot_head``,
``current_value.HEAD_FLOOR`` / ``HEAD_WEIGHT``) over a real SQLite file with the real MiniLM embedder. The head is
MiniLM's (the stage's descriptions, embedded by it, match the head's); a change of employer told in words near no
description of the matter ("First payslip from ... came in today") is read by the head as the matter and shown, and
is not without the head; everyday talk stays off the matter. The head's direction for a kind (``SlotHead.direction``)
is the query of a second search (``current_value.HEAD_DEPTH``), which reaches a change the slot's search does not."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, SearchFilters
from cbmemory.retrieval import current_value, followed, slot_head
from cbmemory.retrieval.current_value import latest_statements
from cbmemory.retrieval.slot_match import prototypes

D0 = datetime(2024, 3, 4, tzinfo=timezone.utc)
CHAT = ["We watched a film about whales last night.", "The weather has been lovely for walks.",
        "The garden needs weeding again.", "I tried a new recipe for lentil soup.",
        "I finally fixed the squeaky door.", "The concert on Friday was loud but fun.",
        "I have been reading about old maps.", "My sister sent photos from her holiday."]
OLD = "I work at Initech as an engineer."
PAYSLIP = "First payslip from Greyfield Analytics came in today."
Q = "Which company do I work for now?"
WORK_TALK = ["Work was busy today, meeting after meeting.", "My company is hiring a lot of people this year.",
             "The office kitchen ran out of coffee again.", "I stayed late at work to finish a report.",
             "My colleagues and I had lunch together.", "The company picnic is next month."]


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    m.add_session("ana", "s0", [{"role": "user", "speaker": "Ana", "content": OLD}], date=D0)
    for i in range(1, 25):
        m.add_session("ana", f"s{i}", [{"role": "user", "speaker": "Ana", "content": CHAT[i % len(CHAT)]},
                                       {"role": "assistant", "speaker": "Bot", "content": "Nice, tell me more."}],
                      date=D0 + timedelta(days=3 * i))
    m.add_session("ana", "s_new", [{"role": "user", "speaker": "Ana", "content": PAYSLIP}], date=D0 + timedelta(days=90))
    yield m
    m.close()


def _chosen(memory) -> set[str]:
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id="ana"), "ana", Q,
                                              SearchFilters(), None)}


def test_minilms_descriptions_match_the_head(minilm):
    rows = prototypes(minilm.embed_query, minilm.embed_queries)[2]
    assert slot_head.matching(rows[0]) is slot_head.load()


def test_a_change_only_the_head_reads_as_the_matter_is_shown(memory, monkeypatch):
    with_head = _chosen(memory)
    shown = {r.text for h in memory.recall(Q, "ana").hits for r in (h.record, *h.context)}
    monkeypatch.setattr(current_value, "HEAD_FLOOR", 2.0)  # no statement is on the slot by the head
    monkeypatch.setattr(current_value, "HEAD_WEIGHT", 0.0)
    monkeypatch.setattr(followed, "ANEW", 0)  # nor by the place for a value named first, which reads the head too
    monkeypatch.setattr(current_value, "shaped", lambda said, slot: False)  # nor by a company's name's shape
    without = _chosen(memory)
    assert OLD in with_head and OLD in without  # the old employer is a claim of the kind either way
    assert PAYSLIP in with_head and PAYSLIP in shown
    assert PAYSLIP not in without


def test_everyday_talk_stays_off_the_matter(memory):
    assert not _chosen(memory) & set(CHAT)


def test_the_heads_own_search_reaches_a_change_the_slots_search_does_not(memory, monkeypatch):
    """``HEAD_DEPTH``, ``HEAD_EMBEDDED``: talk about work nearer the matter's descriptions than the change fills the
    slot's search (cut to a few records, as a long memory's many such turns would); the change (far from every
    description) is past them. The second search, along the head's direction for the kind (``SlotHead.direction``),
    finds it, and the head puts it on the matter; without the second search it is not shown."""
    for i, text in enumerate(WORK_TALK):
        memory.add_session("ana", f"w{i}", [{"role": "user", "speaker": "Ana", "content": text}],
                           date=D0 + timedelta(days=80 + i))
    monkeypatch.setattr(current_value, "DEPTH", 5)  # the payslip is past the five nearest records
    monkeypatch.setattr(followed, "SHAPE_EMBEDDED", 0)  # the company's name would reach it by its words
    with_second = _chosen(memory)
    monkeypatch.setattr(current_value, "HEAD_DEPTH", 0)
    without = _chosen(memory)
    assert PAYSLIP in with_second and PAYSLIP not in without


def test_the_heads_direction_is_a_unit_vector_toward_its_kind(minilm):
    """``SlotHead.direction``: unit length, and the kind's own sentences lie further along it than everyday talk."""
    head = slot_head.load()
    d = head.direction("employer")
    assert abs(float((d * d).sum()) - 1.0) < 1e-5
    work, chat = minilm.embed([PAYSLIP, OLD]), minilm.embed(CHAT)
    assert float((work @ d).min()) > float((chat @ d).max())
