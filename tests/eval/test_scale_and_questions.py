"""Eval layer: the evaluation's question records, the category-balanced subset and haystack scaling."""

import pytest

from cbmemory_eval.datasets import load_locomo, load_longmemeval
from cbmemory_eval.questions import from_locomo, from_longmemeval, select
from cbmemory_eval.scale import distractor_sessions, scaled_haystacks

from .conftest import LOCOMO_DEV


def test_from_locomo(locomo_file):
    es = from_locomo(load_locomo(locomo_file))
    assert es.dataset == "locomo" and list(es.haystacks) == ["conv-a", "conv-b"]
    assert [c.name for c in es.categories] == ["multi-hop", "temporal", "open-domain", "single-hop", "adversarial"]
    assert es.category("multi-hop").header == "multi-hop (1; mem0: single-hop)"
    assert es.category("temporal").header == "temporal (2)"
    q = es.questions[2]
    assert q.evidence == ("D2:4", "D3:1") and q.evidence_sessions == ("session_2", "session_3")
    assert q.date_source == "last_session" and q.question_date.date().isoformat() == "2023-06-27"
    adv = [x for x in es.questions if x.category == "adversarial"]
    assert all(x.unanswerable for x in adv) and adv[0].tempting_wrong == "A sunrise"
    assert [x.temporal for x in es.questions[:2]] == [True, False]


def test_from_longmemeval(lme_file):
    es = from_longmemeval(load_longmemeval(lme_file))
    assert [q.user_id for q in es.questions] == ["q1", "q2", "q3_abs", "q4"]  # each question its own user
    assert [q.category for q in es.questions] == ["single-session-user", "knowledge-update", "abstention",
                                                 "temporal-reasoning"]
    assert [q.category_code for q in es.questions] == ["SSU", "KU", "ABS", "TR"]
    assert es.questions[2].unanswerable and es.questions[3].temporal
    assert es.questions[0].evidence_sessions == ("answer_q1",) and es.questions[0].date_source == "question"
    assert es.haystacks["q1"].turns == 6


def test_select_is_category_balanced_and_in_file_order(locomo_file):
    qs = from_locomo(load_locomo(locomo_file)).questions
    sub = select(qs, 5)
    assert len(sub) == 5 and len({q.category for q in sub}) == 5
    assert [qs.index(q) for q in sub] == sorted(qs.index(q) for q in sub)
    assert select(qs, None) == list(qs) and select(qs, 100) == list(qs)


def test_distractors_are_renamed_dated_inside_and_never_evidence(locomo_file):
    a, b = load_locomo(locomo_file)
    extra = distractor_sessions(b, [a, b], 3)
    own = sum(len(s.messages) for s in b.sessions)
    added = sum(len(s.messages) for s in extra)
    assert added >= 2 * own
    texts = " ".join(m.content for s in extra for m in s.messages)
    assert "Caroline" not in texts and "Melanie" not in texts and ("Jon" in texts or "Gina" in texts)
    assert {m.speaker for s in extra for m in s.messages} <= {"Jon", "Gina"}
    assert all(m.turn_id.startswith("x") for s in extra for m in s.messages)
    lo, hi = min(s.date for s in b.sessions), max(s.date for s in b.sessions)
    assert all(lo <= s.date <= hi for s in extra)
    # a's 12 turns are used twice (the second time with the speakers swapped) to reach 2 x 6 more turns
    assert any(s.session_id.startswith("x1|") for s in distractor_sessions(b, [a, b], 4))
    assert distractor_sessions(b, [a, b], 3) == extra  # deterministic
    assert distractor_sessions(b, [a, b], 1) == []
    with pytest.raises(ValueError):
        distractor_sessions(b, [a, b], 0)


def test_scaled_haystacks_keep_the_conversation(locomo_file):
    convs = load_locomo(locomo_file)
    hs = scaled_haystacks(convs, 2)
    for c in convs:
        ids = [s.session_id for s in hs[c.sample_id].sessions]
        assert all(s.session_id in ids for s in c.sessions)
        assert hs[c.sample_id].turns >= 2 * sum(len(s.messages) for s in c.sessions)
        dates = [s.date for s in hs[c.sample_id].sessions]
        assert dates == sorted(dates)


@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason="LoCoMo dev file missing")
def test_scale_ten_on_dev_reaches_ten_times():
    convs = load_locomo(LOCOMO_DEV)
    target = convs[1]
    extra = distractor_sessions(target, convs, 10)
    own = sum(len(s.messages) for s in target.sessions)
    assert 9 * own <= sum(len(s.messages) for s in extra) < 9 * own + 60
    assert "Caroline" not in " ".join(m.content for s in extra for m in s.messages)
