"""cbmemory-eval, the study apart from the product: the evaluation harness (LoCoMo and LongMemEval, retrieval
metrics, LLM answer + judge + context sufficiency, the per-category interaction matrix: table, heatmap,
summary.json), the performance bench (``cbmemory_eval.bench``), the dataset loaders
(``cbmemory_eval.datasets``) and the study's recipe rows (``cbmemory_eval.recipes``). It uses the core's
public API only (``cbmemory`` and its public subpackages) and adds its commands (``cbmemory eval``,
``demo``, ``bench``, ``ingest-dataset``) and recipes to the core's through entry points. README.md beside
this file tells where the recipes' numbers come from.

Names load lazily, so ``import cbmemory_eval`` (and the command plug-in) costs nothing until one is used.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "KS": "metrics", "recall": "metrics", "recall_all": "metrics", "recall_any": "metrics", "ndcg": "metrics",
    "retrieval_metrics": "metrics",
    "answer_scores": "answer_scores", "token_f1": "answer_scores", "locomo_f1": "answer_scores",
    "extract_date": "answer_scores",
    "EvalQuestion": "questions", "EvalSet": "questions", "Haystack": "questions", "from_locomo": "questions",
    "from_longmemeval": "questions", "select": "questions",
    "scaled_haystacks": "scale", "distractor_sessions": "scale",
    "QAConfig": "qa", "make_chat_model": "qa", "run_qa": "qa",
    "PROMPT_VERSION": "prompts", "parse_verdict": "prompts",
    "run_eval": "runner", "plan_rows": "runner", "read_jsonl": "runner", "EvalSetupError": "runner",
    "summarise": "report", "write_reports": "report", "markdown": "report", "heatmap": "report",
    "PEERS": "peers", "build_peer": "peers",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cbmemory_eval' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
