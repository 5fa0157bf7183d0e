"""The agent-loop benchmark's protocol (issue 24, item 1): what one agent step does and how it is scored.

LoCoMo stores two people talking; an agent's memory also holds what the agent was asked and what it said.
Per conversation, after its sessions are ingested, its questions are asked in file order, each in a new
session ``loop-q<i>`` (``i`` the question's index in the file) dated ``asked_at``: one day after the
conversation's last session, each later question ten minutes after the one before (the n-th question at
last session + 1 day + (n-1) × 10 min). One agent step is what an adapter does, through the same seam:

1. **recall** (``AgentMemory.recall``; ``today`` = ``asked_at``; ``shown`` = the user turn in the prompt),
   before anything of this step is stored;
2. **the model**, replaced by a deterministic reply that restates the top memory it was shown as the model
   read it (the rendered line of ``Recall``'s first hit, session date and resolved dates included) and gives
   the answer: ``You told me: <line> So: <answer>``. The answer is the gold one (``that was never
   mentioned`` for LoCoMo's unanswerable questions); in a ``loop_wrong<N>`` variant every N-th reply of a
   conversation (n = N, 2N, ...) gives a wrong one instead: the gold answer of the next question of the same
   conversation (cyclically) whose answer differs;
3. **save** both turns (``AgentMemory.save``, ``date`` = ``asked_at``): the question as the user turn, the
   reply as the assistant turn, with the ids ``loop-q<i>:user`` and ``loop-q<i>:agent``.

Scoring, at the moment the question is asked (after recall, before save): **source recall@k** is the
harness's evidence recall (``metrics.recall``: |E ∩ covered| / |E|) over the units the reader gets, each hit
with its window (as ``run_state`` scores ``recall@k``), where a unit holds only the turn ids of records of
the conversation itself: loop records (session ``loop-*``) never count as evidence, whatever their ids.
**Slots**: of the hits the reader gets (at most k), those whose record the loop wrote, split by role.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from cbmemory import Hit, MemoryRecord, Recall
from cbmemory.context import ContextConfig, memory_line, passage, shown_records

from .metrics import retrieval_metrics
from .questions import EvalQuestion
from .run_state import turn_ids

LOOP_VERSION = "2"  # the protocol: dates, session and turn ids, reply wording, wrong-answer rule, scores; 2: each step saved with its recall
SESSION_PREFIX = "loop-"
FIRST_DELAY = timedelta(days=1)
STEP = timedelta(minutes=10)
NOT_MENTIONED = "that was never mentioned"
NOTHING = "I found nothing about that in what you told me."
NO_LOOP = "no_loop"
LOOP = "loop"
TIMINGS = ("latency_ms", "embed_ms")  # the only fields of a row that differ between two runs


@dataclass(frozen=True, slots=True)
class LoopVariant:
    """One column of the benchmark: ``no_loop`` (the questions on the ingested store, nothing saved), ``loop``
    (every reply right) or ``loop_wrong<N>`` (every N-th reply of a conversation wrong)."""

    name: str
    loop: bool
    wrong_every: int | None = None

    def wrong(self, n: int) -> bool:
        """Whether the n-th reply (1-based, in the conversation's order) gives a wrong answer."""
        return self.wrong_every is not None and n % self.wrong_every == 0


def loop_variants(wrong_every: int | None) -> tuple[LoopVariant, ...]:
    """``no_loop``, ``loop`` and, when ``wrong_every`` is a number of at least 1, ``loop_wrong<N>``."""
    out = [LoopVariant(NO_LOOP, False), LoopVariant(LOOP, True)]
    if wrong_every:
        out.append(LoopVariant(f"{LOOP}_wrong{wrong_every}", True, wrong_every))
    return tuple(out)


# ---------------------------------------------------------------------------- one step, deterministic
def loop_session(q: EvalQuestion) -> str:
    """The session a question is asked in: ``loop-q12`` for LoCoMo's ``conv-26:q12``."""
    return SESSION_PREFIX + q.question_id.rsplit(":", 1)[-1]


def loop_turn_ids(session_id: str) -> tuple[str, str]:
    """The ids of the step's user turn and assistant turn."""
    return f"{session_id}:user", f"{session_id}:agent"


def asked_at(q: EvalQuestion, n: int) -> datetime:
    """When the n-th question (1-based) of a conversation is asked: its "today" is the conversation's last
    session date (``question_date``); the loop starts one day later, ten minutes per question."""
    return q.question_date + FIRST_DELAY + (n - 1) * STEP


def right_answer(q: EvalQuestion) -> str:
    """What a right reply says: the gold answer, or ``that was never mentioned`` when there is none."""
    return NOT_MENTIONED if q.unanswerable or not q.answer else str(q.answer)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def wrong_answer(questions: Sequence[EvalQuestion], i: int) -> str:
    """A wrong answer for ``questions[i]`` (one conversation's questions, in order): the right answer of the
    next question (cyclically) whose right answer differs from this one's; ``something else`` if none does."""
    mine = _norm(right_answer(questions[i]))
    for step in range(1, len(questions)):
        other = right_answer(questions[(i + step) % len(questions)])
        if _norm(other) != mine:
            return other
    return "something else"


def reply_text(top_line: str | None, answer: str) -> str:
    """The model's reply: the top memory restated as it was read, then the answer."""
    said = f"You told me: {top_line}" if top_line else NOTHING
    return f"{said} So: {answer}"


def top_line(found: Recall, shown: ContextConfig) -> str | None:
    """The first hit of ``found`` (best first) rendered as the model read it; ``None`` without hits."""
    return memory_line(found.hits[0], shown) if found.hits else None


# ---------------------------------------------------------------------------- scoring one recall
def is_loop_record(record: MemoryRecord) -> bool:
    """Whether the loop wrote ``record`` (a question or a reply of an agent step)."""
    return record.session_id.startswith(SESSION_PREFIX)


def source_units(hits: Sequence[Hit], *, windows: bool = True) -> list[frozenset[str]]:
    """Each hit as the conversation's own turns the reader gets from it (its record and, with ``windows``,
    its window's), loop records left out: a hit on a loop record is a unit that covers nothing."""
    return [frozenset(t for r in (passage(h) if windows else [h.record]) if not is_loop_record(r)
                      for t in turn_ids(r)) for h in hits]


def _role(r: MemoryRecord) -> str:
    return "user" if r.role == "user" else "agent"


def score(q: EvalQuestion, found: Recall, ks: Sequence[int]) -> dict[str, Any]:
    """The metrics of one recall: ``source_recall@c`` (and ``_all``, ``_any``, ``ndcg``) for each cut-off,
    ``hit_source_recall@c`` (hits without their windows), slots and what the reader gets."""
    hits = list(found.hits)
    m: dict[str, Any] = dict(retrieval_metrics(q.evidence, source_units(hits), ks, prefix="source_"))
    for c in ks:
        m[f"hit_source_recall@{c}"] = retrieval_metrics(q.evidence, source_units(hits, windows=False), [c],
                                                        prefix="hit_source_")[f"hit_source_recall@{c}"]
    loop_hits = [h.record for h in hits if is_loop_record(h.record)]
    shown = shown_records(found.context.hits)
    m.update({
        "hits": len(hits), "loop_slots": len(loop_hits),
        "loop_user_slots": sum(1 for r in loop_hits if _role(r) == "user"),
        "loop_agent_slots": sum(1 for r in loop_hits if _role(r) == "agent"),
        "top1_loop": float(bool(hits) and is_loop_record(hits[0].record)),
        "shown_records": len(shown), "shown_loop_records": sum(1 for r in shown if is_loop_record(r)),
        "tokens": found.context.tokens,
    })
    return m


def hits_json(found: Recall) -> list[dict[str, Any]]:
    """The hits best first, as the row keeps them: ids, session, who said it, whether the loop wrote it."""
    out = []
    for rank, h in enumerate(found.hits, 1):
        r = h.record
        out.append({"rank": rank, "turn_ids": list(turn_ids(r)), "session_id": r.session_id,
                    "role": r.role, "loop": is_loop_record(r),
                    **({"context_turn_ids": [t for c in h.context for t in turn_ids(c)]} if h.context else {}),
                    "score": round(float(h.score), 6)})
    return out


def shown_turn_ids(found: Recall) -> list[str]:
    """Every turn id the reader gets (hits and windows, loop turns included), in the order shown."""
    return [t for r in shown_records(found.context.hits) for t in turn_ids(r)]


__all__ = [
    "FIRST_DELAY", "LOOP", "LOOP_VERSION", "NOTHING", "NOT_MENTIONED", "NO_LOOP", "SESSION_PREFIX", "STEP",
    "TIMINGS", "LoopVariant", "asked_at", "hits_json", "is_loop_record", "loop_session", "loop_turn_ids",
    "loop_variants", "reply_text", "right_answer", "score", "shown_turn_ids", "source_units", "top_line",
    "wrong_answer",
]
