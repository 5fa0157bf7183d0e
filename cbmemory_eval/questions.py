"""The evaluation's view of a dataset: haystacks (one per user) and questions with explicit evidence.

LoCoMo: one user per conversation (``user_id = sample_id``); LoCoMo has no question date, so "today" is
the conversation's last session date (``date_source = "last_session"``). LongMemEval: one user per
question (``user_id = question_id``) with the question's own haystack and date.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Protocol

from cbmemory import InvalidInputError, Message

from .datasets.locomo import CATEGORIES, MEM0_LABELS
from .datasets.longmemeval import ABSTENTION, QUESTION_TYPES


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


def _balanced(pools: Mapping[str, Sequence[EvalQuestion]], n: int) -> list[EvalQuestion]:
    """``n`` questions from ``pools`` (category -> questions in the order to take them): round-robin over
    the categories, and within a category the next question of the conversation (``user_id``) that has
    given the fewest so far, ties to the one met first. Deterministic for the same pools."""
    queues = {c: list(qs) for c, qs in pools.items() if qs}
    users: dict[str, int] = {}
    for qs in queues.values():
        for q in qs:
            users.setdefault(q.user_id, len(users))
    taken = dict.fromkeys(users, 0)
    chosen: list[EvalQuestion] = []
    while len(chosen) < n and queues:
        for cat in list(queues):
            if len(chosen) >= n:
                break
            queue = queues[cat]
            pick = min(range(len(queue)), key=lambda i: (taken[queue[i].user_id], users[queue[i].user_id], i))
            q = queue.pop(pick)
            taken[q.user_id] += 1
            chosen.append(q)
            if not queue:
                del queues[cat]
    return chosen


def _in_file_order(questions: Sequence[EvalQuestion], chosen: Sequence[EvalQuestion]) -> list[EvalQuestion]:
    ids = {q.question_id for q in chosen}
    return [q for q in questions if q.question_id in ids]


def select(questions: Sequence[EvalQuestion], limit: int | None) -> list[EvalQuestion]:
    """A subset of at most ``limit`` questions balanced over categories and, within each category, over
    conversations (``user_id``): round-robin over the categories, each time the next question in file
    order of the conversation that has given the fewest. Deterministic; the result keeps file order."""
    if limit is None or limit >= len(questions):
        return list(questions)
    pools: dict[str, list[EvalQuestion]] = {}
    for q in questions:
        pools.setdefault(q.category, []).append(q)
    return _in_file_order(questions, _balanced(pools, limit))


# ---------------------------------------------------------------------------- fixed-seed samples
OTHER = "other"


class SampleSpecError(InvalidInputError):
    """A ``--sample`` spec that does not parse or names a category the dataset does not have."""


@dataclass(frozen=True)
class SampleSpec:
    """How many questions to draw per group: ``(("temporal", 60), ("other", 40))``. A group is a category
    (by name or code) or ``other``, every category not named. Written ``temporal=60,other=40``."""

    groups: tuple[tuple[str, int], ...]

    @classmethod
    def parse(cls, text: str) -> SampleSpec:
        groups: list[tuple[str, int]] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            name, sep, count = part.partition("=")
            if not sep or not name.strip() or not count.strip().isdigit() or int(count) < 1:
                raise SampleSpecError(f"--sample {text!r}: each part is NAME=N with N >= 1, e.g. temporal=60,other=40")
            groups.append((name.strip(), int(count)))
        names = [g for g, _ in groups]
        if not groups or len(set(names)) != len(names):
            raise SampleSpecError(f"--sample {text!r}: name each group once, e.g. temporal=60,other=40")
        return cls(tuple(groups))

    def __str__(self) -> str:
        return ",".join(f"{g}={n}" for g, n in self.groups)


def _group_categories(spec: SampleSpec, categories: Sequence[Category]) -> dict[str, list[str]]:
    """Each group's category names (``other``: every category no other group names)."""
    named: dict[str, list[str]] = {}
    for group, _ in spec.groups:
        if group == OTHER:
            continue
        match = [c.name for c in categories if group in (c.name, c.code)]
        if not match:
            known = ", ".join(f"{c.name} ({c.code})" for c in categories)
            raise SampleSpecError(f"--sample names {group!r}, not a category of this dataset; known: {known}, or "
                                  f"{OTHER!r} for the rest")
        named[group] = match
    taken = [c for cats in named.values() for c in cats]
    if len(set(taken)) != len(taken):
        raise SampleSpecError(f"--sample {spec}: two groups name the same category")
    if any(g == OTHER for g, _ in spec.groups):
        named[OTHER] = [c.name for c in categories if c.name not in taken]
    return named


def sample(eval_set: EvalSet, spec: SampleSpec, seed: int) -> list[EvalQuestion]:
    """A fixed-seed draw of ``spec``'s questions from ``eval_set``: within each group the questions of
    every category are shuffled with a generator seeded by (``seed``, group, category), then taken
    balanced over the group's categories and conversations (``user_id``) as ``select`` does. The same seed
    and data give the same questions on every run and machine (resumed runs rely on it); a group with
    fewer questions than asked gives all it has. The result keeps file order."""
    chosen: list[EvalQuestion] = []
    for group, cats in _group_categories(spec, eval_set.categories).items():
        pools: dict[str, list[EvalQuestion]] = {}
        for cat in cats:
            pool = sorted((q for q in eval_set.questions if q.category == cat), key=lambda q: q.question_id)
            random.Random(f"{seed}|{group}|{cat}").shuffle(pool)
            pools[cat] = pool
        chosen += _balanced(pools, dict(spec.groups)[group])
    return _in_file_order(eval_set.questions, chosen)
