"""Integration layer: the slot a question asks about (``current_value.question_slot``) with the real MiniLM embedder
and the shipped slot and question heads. The question head reads questions worded apart from every description of
their matter, of the benchmark's kinds and of the stage's others. Questions whose words are near no description of
their matter clearly enough (below ``QUESTION_FLOOR``) are read by the descriptions and the slot head together;
questions about what was said or done, no fact a slot holds, are read as none; a question the two readings put on
different slots by less than ``QUESTION_LIFT_MARGIN`` is read as none too (then the stage shows nothing, rather than
another matter's statements)."""

from __future__ import annotations

import numpy as np
import pytest

from cbmemory.retrieval import current_value
from cbmemory.retrieval.about import in_first_person
from cbmemory.retrieval.slot_match import prototypes


@pytest.fixture(scope="module")
def read(minilm):
    protos = prototypes(minilm.embed_query)
    return lambda q: current_value.question_slot(minilm.embed_query(in_first_person(q)), protos)


@pytest.mark.parametrize(("question", "slot"), [
    ("Who's the person I'm with these days?", "partner"), ("Which night is my choir practice?", "schedule"),
    ("What building do I live in?", "home_kind"),  # the three read as none or home city by the descriptions alone
    ("Who am I dating right now?", "partner"), ("What eating plan am I on?", "diet"),
    ("Which firm am I with now?", "employer"), ("Which computer am I on these days?", "device"),
])
def test_a_question_is_read_by_its_descriptions_and_the_head_together(read, question, slot):
    assert read(question) == slot


@pytest.mark.parametrize("question", [
    "What did I say about the football final?", "Who did I see at the market in Leith?",
    "What did I think of the play in Dundee?", "What did we talk about last Tuesday?",
])
def test_a_question_about_no_fact_a_slot_holds_is_read_as_none(read, question):
    assert read(question) is None


def test_without_the_head_the_descriptions_alone_read_the_question(minilm, monkeypatch):
    protos = prototypes(minilm.embed_query)
    vec = minilm.embed_query(in_first_person("Which city do I live in these days?"))
    monkeypatch.setattr(current_value.slot_head, "matching", lambda first, file=None: None)  # another model: no head
    assert current_value.question_slot(vec, protos) == "home_city"
    assert current_value.question_slot(np.zeros_like(vec), protos) is None


@pytest.mark.parametrize(("question", "slot"), [
    ("Which outfit employs me at the moment?", "employer"), ("Where's home for me now?", "home_city"),
    # none of the two read by the descriptions and the slot head; the question head's own training questions are apart
])
def test_the_question_head_reads_what_the_descriptions_and_the_slot_head_miss(read, question, slot, minilm,
                                                                                 monkeypatch):
    assert read(question) == slot
    kept = current_value.slot_head.matching
    monkeypatch.setattr(current_value.slot_head, "matching",
                        lambda first, file=current_value.slot_head.HEAD_FILE:
                        None if file == current_value.slot_head.QUESTION_FILE else kept(first, file))
    assert read(question) != slot  # without the question head


@pytest.mark.parametrize(("question", "slot"), [
    ("What instrument am I learning?", "music"), ("What street do I live on?", "address"),
    ("Do I have any health conditions?", "health"), ("Which bank am I with?", "bank"),
])
def test_the_kinds_no_benchmark_kind_has_keep_their_reading(read, question, slot):
    """The question head's first version, trained on the benchmark's kinds' questions only, read the first three as
    language, home city and diet."""
    assert read(question) == slot
