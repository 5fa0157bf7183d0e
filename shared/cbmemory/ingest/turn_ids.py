"""Turn ids made from a turn's content, for frameworks whose messages carry no id of their own (LlamaIndex's
``ChatMessage``). Pure functions: no store is read here (``cbmemory.integration.stored_copies`` reads what
``plan_turns`` needs).

A turn's id is ``<prefix><sha256(role, text)[:16]>:<n>``, where ``n`` counts the earlier turns of the same
session with the same role and text. Putting the same history twice therefore stores nothing new, while a
genuinely repeated message ("ok", "ok") is kept twice.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence

from ..models import MemoryRecord, Message


def content_key(role: str, text: str) -> str:
    """The part of a turn's id its role and text make (16 hex digits of their SHA-256)."""
    return hashlib.sha256(f"{role}\x1f{text}".encode()).hexdigest()[:16]


def _stored_keys(records: Iterable[MemoryRecord], prefix: str) -> tuple[Counter[str], set[str]]:
    counts: Counter[str] = Counter()
    ids: set[str] = set()
    for r in records:
        if r.turn_id and r.turn_id.startswith(prefix):
            ids.add(r.turn_id)
            counts[r.turn_id[len(prefix):].split(":")[0]] += 1
    return counts, ids


def plan_turns(turns: Sequence[tuple[str, str]], stored: Sequence[MemoryRecord], *, prefix: str, append: bool,
               last: MemoryRecord | None = None) -> list[Message]:
    """The ``(role, text)`` turns still to be stored, with their content ids, in a session that already holds
    ``stored`` (at least the records of ids with ``prefix`` that these turns may have).

    ``append``: the turns come after the stored ones, so ordinals continue from the stored counts. Otherwise
    the turns are the session's history from its start, so ordinals count within ``turns`` and turns already
    stored are skipped. ``last``: the session's last stored turn, when the caller knows what a re-sent run is:
    a user turn given again while the session's last turn is that same user turn (its run got no reply: it
    failed) is that turn (the same id: stored once); a turn the user says again after a reply is a new turn.
    """
    counts, ids = _stored_keys(stored, prefix)
    seen: Counter[str] = counts if append else Counter()
    last = last if append else None
    out: list[Message] = []
    for role, text in turns:
        key = content_key(role, text)
        if not out and last is not None and role == "user" and last.turn_id == f"{prefix}{key}:{seen[key] - 1}":
            seen[key] -= 1  # the user's message again, unanswered since: the run that failed, re-sent
        turn_id = f"{prefix}{key}:{seen[key]}"
        seen[key] += 1
        if turn_id not in ids:
            out.append(Message(role, text, turn_id=turn_id))
    return out


__all__ = ["content_key", "plan_turns"]
