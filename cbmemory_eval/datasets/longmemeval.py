"""LongMemEval (Wu et al., ICLR 2025) as typed records with explicit evidence.

Reads the official files (``longmemeval_oracle.json``, ``longmemeval_s(_cleaned).json``,
``longmemeval_m(_cleaned).json``): a JSON list of questions, each with its own haystack of dated sessions.

- Question types: ``single-session-user`` (SSU), ``single-session-assistant`` (SSA),
  ``single-session-preference`` (SSP), ``multi-session`` (MS), ``temporal-reasoning`` (TR),
  ``knowledge-update`` (KU). A ``question_id`` ending in ``_abs`` is an abstention question.
- Evidence: ``answer_session_ids`` (session level) and turns marked ``has_answer: true`` (turn level).
  A turn's id is ``f"{session_id}:{index}"`` with ``index`` its position in the session as given.
- Quirks handled: integer answers (cast to str), empty turns (skipped; the other turns keep their
  original index), a session id repeated within one haystack (the later copies get ``#2``, ``#3``...),
  oracle haystacks that are not sorted by date (kept as given; every session carries its own date).

Each question is ingested under its own user id (its ``question_id``); haystacks shared between questions
cost no second embedding thanks to the content-hash cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cbmemory import InvalidInputError, Message
from cbmemory.dates import to_utc

from .formats import LONGMEMEVAL, DatasetFormatError, check_items, looks_like, read_json

QUESTION_TYPES = {
    "single-session-user": "SSU",
    "single-session-assistant": "SSA",
    "single-session-preference": "SSP",
    "multi-session": "MS",
    "temporal-reasoning": "TR",
    "knowledge-update": "KU",
}
ABSTENTION = "abstention"
_REQUIRED = ("question_id", "question_type", "question", "answer", "question_date", "haystack_session_ids",
             "haystack_dates", "haystack_sessions")


@dataclass(frozen=True, slots=True)
class LongMemEvalSession:
    session_id: str
    date: datetime
    messages: tuple[Message, ...]


@dataclass(frozen=True, slots=True)
class LongMemEvalQuestion:
    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: datetime
    sessions: tuple[LongMemEvalSession, ...]
    answer_session_ids: tuple[str, ...]
    evidence: tuple[str, ...]  # turn ids of turns marked has_answer

    @property
    def is_abstention(self) -> bool:
        return self.question_id.endswith("_abs")

    @property
    def category_name(self) -> str:
        """``abstention`` for ``_abs`` questions, else the question type."""
        return ABSTENTION if self.is_abstention else self.question_type

    @property
    def short_type(self) -> str:
        return QUESTION_TYPES.get(self.question_type, self.question_type)


def _bad(where: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"LongMemEval {where}: {why}")


def parse_question(obj: object, where: str = "question") -> LongMemEvalQuestion:
    """One official LongMemEval instance (a dict) as a typed record; raises ``InvalidInputError`` naming
    the field when the instance does not follow the official format."""
    if not isinstance(obj, dict):
        raise _bad(where, f"expected an object, got {type(obj).__name__}")
    missing = [k for k in _REQUIRED if k not in obj]
    if missing:
        raise _bad(where, f"missing keys {missing}")
    qid = str(obj["question_id"])
    where = f"question {qid!r}"
    ids, dates, sessions = obj["haystack_session_ids"], obj["haystack_dates"], obj["haystack_sessions"]
    if not (isinstance(ids, list) and isinstance(dates, list) and isinstance(sessions, list)):
        raise _bad(where, "haystack_session_ids, haystack_dates and haystack_sessions must be lists")
    if not len(ids) == len(dates) == len(sessions):
        raise _bad(where, f"haystack lists differ in length ({len(ids)} ids, {len(dates)} dates, "
                          f"{len(sessions)} sessions)")
    seen: dict[str, int] = {}
    out: list[LongMemEvalSession] = []
    evidence: list[str] = []
    for sid, date, turns in zip(ids, dates, sessions, strict=True):
        sid = str(sid)
        seen[sid] = seen.get(sid, 0) + 1
        if seen[sid] > 1:
            sid = f"{sid}#{seen[sid]}"
        if not isinstance(turns, list):
            raise _bad(where, f"session {sid!r} is not a list of turns")
        messages = []
        for i, t in enumerate(turns):
            if not isinstance(t, dict) or "role" not in t or "content" not in t:
                raise _bad(where, f"turn {i} of session {sid!r} needs 'role' and 'content'")
            content = str(t["content"])
            if not content.strip():
                continue
            turn_id = f"{sid}:{i}"
            messages.append(Message(str(t["role"]), content, None, turn_id))
            if t.get("has_answer") is True:
                evidence.append(turn_id)
        if messages:
            out.append(LongMemEvalSession(sid, to_utc(str(date)), tuple(messages)))
    answer_sessions = obj.get("answer_session_ids") or []
    return LongMemEvalQuestion(
        question_id=qid,
        question_type=str(obj["question_type"]),
        question=str(obj["question"]),
        answer=str(obj["answer"]),
        question_date=to_utc(str(obj["question_date"])),
        sessions=tuple(out),
        answer_session_ids=tuple(str(s) for s in answer_sessions),
        evidence=tuple(evidence),
    )


def load_longmemeval(path: str | Path) -> list[LongMemEvalQuestion]:
    """All questions of an official LongMemEval file (a JSON list; a single instance object is accepted). A
    file in another format raises ``DatasetFormatError`` naming the file and what was expected."""
    data = read_json(path, LONGMEMEVAL)
    if looks_like(data) == LONGMEMEVAL:
        data = [data]
    items = check_items(data, path, LONGMEMEVAL)
    out = []
    for i, obj in enumerate(items):
        try:
            out.append(parse_question(obj, f"item {i}"))
        except InvalidInputError as exc:  # a bad date too
            raise DatasetFormatError(f"{path}: {exc}") from None
    return out
