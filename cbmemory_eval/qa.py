"""End-to-end QA for one question: answer with a chat model, score the answer automatically against the
gold, and, when a judge is named, judge the answer and (separately, without the answer) the context's
sufficiency. Without a judge no judge runs at all: J and sufficiency are ``None`` (not computed); the
reader never judges its own answers unless it is named as the judge too.

Any LangChain chat model works (``ChatOpenAI(model=..., base_url=..., temperature=0)`` for OpenAI or a
local OpenAI-compatible server); anything with ``invoke(messages)`` returning an object with ``content``
(or a string) does. The answer prompt is cbmemory's ``answer_messages`` with "Today is {question_date}".
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from cbmemory.context import DEFAULT_CONTEXT, ContextConfig, answer_messages
from cbmemory.llm import make_chat_model as make_chat_model  # re-exported: cbmemory_eval.make_chat_model
from cbmemory.llm import model_name

from .answer_scores import SCORES_VERSION, answer_scores
from .prompts import PROMPT_VERSION, judge_messages, parse_verdict, sufficiency_messages
from .questions import EvalQuestion


def invoke_text(llm: Any, messages: list[tuple[str, str]]) -> str:
    reply = llm.invoke(messages)
    content = getattr(reply, "content", reply)
    if isinstance(content, list):  # content blocks
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content).strip()


@dataclass(frozen=True)
class QAConfig:
    """The reader, the fixed judge (``None``: no judge, automatic scores only) and what is recorded with
    every result."""

    reader: Any
    judge: Any | None
    dataset: str
    say_today: bool = True
    sufficiency: bool = True

    @property
    def stamp(self) -> dict[str, object]:
        return {"reader": model_name(self.reader),
                "judge_model": None if self.judge is None else model_name(self.judge),
                "prompt_version": PROMPT_VERSION, "say_today": self.say_today, "scores_version": SCORES_VERSION}


def run_qa(cfg: QAConfig, q: EvalQuestion, context: str, shown: ContextConfig = DEFAULT_CONTEXT) -> dict[str, Any]:
    """Answer, verdicts and automatic scores of one question given its retrieved ``context`` text, rendered
    as ``shown`` says (the answer instructions follow it: date guidance, "Today is ...")."""
    start = time.perf_counter()
    answer = invoke_text(cfg.reader, answer_messages(q.question, context, q.question_date, shown.with_(say_today=shown.say_today and cfg.say_today)))
    answer_ms = (time.perf_counter() - start) * 1000
    verdict: bool | None = None
    raw_j: str | None = None
    suff: bool | None = None
    raw_s: str | None = None
    if cfg.judge is not None:
        raw_j = invoke_text(cfg.judge, judge_messages(q.question, q.answer, answer, category=q.category,
                                                      unanswerable=q.unanswerable, tempting_wrong=q.tempting_wrong))
        verdict = parse_verdict(raw_j, ("CORRECT", "WRONG"))
        if cfg.sufficiency and not q.unanswerable and q.answer is not None:
            raw_s = invoke_text(cfg.judge, sufficiency_messages(q.question, q.answer, context))
            suff = parse_verdict(raw_s, ("SUFFICIENT", "INSUFFICIENT"))
    auto = answer_scores(answer, q.answer, dataset=cfg.dataset, category_id=q.category_code,
                         unanswerable=q.unanswerable, temporal=q.temporal, default_year=q.question_date.year)
    judged = raw_j is not None
    metrics: dict[str, float | None] = {
        "J": (1.0 if verdict else 0.0) if judged else None,
        "judge_unparsed": (1.0 if verdict is None else 0.0) if judged else None,
        "sufficiency": None if suff is None else float(suff),
        "sufficiency_unparsed": 1.0 if raw_s is not None and suff is None else (0.0 if raw_s is not None else None),
        "answer_ms": answer_ms,
        **auto,
    }
    return {
        "answer": answer,
        "judge": {"verdict": verdict, "raw": raw_j} if judged else None,
        "sufficiency": {"verdict": suff, "raw": raw_s} if judged else None,
        "qa_metrics": metrics,
        **cfg.stamp,
    }
