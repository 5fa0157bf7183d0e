"""Our judging and context-sufficiency prompts (criteria of REFERENCE.md section 4), versioned.

One rubric per kind of question: factual (default), temporal, knowledge update, preference and
unanswerable (LoCoMo adversarial, LongMemEval abstention). Verdicts are single words, parsed strictly by
``parse_verdict``: anything else is recorded as unparsed and never counted as correct.
"""

from __future__ import annotations

import json
import re

PROMPT_VERSION = "cbmemory-judge-v1"

JUDGE_SYSTEM = (
    "You grade answers to questions about a user's past conversations. You are given the question, the "
    "gold answer and the response to grade. Follow the grading rule, then reply with exactly one word: "
    "CORRECT or WRONG. No explanation."
)

RUBRICS = {
    "factual": (
        "The response is CORRECT if it states the gold answer or something equivalent in meaning. Be "
        "generous with wording: paraphrases, extra correct detail and a different date or number format are "
        "fine. When the gold answer lists several items, the response must name the essential ones. It is "
        "WRONG if it gives a different answer, contradicts the gold answer, misses the key fact, or says the "
        "information is not available."
    ),
    "temporal": (
        "The question is about time (a date, an order of events, or a duration). The response is CORRECT if "
        "it names the same date, period, order or duration as the gold answer, in any format. Tolerate an "
        "off-by-one error in a count of days (or weeks, months, years). A relative answer that resolves to "
        "the gold date is correct (for example 'the Sunday before 25 May 2023' and '21 May 2023'). It is "
        "WRONG if the date or duration differs by more than that, or if it says the information is not "
        "available."
    ),
    "knowledge-update": (
        "The user's information changed over time and the gold answer is the most recent value. The "
        "response is CORRECT if it gives the updated value as the current one (mentioning the earlier value as "
        "past is fine). It is WRONG if it presents an outdated value as the current one, or gives another "
        "value."
    ),
    "preference": (
        "The gold answer is a rubric describing what a response personalised to this user should take into "
        "account. The response is CORRECT if it recalls and uses the user's stated preferences as the "
        "rubric describes; it need not cover every point. It is WRONG if it ignores the user's preferences "
        "or contradicts them."
    ),
    "unanswerable": (
        "The question cannot be answered from the conversations: it asks about something that was never "
        "mentioned, or attributes something to the wrong person. The response is CORRECT only if it says "
        "the information is not available, not mentioned or unknown (or declines to answer). It is WRONG if "
        "it gives a substantive answer."
    ),
}

SUFFICIENCY_SYSTEM = (
    "You check whether retrieved memories are enough to answer a question. You are given the question, the "
    "gold answer and the context retrieved from the user's past conversations. Decide whether the context "
    "alone contains the information needed to arrive at the gold answer (simple reasoning such as date "
    "arithmetic over the dates shown is allowed). Reply with exactly one word: SUFFICIENT or INSUFFICIENT. "
    "No explanation."
)

_RUBRIC_OF = {
    "temporal": "temporal", "temporal-reasoning": "temporal", "knowledge-update": "knowledge-update",
    "single-session-preference": "preference", "adversarial": "unanswerable", "abstention": "unanswerable",
}


def rubric_for(category: str, unanswerable: bool = False) -> str:
    """The rubric name for a category (LoCoMo names or LongMemEval question types)."""
    return "unanswerable" if unanswerable else _RUBRIC_OF.get(category, "factual")


def judge_messages(question: str, gold: str | None, response: str, *, category: str, unanswerable: bool,
                   tempting_wrong: str | None = None) -> list[tuple[str, str]]:
    rubric = rubric_for(category, unanswerable)
    lines = [f"Grading rule: {RUBRICS[rubric]}", "", f"Question: {question}"]
    if rubric == "unanswerable":
        lines.append("Gold answer: the information is not available in the conversations.")
        if tempting_wrong:
            lines.append(f"A tempting wrong answer (do not accept it): {tempting_wrong}")
    else:
        lines.append(f"Gold answer: {gold}")
    lines += [f"Response: {response}", "", "Verdict (CORRECT or WRONG):"]
    return [("system", JUDGE_SYSTEM), ("user", "\n".join(lines))]


def sufficiency_messages(question: str, gold: str, context: str) -> list[tuple[str, str]]:
    body = f"Question: {question}\nGold answer: {gold}\n\nContext:\n{context or '(empty)'}\n\n" \
           "Verdict (SUFFICIENT or INSUFFICIENT):"
    return [("system", SUFFICIENCY_SYSTEM), ("user", body)]


_STRIP = " \t\r\n*_`\"'.!:"


def parse_verdict(text: str, labels: tuple[str, str]) -> bool | None:
    """``True`` for ``labels[0]``, ``False`` for ``labels[1]``, ``None`` for anything else.

    Strict: the whole reply must be the label (case, surrounding quotes/markdown and a final period aside),
    or a JSON object whose ``verdict``/``label`` is the label. "CORRECT, because..." is unparsed.
    """
    s = text.strip()
    if s.startswith("{"):
        try:
            obj = json.loads(s)
        except ValueError:
            return None
        value = obj.get("verdict", obj.get("label")) if isinstance(obj, dict) else None
        s = value if isinstance(value, str) else ""
    word = s.strip(_STRIP).upper()
    if not re.fullmatch(r"[A-Z]+", word):
        return None
    if word == labels[0]:
        return True
    if word == labels[1]:
        return False
    return None
