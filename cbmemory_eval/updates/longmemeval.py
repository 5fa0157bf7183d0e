"""LongMemEval's knowledge-update category (KU) on the same metrics, when its data is present.

Each KU question has its own haystack, ingested under its own user. Its evidence turns (``has_answer``)
are split by session date: those of the latest evidence session state the current value
(``current_turns``), those of earlier sessions the stale one (``stale_turns``; empty when the evidence is in
one session). ``new_shown``, ``stale_only``, ``new_above_stale`` and ``marked`` as in ``metrics``; the
answer is LongMemEval's gold (the updated value).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cbmemory import AgentMemory

from .metrics import case_metrics
from .run import Marker, ranked_turns, record_marks

KU = "knowledge-update"


def ku_turns(q) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(current, stale) evidence turn ids of a ``LongMemEvalQuestion``."""
    dates = {s.session_id: s.date for s in q.sessions}
    sid = {t: t.rsplit(":", 1)[0] for t in q.evidence}
    dated = [t for t in q.evidence if sid[t] in dates]
    if not dated:
        return (), ()
    last = max(dates[sid[t]] for t in dated)
    return (tuple(t for t in dated if dates[sid[t]] == last), tuple(t for t in dated if dates[sid[t]] < last))


def ku_questions(path: str | Path) -> tuple[list[Any], str | None]:
    """The KU questions (abstentions left out) of a LongMemEval file, or ``[]`` and why there are none."""
    from ..datasets.longmemeval import load_longmemeval

    p = Path(path)
    if not p.exists():
        return [], f"no LongMemEval file at {p}"
    qs = [q for q in load_longmemeval(p) if q.question_type == KU and not q.is_abstention]
    if not qs:
        return [], f"{p} holds no knowledge-update question"
    return qs, None


def run_ku(questions: Sequence[Any], work_dir: Path, *, embedder, memory_options: dict[str, Any] | None = None,
           marker: Marker = record_marks) -> list[dict[str, Any]]:
    """One record per question, scored on what ``AgentMemory.recall`` shows at its question date."""
    work_dir.mkdir(parents=True, exist_ok=True)
    path = work_dir / "longmemeval-ku.db"
    path.unlink(missing_ok=True)
    out = []
    mem = AgentMemory.open(path, embedder=embedder, **(memory_options or {}))
    try:
        for q in questions:
            current, stale = ku_turns(q)
            mem.add_sessions(q.question_id, [(s.session_id, s.messages, s.date) for s in q.sessions])
            rec = mem.recall(q.question, q.question_id, today=q.question_date)
            hits = list(rec.hits)
            out.append({"case_id": q.question_id, "question": q.question, "answer": q.answer,
                        "is_change": True, "variant": KU, "kind": KU, "has_stale": bool(stale),
                        **case_metrics(current, stale, ranked_turns(hits), marks=marker(mem, q.question_id, hits),
                                       tokens=rec.context.tokens)})
    finally:
        mem.close()
    return out
