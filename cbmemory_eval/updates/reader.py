"""The reader's stale-answer rate: a chat model answers a fixed subset of questions from what ``recall``
showed, and its answer is scored automatically by whether it names the current value, the stale one
(someone else's, for a non-change), both or neither.

Values are matched loosely: case and punctuation folded, a leading "by"/"on"/"a"/"Dr." dropped, numbers
also as digits ("four" = "4"), phone numbers by their digits.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from .generate import UpdateCase

_LEAD = re.compile(r"^(by|on|a|an|the|dr\.?)\s+")
_NUMBERS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7"}


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^\w@.:]+", " ", text.lower()).replace(". ", " ").split())


def names(answer: str, value: str) -> bool:
    """Whether ``answer`` names ``value`` (see the module docstring)."""
    digits = re.sub(r"\D", "", value)
    if len(digits) >= 7:  # a phone number
        return digits in re.sub(r"\D", "", answer)
    a = f" {_fold(answer)} "
    key = _LEAD.sub("", _fold(value)).rstrip(".")
    keys = {key, _NUMBERS.get(key, key)}
    return any(re.search(r"(?<![\w@])" + re.escape(k) + r"s?(?![\w@])", a) for k in keys if k)


def answer_verdict(answer: str, current: str, stale: str) -> str:
    """``current``, ``stale``, ``both`` or ``neither``."""
    new, old = names(answer, current), names(answer, stale)
    return "both" if new and old else "current" if new else "stale" if old else "neither"


def fixed_subset(cases: Sequence[UpdateCase], n: int, seed: int = 0) -> set[str]:
    """``n`` case ids drawn with ``seed`` among the changes (the same whatever the product retrieves)."""
    ids = sorted(c.case_id for c in cases if c.is_change)
    return set(random.Random(f"reader:{seed}").sample(ids, min(n, len(ids))))


def make_answerer(llm: Any):
    """A function (case, recall) -> the answer's record, with cbmemory's answer prompt (``answer_messages``:
    the memories as shown, how to read their dates, "Today is ...")."""
    from cbmemory.context import DEFAULT_CONTEXT, answer_messages

    from ..qa import invoke_text

    def answer(case: UpdateCase, rec: Any) -> dict[str, Any]:
        shown = rec.config or DEFAULT_CONTEXT
        text = invoke_text(llm, answer_messages(case.question, rec.context.text, case.question_date, shown))
        return {"answer": text, "verdict": answer_verdict(text, case.current, case.stale)}

    return answer


def reader_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Over the answered rows: the share naming the current value only, the stale one only, both and
    neither; ``stale_rate``: stale only; the same among rows whose context showed both values."""
    answered = [r for r in rows if r.get("reader")]

    def shares(rs: Sequence[dict[str, Any]]) -> dict[str, Any]:
        n = len(rs)
        out: dict[str, Any] = {"n": n}
        for v in ("current", "stale", "both", "neither"):
            out[v] = sum(r["reader"]["verdict"] == v for r in rs) / n if n else None
        return out

    both = [r for r in answered if r["new_shown"] and r["stale_shown"]]
    return {"all": shares(answered), "both_shown": shares(both)}
