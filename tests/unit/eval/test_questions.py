"""Unit layer: the question subsets of a run: ``select`` (``--limit``) and the fixed-seed ``sample``
(``--sample``), balanced over categories and conversations."""

from collections import Counter
from datetime import datetime
from types import MappingProxyType

import pytest

from cbmemory_eval.questions import (
    Category,
    EvalQuestion,
    EvalSet,
    SampleSpec,
    SampleSpecError,
    sample,
    select,
)

CATS = (Category("multi-hop", "1"), Category("temporal", "2"), Category("single-hop", "4"),
        Category("adversarial", "5", unanswerable=True))


def _q(user: str, i: int, category: str) -> EvalQuestion:
    return EvalQuestion(question_id=f"{user}:q{i}", user_id=user, question=f"question {i}", answer="x",
                        category=category, category_code="?", evidence=(), evidence_sessions=(),
                        question_date=datetime(2023, 6, 1), date_source="last_session")


def _set(per_user: dict[str, dict[str, int]]) -> EvalSet:
    """Questions of every user in file order, ``per_user[user][category]`` of each category."""
    qs = []
    for user, counts in per_user.items():
        i = 0
        for cat, n in counts.items():
            for _ in range(n):
                qs.append(_q(user, i, cat))
                i += 1
    return EvalSet("locomo", MappingProxyType({}), tuple(qs), CATS)


def test_limit_is_balanced_over_conversations_too():
    # the first conversation alone could fill the limit (the 40 questions from one conversation)
    es = _set({"conv-a": {"temporal": 30, "single-hop": 30}, "conv-b": {"temporal": 5, "single-hop": 5},
               "conv-c": {"temporal": 5, "single-hop": 5}})
    sub = select(es.questions, 12)
    assert len(sub) == 12
    assert Counter(q.category for q in sub) == {"temporal": 6, "single-hop": 6}
    assert Counter(q.user_id for q in sub) == {"conv-a": 4, "conv-b": 4, "conv-c": 4}
    assert [es.questions.index(q) for q in sub] == sorted(es.questions.index(q) for q in sub)  # file order
    assert select(es.questions, 12) == sub  # deterministic
    assert select(es.questions, None) == list(es.questions) and select(es.questions, 10_000) == list(es.questions)


def test_limit_takes_from_small_conversations_until_they_run_out():
    es = _set({"conv-a": {"temporal": 10}, "conv-b": {"temporal": 1}})
    assert Counter(q.user_id for q in select(es.questions, 5)) == {"conv-a": 4, "conv-b": 1}


def _ten_conversations() -> EvalSet:
    return _set({f"conv-{i}": {"multi-hop": 4, "temporal": 20, "single-hop": 30, "adversarial": 6} for i in range(10)})


def test_sample_draws_each_group_balanced_over_conversations_and_categories():
    es = _ten_conversations()
    sub = sample(es, SampleSpec.parse("temporal=60,other=40"), seed=0)
    cats = Counter(q.category for q in sub)
    assert cats["temporal"] == 60 and sum(cats.values()) == 100
    assert Counter(q.user_id for q in sub if q.category == "temporal") == {f"conv-{i}": 6 for i in range(10)}
    assert Counter(q.user_id for q in sub if q.category != "temporal") == {f"conv-{i}": 4 for i in range(10)}
    assert {cats["multi-hop"], cats["single-hop"], cats["adversarial"]} <= {13, 14}  # round-robin over them
    assert [es.questions.index(q) for q in sub] == sorted(es.questions.index(q) for q in sub)


def test_sample_is_fixed_by_its_seed():
    es = _ten_conversations()
    spec = SampleSpec.parse("temporal=60,other=40")
    first = [q.question_id for q in sample(es, spec, seed=7)]
    assert [q.question_id for q in sample(es, spec, seed=7)] == first
    assert [q.question_id for q in sample(es, spec, seed=8)] != first
    # a draw is not the first questions in file order (that is --limit)
    assert first != [q.question_id for q in select([q for q in es.questions if q.category == "temporal"], 60)]


def test_sample_groups_by_name_or_code_and_gives_all_of_a_small_group():
    es = _set({"conv-a": {"temporal": 3, "single-hop": 5}, "conv-b": {"temporal": 2, "multi-hop": 4}})
    sub = sample(es, SampleSpec.parse("2=50,single-hop=2"), seed=0)
    assert Counter(q.category for q in sub) == {"temporal": 5, "single-hop": 2}


def test_sample_spec_parses_and_refuses_clearly():
    assert SampleSpec.parse(" temporal=60, other=40 ").groups == (("temporal", 60), ("other", 40))
    assert str(SampleSpec.parse("temporal=60,other=40")) == "temporal=60,other=40"
    for bad in ("temporal", "temporal=0", "temporal=x", "=4", "", "temporal=1,temporal=2"):
        with pytest.raises(SampleSpecError):
            SampleSpec.parse(bad)
    es = _ten_conversations()
    with pytest.raises(SampleSpecError, match="'dates'.*temporal \\(2\\)"):
        sample(es, SampleSpec.parse("dates=3"), seed=0)
    with pytest.raises(SampleSpecError, match="same category"):
        sample(es, SampleSpec.parse("temporal=3,2=4"), seed=0)
