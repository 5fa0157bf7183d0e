"""Issue 30: which date layout a small local reader (Qwen2.5-Coder-1.5B, ``../shared/tools/local-llm``) dates right.

The questions (fixed before any answer was seen):

- LoCoMo dev temporal questions (category 2) whose gold names a week, a weekend, a month or a day
  (``cbmemory_eval.answer_dates.date_range``: a Monday-Sunday week, a Saturday-Sunday weekend, a whole calendar
  month, one day); for each level the first 10 taken round-robin over the 8 conversations in file order (the
  first of that level in each conversation, then the second, ...): 40 questions, 10 per level (fewer where a
  level has fewer).
- The 8 questions of ``demo_questions.json`` (a small conversation of our own with relative dates).

What the reader is shown: the question's evidence turns, each with the turn before and after it in its session
(the default recipe's window), rendered by ``cbmemory.context.format_context`` under each layout, in the answer
prompt of the study (``cbmemory.context.answer_messages``, "Today is" the last session's date). Score: the
answer is right when the first date it names (``date_range``) lies within the gold's span (``date_error`` 0):
"on Saturday, 8 March 2025" for the week of 24 February is wrong, "the week of 24 February 2025" right.

Answers are cached by (layout, question id) in ``--cache`` (JSONL); a rerun asks only what is missing.

    PYTHONPATH=shared:. .venv/bin/python -m experiments.date_layout.measure --layouts session_first,resolved_first
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from cbmemory.context import ContextConfig, answer_messages, format_context
from cbmemory.context.config import LAYOUTS
from cbmemory.models import Hit, MemoryRecord
from cbmemory_eval.answer_dates import DateRange, date_error, date_range
from cbmemory_eval.datasets.locomo import load_locomo

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
LEVELS = ("week", "weekend", "month", "day")
PER_LEVEL = 10
BLOCK = 4


@dataclass(frozen=True)
class Case:
    qid: str
    question: str
    gold: str
    span: DateRange
    level: str
    lines: tuple[MemoryRecord, ...]  # evidence turns and their neighbours, in session order
    today: datetime


def level(span: DateRange | None) -> str | None:
    if span is None:
        return None
    if span.days == 1:
        return "day"
    if span.days == 2 and span.start.weekday() == 5:
        return "weekend"
    if span.days == 7 and span.start.weekday() == 0:
        return "week"
    if 28 <= span.days <= 31 and span.start.day == 1:
        return "month"
    return None


def _record(user: str, session: str, position: int, role: str, speaker: str | None, text: str,
            when: datetime, turn_id: str) -> MemoryRecord:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return MemoryRecord(f"{user}:{turn_id}", user, session, "turn", position, role, text, text, when, when, digest,
                        turn_id, speaker)


def _with_window(turns: list[MemoryRecord], wanted: set[int]) -> tuple[MemoryRecord, ...]:
    keep = sorted({j for i in wanted for j in (i - 1, i, i + 1) if 0 <= j < len(turns)})
    return tuple(turns[j] for j in keep)


def locomo_cases(path: Path, per_level: int = PER_LEVEL) -> list[Case]:
    convs = load_locomo(path)
    by_level: dict[str, list[list[Case]]] = {lv: [] for lv in LEVELS}
    for conv in convs:
        turns = [(s, i, m) for s in conv.sessions for i, m in enumerate(s.messages)]
        records = {m.turn_id: _record(conv.sample_id, s.session_id, i, m.role, m.speaker, m.content, s.date,
                                      m.turn_id or "") for s, i, m in turns}
        ordered = list(records.values())
        index = {r.turn_id: j for j, r in enumerate(ordered)}
        mine: dict[str, list[Case]] = {lv: [] for lv in LEVELS}
        for q in conv.questions:
            if q.category != 2 or not q.evidence or q.answer is None:
                continue
            span = date_range(q.answer, conv.last_date.year)
            lv = level(span)
            if lv is None or span is None:
                continue
            lines = _with_window(ordered, {index[e] for e in q.evidence})
            lines = tuple(r for r in lines if any(r.session_id == records[e].session_id for e in q.evidence))
            mine[lv].append(Case(q.question_id, q.question, q.answer, span, lv, lines, conv.last_date))
        for lv in LEVELS:
            by_level[lv].append(mine[lv])
    chosen: dict[str, list[Case]] = {}
    for lv in LEVELS:
        taken: list[Case] = []
        for rank in range(max(len(c) for c in by_level[lv])):
            taken += [c[rank] for c in by_level[lv] if rank < len(c)]
        chosen[lv] = taken[:per_level]
    # asked level by level in turn, so that a run stopped early has every level
    return [c for i in range(per_level) for lv in LEVELS if i < len(chosen[lv]) for c in [chosen[lv][i]]]


def demo_cases(path: Path) -> list[Case]:
    data = json.loads(path.read_text())
    sessions = {s["session_id"]: s for s in data["sessions"]}
    today = max(datetime.fromisoformat(s["date"]) for s in data["sessions"])
    out = []
    for q in data["questions"]:
        session, at = q["evidence"]
        s = sessions[session]
        when = datetime.fromisoformat(s["date"])
        turns = [_record("demo", session, i, role, role, text, when, f"{session}:{i}")
                 for i, (role, text) in enumerate(s["turns"])]
        span = date_range(q["gold"], today.year)
        assert span is not None and level(span) is not None, q
        out.append(Case(q["id"], q["question"], q["gold"], span, level(span) or "", _with_window(turns, {at}),
                        today))
    return out


def messages(case: Case, config: ContextConfig) -> list[tuple[str, str]]:
    context = format_context([Hit(r, 1.0) for r in case.lines], config)
    return answer_messages(case.question, context.text, case.today, config)


def ask(base_url: str, msgs: Sequence[tuple[str, str]], max_tokens: int = 48) -> str:
    body = json.dumps({"model": "local-gguf", "temperature": 0, "max_tokens": max_tokens,
                       "messages": [{"role": r, "content": c} for r, c in msgs]}).encode()
    req = urllib.request.Request(f"{base_url}/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=1800) as resp:
        return str(json.load(resp)["choices"][0]["message"]["content"]).strip()


def cached(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    if not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(r["layout"], r["qid"]): r for r in rows}


def right(answer: str, case: Case) -> bool:
    named = date_range(answer, case.today.year)
    return named is not None and date_error(named, case.span) == 0


def run(cases: Sequence[Case], layouts: Sequence[str], base_url: str, cache: Path,
        cached_only: bool = False) -> Iterator[dict[str, Any]]:
    have = cached(cache)
    # blocks of BLOCK questions, every layout in turn over a block: a partial run compares the layouts on the
    # same questions, and within a layout the server reuses the prompt's shared start (instructions, header)
    blocks = [cases[i:i + BLOCK] for i in range(0, len(cases), BLOCK)]
    for layout, case in ((layout, case) for block in blocks for layout in layouts for case in block):
        msgs = messages(case, ContextConfig(layout=layout))
        prompt_hash = hashlib.sha256(json.dumps(msgs).encode()).hexdigest()[:16]
        row = have.get((layout, case.qid))
        if cached_only and (row is None or row["prompt"] != prompt_hash):
            continue
        if row is None or row["prompt"] != prompt_hash:
            t0 = time.perf_counter()
            answer = ask(base_url, msgs)
            row = {"layout": layout, "qid": case.qid, "prompt": prompt_hash, "answer": answer,
                   "seconds": round(time.perf_counter() - t0, 1)}
            with cache.open("a") as f:
                f.write(json.dumps(row) + "\n")
        yield {**row, "level": case.level, "gold": case.gold, "right": right(row["answer"], case),
               "set": "demo" if case.qid.startswith("demo:") else "locomo"}


def table(rows: Sequence[dict[str, Any]], layouts: Sequence[str]) -> str:
    done = Counter(r["qid"] for r in rows)
    full = {q for q, n in done.items() if n == len(layouts)}  # questions every layout answered
    lines = ["| layout | set | " + " | ".join(LEVELS) + " | all |", "|---|---|" + "---|" * (len(LEVELS) + 1)]
    for layout in layouts:
        for which in ("locomo", "demo"):
            mine = [r for r in rows if r["layout"] == layout and r["set"] == which and r["qid"] in full]
            cells = []
            for lv in (*LEVELS, None):
                sel = [r for r in mine if lv is None or r["level"] == lv]
                cells.append(f"{sum(r['right'] for r in sel)}/{len(sel)}")
            lines.append(f"| {layout} | {which} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--layouts", default=",".join(LAYOUTS))
    p.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    p.add_argument("--cache", default=str(HERE / "answers.jsonl"))
    p.add_argument("--data", default=str(DATA))
    p.add_argument("--cached-only", action="store_true", help="report the cached answers, ask nothing")
    p.add_argument("--per-level", type=int, default=PER_LEVEL,
                   help="LoCoMo questions per level; the first N of the same fixed order (a larger N extends the set)")
    p.add_argument("--show", help="print the prompt of one question id under each layout and stop")
    args = p.parse_args()
    layouts = args.layouts.split(",")
    cases = demo_cases(HERE / "demo_questions.json") + locomo_cases(Path(args.data), args.per_level)
    if args.show:
        for layout in layouts:
            for role, text in messages(next(c for c in cases if c.qid == args.show), ContextConfig(layout=layout)):
                print(f"--- {layout} {role}\n{text}")
        return
    rows: list[dict[str, Any]] = []
    by_level: dict[str, int] = defaultdict(int)
    for c in cases:
        by_level[c.level] += 1
    print("questions:", dict(by_level), flush=True)
    for row in run(cases, layouts, args.base_url, Path(args.cache), args.cached_only):
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("layout", "qid", "level", "gold", "answer", "right", "seconds")}),
              flush=True)
    print(table(rows, layouts))


if __name__ == "__main__":
    main()
