"""``cbmemory demo`` (``make demo``): memory at work on one LoCoMo conversation, offline.

It stores the conversation's sessions (its first speaker is the user), then for a handful of its questions,
asked the day after its last session, shows what the model would read — the best memories, each dated, with
relative dates resolved, as ``AgentMemory.recall`` gives them to an agent — beside the gold answer (and the
answer of an LLM when ``CBMEMORY_LLM_MODEL`` names one: an OpenAI model with ``OPENAI_API_KEY``, or any model
of an OpenAI-compatible server at ``CBMEMORY_LLM_BASE_URL``). It ends with a small table: evidence recall@10
of ``default`` against ``bm25`` and ``vector`` on every question of that conversation, by category.

The stores and per-question results are kept under ``--out``: a second run embeds nothing and scores
nothing again. The full study is ``cbmemory eval locomo`` (``docs/evaluation.md``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from cbmemory import AgentMemory, ContextConfig, Recall
from cbmemory.context import answer_messages, format_context, memory_line, shown_records
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.recipes import RECIPES

from .datasets.locomo import load_locomo
from .questions import EvalQuestion, EvalSet, from_locomo
from .run_state import haystack_fingerprint, store_file_name
from .runner import read_jsonl, run_eval

ROWS = ("default", "bm25", "vector")
SHOWN_HITS = 3  # hits shown per question (each with its window), best first
FULL_STUDY = ("cbmemory eval locomo --data ../shared/data/locomo/locomo-dev.json --recipes main --k 10 "
              "--out out/locomo   # the full study: every recipe, every conversation (docs/evaluation.md)")


def showcase(eval_set: EvalSet, n: int) -> list[EvalQuestion]:
    """``n`` questions with an answer and evidence, taking each category in turn (temporal first: dates are
    what the demo is about), in file order within a category."""
    pools: dict[str, list[EvalQuestion]] = defaultdict(list)
    for q in eval_set.questions:
        if q.answer and q.evidence and not q.unanswerable:
            pools[q.category].append(q)
    order = sorted(pools, key=lambda c: (not any(q.temporal for q in pools[c]), c))
    picked: list[EvalQuestion] = []
    while len(picked) < n and any(pools[c] for c in order):
        for c in order:
            if pools[c] and len(picked) < n:
                picked.append(pools[c].pop(0))
    return picked


def shown_lines(found: Recall, evidence: Sequence[str], config: ContextConfig) -> list[str]:
    """The lines the model reads for the first hits (each turn once, in the context stage's order), an
    evidence turn marked."""
    first = format_context(found.hits[:SHOWN_HITS], config)
    return [f"    {memory_line(r, config)}{'  <- evidence' if r.turn_id in evidence else ''}"
            for r in shown_records(first.hits)]


def llm_answer(question: str, found: Recall, today: Any) -> str | None:
    model = os.environ.get("CBMEMORY_LLM_MODEL")
    if not model:
        return None
    from cbmemory.llm import make_chat_model

    llm = make_chat_model(model, os.environ.get("CBMEMORY_LLM_BASE_URL"))
    reply = llm.invoke(answer_messages(question, found.context.text, today, RECIPES["default"].context))
    return str(reply.content).strip()


def recall_table(out: Path, eval_set: EvalSet) -> list[str]:
    """Mean evidence recall@10 per row and category, from the run's per-question lines."""
    cats = [c.name for c in eval_set.categories if any(q.category == c.name for q in eval_set.questions)]
    lines = ["| recipe | " + " | ".join(cats) + " | all |", "|---" * (len(cats) + 2) + "|"]
    for row in ROWS:
        by: dict[str, list[float]] = defaultdict(list)
        for rec in read_jsonl(out / "questions" / f"{row}.jsonl"):
            value = (rec.get("metrics") or {}).get("recall@10")
            if value is not None:
                by[rec["category"]].append(value)
                by["all"].append(value)
        cells = [f"{sum(v) / len(v):.2f}" if (v := by.get(c)) else "-" for c in (*cats, "all")]
        lines.append(f"| `{row}` | " + " | ".join(cells) + " |")
    return lines


def run_demo(data: str, out: str | Path, *, conversation: str = "conv-26", questions: int = 5,
             progress: bool = True) -> int:
    start = time.perf_counter()
    out = Path(out)
    conversations = [c for c in load_locomo(data) if c.sample_id == conversation]
    if not conversations:
        print(f"cbmemory: error: {data} has no conversation {conversation!r}", file=sys.stderr)
        return 2
    eval_set = from_locomo(conversations)
    embedder = MiniLMEmbedder()
    print(f"Storing {conversation}: {sum(h.turns for h in eval_set.haystacks.values())} turns in "
          f"{len(conversations[0].sessions)} sessions, then scoring its {len(eval_set.questions)} questions "
          f"with {', '.join(ROWS)} (offline; the first run embeds, later runs reuse {out}).", file=sys.stderr)
    run_eval(eval_set, out, list(ROWS), baselines=(), k=10, ks=(10,), embedder=embedder,
             store_dir=out / "stores", progress=progress, settings={"demo": conversation})
    store = out / "stores" / store_file_name(haystack_fingerprint(eval_set), RECIPES["default"].ingest, embedder.name)
    with AgentMemory.open(store, embedder=embedder, read_only=True) as memory:
        for q in showcase(eval_set, questions):
            today = q.question_date + timedelta(days=1)
            found = memory.recall(q.question, q.user_id, today=today)
            print(f"\nQ ({q.category}): {q.question}\n  the model reads {found.context.tokens} tokens: {len(found.hits)} memories, "
                  f"each with its neighbours; the lines of the first {SHOWN_HITS}:")
            print("\n".join(shown_lines(found, q.evidence, memory.recipe.context)))
            print(f"  gold answer: {q.answer}")
            answer = llm_answer(q.question, found, today)
            print(f"  {os.environ.get('CBMEMORY_LLM_MODEL')}: {answer}" if answer is not None else
                  "  (set CBMEMORY_LLM_MODEL, and OPENAI_API_KEY or CBMEMORY_LLM_BASE_URL, to see an LLM answer)")
    print(f"\nEvidence recall@10 on all {len(eval_set.questions)} questions of {conversation}:\n")
    print("\n".join(recall_table(out, eval_set)))
    print(f"\nDone in {time.perf_counter() - start:.0f} s. The full study:\n  {FULL_STUDY}")
    (out / "demo.json").write_text(json.dumps({"conversation": conversation, "seconds": round(
        time.perf_counter() - start, 1)}))
    return 0


__all__ = ["run_demo", "showcase"]
