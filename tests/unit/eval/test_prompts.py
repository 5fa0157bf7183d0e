"""Unit layer: judging prompts per category and the strict verdict parser."""

import pytest

from cbmemory_eval.prompts import (
    PROMPT_VERSION,
    judge_messages,
    parse_verdict,
    rubric_for,
    sufficiency_messages,
)

J = ("CORRECT", "WRONG")


@pytest.mark.parametrize("reply, verdict", [
    ("CORRECT", True), ("correct", True), (" WRONG.\n", False), ("**Correct**", True), ('"WRONG"', False),
    ('{"verdict": "CORRECT"}', True), ('{"label": "wrong"}', False),
    ("CORRECT, because the dates match", None), ("The answer is correct.", None), ("", None),
    ("INCORRECT", None), ("CORRECT WRONG", None), ('{"verdict": 1}', None), ("{not json", None),
])
def test_parse_verdict_is_strict(reply, verdict):
    assert parse_verdict(reply, J) is verdict


def test_sufficiency_labels():
    assert parse_verdict("SUFFICIENT", ("SUFFICIENT", "INSUFFICIENT")) is True
    assert parse_verdict("insufficient", ("SUFFICIENT", "INSUFFICIENT")) is False
    assert parse_verdict("Sufficient enough", ("SUFFICIENT", "INSUFFICIENT")) is None


def test_rubrics_follow_the_categories():
    assert rubric_for("temporal") == rubric_for("temporal-reasoning") == "temporal"
    assert rubric_for("knowledge-update") == "knowledge-update"
    assert rubric_for("single-session-preference") == "preference"
    assert rubric_for("adversarial") == rubric_for("abstention") == "unanswerable"
    assert rubric_for("single-hop") == rubric_for("multi-session") == "factual"
    assert rubric_for("single-hop", unanswerable=True) == "unanswerable"


def test_judge_messages_carry_rule_gold_and_response():
    msgs = judge_messages("When?", "7 May 2023", "On 6 May 2023", category="temporal", unanswerable=False)
    system, user = msgs[0][1], msgs[1][1]
    assert "CORRECT or WRONG" in system
    assert "off-by-one" in user and "Gold answer: 7 May 2023" in user and "Response: On 6 May 2023" in user
    adv = judge_messages("What did Caroline paint?", None, "A sunrise", category="adversarial",
                         unanswerable=True, tempting_wrong="A sunrise")[1][1]
    assert "not available" in adv and "tempting wrong answer (do not accept it): A sunrise" in adv
    assert PROMPT_VERSION.startswith("cbmemory-judge-")


def test_sufficiency_prompt_has_no_generated_answer():
    msgs = sufficiency_messages("When?", "7 May 2023", "[Monday, 8 May 2023] Caroline: support group")
    assert "Gold answer: 7 May 2023" in msgs[1][1] and "Response" not in msgs[1][1]
    assert "(empty)" in sufficiency_messages("q", "a", "")[1][1]
