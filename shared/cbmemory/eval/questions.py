"""The evaluation's view of a dataset: haystacks (one per user) and questions with explicit evidence.

LoCoMo: one user per conversation (``user_id = sample_id``); LoCoMo has no question date, so "today" is
the conversation's last session date (``date_source = "last_session"``). LongMemEval: one user per
question (``user_id = question_id``) with the question's own haystack and date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Protocol

from ..datasets.locomo import CATEGORIES, MEM0_LABELS
from ..datasets.longmemeval import ABSTENTION, QUESTION_TYPES
from ..models import Message


class SessionLike(Protocol):
    session_id: str
    date: datetime
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class Haystack:
    """The sessions one user's memory is built from."""

    user_id: str
    sessions: tuple[SessionLike, ...]

    def batches(self) -> list[tuple[str, tuple[Message, ...], datetime]]:
        return [(s.session_id, s.messages, s.date) for s in self.sessions]

    @property
    def turns(self) -> int:
        return sum(len(s.messages) for s in self.sessions)


@dataclass(frozen=True, slots=True)
class Category:
    name: str
    code: str  # LoCoMo's official id ("1".."5") or LongMemEval's abbreviation ("SSU", ..., "ABS")
    alt_label: str | None = None  # the mem0-lineage label for LoCoMo ids
    unanswerable: bool = False

    @property
    def header(self) -> str:
        alt = f"; mem0: {self.alt_label}" if self.alt_label and self.alt_label != self.name else ""
        return f"{self.name} ({self.code}{alt})"


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    question_id: str
    user_id: str
    question: str
    answer: str | None
    category: str
    category_code: str
    evidence: tuple[str, ...]  # gold turn ids
    evidence_sessions: tuple[str, ...]  # gold session ids
    question_date: datetime
    date_source: str  # "question" (LongMemEval) or "last_session" (LoCoMo)
    unanswerable: bool = False
    temporal: bool = False
    tempting_wrong: str | None = None  # LoCoMo's adversarial_answer


@dataclass(frozen=True)
class EvalSet:
    dataset: str
    haystacks: Mapping[str, Haystack]
    questions: tuple[EvalQuestion, ...]
    categories: tuple[Category, ...]

    def category(self, name: str) -> Category:
        return next(c for c in self.categories if c.name == name)


def from_locomo(conversations: Sequence, *, haystacks: Mapping[str, Haystack] | None = None) -> EvalSet:
    """``conversations``: ``LocomoConversation`` records; ``haystacks`` replaces their sessions (scaling)."""
    hs = dict(haystacks) if haystacks else {c.sample_id: Haystack(c.sample_id, c.sessions) for c in conversations}
    questions = []
    for conv in conversations:
        for q in conv.questions:
            questions.append(EvalQuestion(
                question_id=q.question_id, user_id=conv.sample_id, question=q.question, answer=q.answer,
                category=q.category_name, category_code=str(q.category), evidence=q.evidence,
                evidence_sessions=tuple(dict.fromkeys(conv.session_of(t) for t in q.evidence)),
                question_date=conv.last_date, date_source="last_session", unanswerable=q.category == 5,
                temporal=q.category == 2, tempting_wrong=q.adversarial_answer,
            ))
    cats = tuple(Category(CATEGORIES[i], str(i), MEM0_LABELS[i], i == 5) for i in sorted(CATEGORIES))
    return EvalSet("locomo", MappingProxyType(hs), tuple(questions), cats)


def from_longmemeval(records: Sequence) -> EvalSet:
    """``records``: ``LongMemEvalQuestion`` records; each question is its own user."""
    hs = {r.question_id: Haystack(r.question_id, r.sessions) for r in records}
    questions = tuple(EvalQuestion(
        question_id=r.question_id, user_id=r.question_id, question=r.question, answer=r.answer,
        category=r.category_name, category_code="ABS" if r.is_abstention else r.short_type,
        evidence=r.evidence, evidence_sessions=r.answer_session_ids, question_date=r.question_date,
        date_source="question", unanswerable=r.is_abstention, temporal=r.question_type == "temporal-reasoning",
    ) for r in records)
    cats = [Category(name, code) for name, code in QUESTION_TYPES.items()]
    cats.append(Category(ABSTENTION, "ABS", None, True))
    return EvalSet("longmemeval", MappingProxyType(hs), questions, tuple(cats))


def select(questions: Sequence[EvalQuestion], limit: int | None) -> list[EvalQuestion]:
    """A category-balanced subset of at most ``limit`` questions: round-robin over categories, each in file
    order. Deterministic; the result keeps file order."""
    if limit is None or limit >= len(questions):
        return list(questions)
    by_cat: dict[str, list[int]] = {}
    for i, q in enumerate(questions):
        by_cat.setdefault(q.category, []).append(i)
    chosen: list[int] = []
    depth = 0
    while len(chosen) < limit:
        for idx in by_cat.values():
            if depth < len(idx) and len(chosen) < limit:
                chosen.append(idx[depth])
        depth += 1
    return [questions[i] for i in sorted(chosen)]
