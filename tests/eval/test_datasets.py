"""Eval layer: the dataset loaders on the real LoCoMo dev file, the one-question LongMemEval sample and
synthetic files in both official formats (with their quirks); the parser's pure repairs are in
tests/unit/datasets/test_locomo.py."""

import json

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory_eval.datasets import load_locomo, load_longmemeval

from .conftest import LME_SAMPLE, LOCOMO_DEV, lme_instance

needs_locomo = pytest.mark.skipif(not LOCOMO_DEV.exists(), reason=f"LoCoMo dev file not at {LOCOMO_DEV}")
needs_sample = pytest.mark.skipif(not LME_SAMPLE.exists(), reason=f"LongMemEval sample not at {LME_SAMPLE}")


@needs_locomo
def test_locomo_dev_file():
    convs = load_locomo(LOCOMO_DEV)
    assert [c.sample_id for c in convs] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44",
                                            "conv-47", "conv-48"]
    qs = [q for c in convs for q in c.questions]
    assert len(qs) == 1586
    assert sum(len(s.messages) for c in convs for s in c.sessions) == 4805
    conv26 = convs[0]
    assert len(conv26.sessions) == 19  # date keys up to session_35 exist without sessions
    adversarial = [q for q in qs if q.category == 5]
    assert sum(q.answer is None for q in adversarial) == 358  # no 'answer' key: adversarial_answer only
    assert all(q.adversarial_answer for q in adversarial)
    assert all(isinstance(q.answer, str) for q in qs if q.category != 5)  # 6 integer answers cast to str
    assert sum(not q.evidence for q in qs) == 2
    unknown = {q.question_id: q.unknown_evidence for q in qs if q.unknown_evidence}
    assert unknown == {"conv-42:q58": ("D10:19",), "conv-47:q38": ("D4:36",)}
    assert all(e in c.turn_ids for c in convs for q in c.questions for e in q.evidence)


def test_locomo_synthetic_quirks(locomo_file):
    a, b = load_locomo(locomo_file)
    assert [s.session_id for s in a.sessions] == ["session_1", "session_2", "session_3"]
    q = {x.question: x for x in a.questions}
    assert q["What activities does Melanie do with her family?"].evidence == ("D2:4", "D3:1")
    assert q["How many kids does Melanie have?"].answer == "3"
    assert q["How many kids does Melanie have?"].evidence == ("D3:4",)
    pottery = q["When did Melanie sign up for a pottery class?"]
    assert pottery.evidence == ("D3:2",) and pottery.unknown_evidence == ("D9:99",)
    adv = q["What did Caroline paint?"]
    assert adv.category_name == "adversarial" and adv.answer is None and adv.adversarial_answer == "A sunrise"
    assert b.questions[-1].answer == "No" and b.questions[-1].adversarial_answer == "online clothing store"


@needs_sample
def test_longmemeval_sample():
    (q,) = load_longmemeval(LME_SAMPLE)
    assert (q.question_id, q.question_type, q.short_type) == ("e47becba", "single-session-user", "SSU")
    assert q.answer == "Business Administration" and not q.is_abstention
    assert q.question_date.isoformat() == "2023-05-30T23:40:00+00:00"
    assert len(q.sessions) == 53 and sum(len(s.messages) for s in q.sessions) == 550
    assert q.answer_session_ids == ("answer_280352e9",)
    assert q.evidence == ("answer_280352e9:4", "answer_280352e9:5")
    gold = next(s for s in q.sessions if s.session_id == "answer_280352e9")
    assert [m.turn_id for m in gold.messages][:2] == ["answer_280352e9:0", "answer_280352e9:1"]
    assert {m.role for s in q.sessions for m in s.messages} == {"user", "assistant"}


def test_longmemeval_synthetic_quirks(lme_file):
    q1, q2, q3, q4 = load_longmemeval(lme_file)
    assert q1.evidence == ("answer_q1:0", "answer_q1:2")  # the empty turn 1 is skipped, indices kept
    assert [m.turn_id for m in q1.sessions[1].messages] == ["answer_q1:0", "answer_q1:2"]
    assert q2.answer == "42" and q2.category_name == "knowledge-update" and q2.short_type == "KU"
    assert [s.session_id for s in q2.sessions] == ["sharegpt_abc_0", "answer_q2", "sharegpt_abc_0#2"]
    assert q3.is_abstention and q3.category_name == "abstention"
    assert [s.date.day for s in q3.sessions] == [25, 20, 22]  # oracle order kept, each with its own date
    assert q4.question_type == "temporal-reasoning"


def test_longmemeval_single_object_and_errors(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(lme_instance("x", "multi-session")))
    assert [q.question_id for q in load_longmemeval(one)] == ["x"]
    bad = lme_instance("y", "multi-session")
    bad["haystack_dates"] = bad["haystack_dates"][:2]
    (tmp_path / "bad.json").write_text(json.dumps([bad]))
    with pytest.raises(InvalidInputError, match="differ in length"):
        load_longmemeval(tmp_path / "bad.json")
    missing = lme_instance("z", "multi-session")
    del missing["question_date"]
    (tmp_path / "missing.json").write_text(json.dumps([missing]))
    with pytest.raises(InvalidInputError, match="question_date"):
        load_longmemeval(tmp_path / "missing.json")
    (tmp_path / "str.json").write_text(json.dumps("nope"))
    with pytest.raises(InvalidInputError, match="JSON list"):
        load_longmemeval(tmp_path / "str.json")


@needs_locomo
def test_dev_file_loads_with_expected_counts():
    convs = load_locomo(LOCOMO_DEV)
    assert len(convs) == 8 and sum(len(c.questions) for c in convs) == 1586
    assert sum(len(s.messages) for c in convs for s in c.sessions) == 4805
    assert all(set(q.evidence) <= c.turn_ids for c in convs for q in c.questions)
