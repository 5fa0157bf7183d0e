"""Pure, frozen data: messages in, memory records stored, hits out. No database or embedding code here.

Two clocks are kept apart on every record: ``occurred_at`` (when the conversation happened, the session
date) and ``ingested_at`` (when cbmemory stored it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Literal

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "tool"})
RecordKind = Literal["turn", "round", "summary", "event"]

_EMPTY: Mapping[str, str] = MappingProxyType({})


def frozen_mapping(value: Mapping[str, str] | None) -> Mapping[str, str]:
    """A read-only copy, so a record's annotations cannot change after it is built."""
    return MappingProxyType(dict(value)) if value else _EMPTY


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation turn as a caller hands it in."""

    role: str
    content: str
    speaker: str | None = None
    turn_id: str | None = None
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class Session:
    """A conversation session: its event time and annotations."""

    user_id: str
    session_id: str
    occurred_at: datetime
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """The retrievable unit: one turn (default) or one round, stored verbatim.

    ``text`` is the raw message; ``index_text`` is what is embedded and full-text indexed (by default the
    raw text prefixed with the session date and speaker). ``content_hash`` is the sha256 of ``index_text``
    and keys the embedding cache. ``source_ids`` links derived records (rounds, summaries, events) to the
    turn ids they came from.
    """

    record_id: str
    user_id: str
    session_id: str
    kind: str
    position: int
    role: str
    text: str
    index_text: str
    occurred_at: datetime
    ingested_at: datetime
    content_hash: str
    turn_id: str | None = None
    speaker: str | None = None
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    expires_at: datetime | None = None
    source_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions applied inside one user's memory. ``None`` means no restriction.

    Time bounds are inclusive. ``annotations`` must all match exactly.
    """

    session_ids: tuple[str, ...] | None = None
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    ingested_after: datetime | None = None
    ingested_before: datetime | None = None
    annotations: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    kinds: tuple[str, ...] | None = None


NO_FILTERS = SearchFilters()


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result. ``score`` is higher-is-better; its scale depends on the signal or fusion.

    ``signals`` maps each signal that found the record (``vector``, ``bm25``, ``entity``, ...) to its raw
    score; ``ranks`` to its 1-based rank in that signal's list. ``recipe`` names the recipe that produced it.
    """

    record: MemoryRecord
    score: float
    signals: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    ranks: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    recipe: str | None = None


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What one write did: records newly stored, records replaced because their content changed, and
    records that were already there unchanged (re-ingest is idempotent)."""

    inserted: int
    replaced: int
    unchanged: int
    record_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ForgetResult:
    """What ``forget`` erased: records (raw and derived) and sessions, in one transaction.

    ``wiped`` is False when the erased bytes could not yet be overwritten everywhere on disk (another
    connection was reading an older snapshot); the store finishes the wipe at its next write or close.
    """

    records: int
    sessions: int
    wiped: bool = True

