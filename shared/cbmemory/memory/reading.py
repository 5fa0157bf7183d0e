"""What a write needs to read from the store first: the records an append continues from, and the raw records
an enricher reads around new ones. Functions of the store and their arguments; nothing is written here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from ..ingest import RAW_KINDS, IngestConfig, build_records, record_id
from ..models import MemoryRecord, Message, SearchFilters, Session
from ..store.base import MemoryStore
from .updates import linked as linked  # links to the statements a write changes: read first

_BEFORE_ALL = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True, slots=True)
class Append:
    """An append planned against the store: the session (as stored, or new), the records to write, and how
    many of the messages were stored already (a retried append: same turn ids)."""

    session: Session
    records: list[MemoryRecord]
    known: int


def plan_append(store: MemoryStore, ingest: IngestConfig, user_id: str, session_id: str, msgs: Sequence[Message],
                occurred: datetime, now: datetime, expires_at: datetime | None) -> Append:
    """The records that append ``msgs`` to the session: positions count on from every stored record
    (expired ones too: they hold their positions), the turn before the first is the stored last one, the
    session's annotations are copied; messages whose turn id is stored already are left out. ``occurred``:
    the session's date when it is new."""
    kind = ingest.unit
    known = {r.turn_id for r in store.get_records(
        user_id, [record_id(user_id, session_id, kind, m.turn_id) for m in msgs if m.turn_id])}
    fresh = [m for m in msgs if m.turn_id is None or m.turn_id not in known]
    session = store.get_session(user_id, session_id) or Session(user_id, session_id, occurred)
    if not fresh:
        return Append(session, [], len(known))
    last = store.list_records(user_id, SearchFilters(session_ids=(session_id,), kinds=(kind,)), limit=1,
                              newest_first=True, now=_BEFORE_ALL)
    previous = Message(last[0].role, last[0].text, last[0].speaker) if last else None
    records = build_records(user_id, session_id, fresh, session.occurred_at, now, config=ingest,
                            start_position=last[0].position + 1 if last else 0, previous=previous,
                            annotations=session.annotations, expires_at=expires_at, append=True)
    return Append(session, records, len(known))


def stored_raw(store: MemoryStore, records: Sequence[MemoryRecord], now: datetime) -> list[MemoryRecord]:
    """The stored raw records of the sessions ``records`` belong to (an enricher's context)."""
    by_user: dict[str, set[str]] = {}
    for r in records:
        by_user.setdefault(r.user_id, set()).add(r.session_id)
    return [rec for user, sids in by_user.items()
            for rec in store.list_records(user, SearchFilters(session_ids=tuple(sorted(sids)), kinds=RAW_KINDS),
                                          now=now)]


__all__ = ["Append", "plan_append", "stored_raw"]
