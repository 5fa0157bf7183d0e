"""Pure, frozen data: messages in, memory records stored, hits out. No database or embedding code here.

Two clocks are kept apart on every record: ``occurred_at`` (when the conversation happened, the session
date) and ``ingested_at`` (when cbmemory stored it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Literal, NoReturn, TypeVar

from .dates import to_utc
from .errors import InvalidDateError, InvalidInputError
from .text import LONE_SURROGATE

Role = Literal["user", "assistant", "system", "tool"]
ROLES: frozenset[str] = frozenset({"user", "assistant", "system", "tool"})
# Pairs of one search filter's annotations: each is one exact match every backend evaluates (one lookup in the
# embedded store's pair index, one term query in Couchbase Search, one SQL++ condition); an application
# filters by a few tags, not by dozens (cbmemory.validation lists every limit).
MAX_FILTER_ANNOTATIONS = 16
RecordKind = Literal["turn", "round", "summary", "event", "passage"]
RAW_KINDS: tuple[str, ...] = ("turn", "round")  # kinds made from messages; the others are derived from them
# A passage record's place in its message (``cbmemory.ingest.passages``): ``kind:start:end:total``.
PASSAGE_KEY = "cbmemory.passage"
# The annotations an LLM enricher's slot keys are stored in (``cbmemory.ingest.slots``): reserved, a message's
# or a session's annotations may not use a key starting with it (``validation.check_annotations``).
SLOT_PREFIX = "cbmemory.slot"

_V = TypeVar("_V")

# One shared empty mapping. Its value type is the bottom type: ``Mapping`` is covariant in its values, so it
# stands for an empty ``Mapping[str, str]`` (annotations), ``Mapping[str, float]`` (scores) and so on.
_EMPTY: Mapping[str, NoReturn] = MappingProxyType({})


def frozen_mapping(value: Mapping[str, _V] | None = None) -> Mapping[str, _V]:
    """A read-only copy, so a record's annotations (or a hit's scores and ranks) cannot change after it is
    built. With no value (or an empty one), the shared empty mapping; also the fields' default factory."""
    return MappingProxyType(dict(value)) if value else _EMPTY


@dataclass(frozen=True, slots=True)
class Message:
    """One conversation turn as a caller hands it in. ``restates``: the record ids of memories this turn
    only restates (set by ``AgentMemory.save`` for a turn of an agent step that says again what the model
    was shown; kept as the record's ``source_ids``), so that retrieval shows those memories, not the echo."""

    role: str
    content: str
    speaker: str | None = None
    turn_id: str | None = None
    annotations: Mapping[str, str] = field(default_factory=frozen_mapping)
    restates: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Session:
    """A conversation session: its event time and annotations."""

    user_id: str
    session_id: str
    occurred_at: datetime
    annotations: Mapping[str, str] = field(default_factory=frozen_mapping)


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """The retrievable unit: one turn (default) or one round, stored verbatim.

    ``text`` is the raw message; ``index_text`` is what is embedded and full-text indexed (by default the
    raw text prefixed with the session date and speaker). ``content_hash`` is the sha256 of ``index_text``
    and keys the embedding cache. ``source_ids`` links derived records (rounds, summaries, events) to the
    turn ids they came from. ``supersedes``: the ids of the user's earlier records whose statement this one
    changes (the same matter, a new value: "I live in Porto now" after "I live in Paris"); nothing is deleted,
    the older record stays as history (``MemoryStore.superseding`` finds the links from the older side).
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
    annotations: Mapping[str, str] = field(default_factory=frozen_mapping)
    expires_at: datetime | None = None
    source_ids: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions applied inside one user's memory. ``None`` means no restriction.

    Time bounds are inclusive; datetimes, dates and ISO strings are accepted and kept as aware UTC (a bound
    beyond the supported date range is clamped to it). ``session_ids`` and ``kinds`` are collections of
    strings (a list or set becomes a tuple; a bare string is refused). ``annotations`` must all match exactly;
    at most ``MAX_FILTER_ANNOTATIONS`` (16) pairs.
    """

    session_ids: tuple[str, ...] | None = None
    occurred_after: datetime | None = None
    occurred_before: datetime | None = None
    ingested_after: datetime | None = None
    ingested_before: datetime | None = None
    annotations: Mapping[str, str] = field(default_factory=frozen_mapping)
    kinds: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("session_ids", "kinds"):
            object.__setattr__(self, name, _filter_strings(getattr(self, name), name))
        for name in ("occurred_after", "occurred_before", "ingested_after", "ingested_before"):
            value = getattr(self, name)
            if value is not None:
                try:
                    object.__setattr__(self, name, to_utc(value, clamp=True))
                except InvalidDateError as exc:
                    raise InvalidDateError(f"SearchFilters.{name}: {exc}") from exc
        ann = self.annotations
        if not isinstance(ann, Mapping):
            raise InvalidInputError(
                f"SearchFilters.annotations must be a mapping of str to str, got {type(ann).__name__}")
        keys, values = tuple(ann), tuple(ann.values())
        _filter_strings(keys, "annotations keys")
        _filter_strings(values, "annotations values")
        if len(ann) > MAX_FILTER_ANNOTATIONS:  # a key or value longer than any stored costs nothing more
            raise InvalidInputError(f"SearchFilters.annotations has {len(ann)} pairs; the limit is "
                                    f"{MAX_FILTER_ANNOTATIONS} (MAX_FILTER_ANNOTATIONS)")
        object.__setattr__(self, "annotations", frozen_mapping(dict(zip(keys, values, strict=True))))


def _filter_strings(value: Iterable[str] | None, name: str) -> tuple[str, ...] | None:
    """A filter's collection of strings as a tuple, each a valid Unicode str (values are matched exactly)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes, bytearray)):
        example = (value if isinstance(value, str) else "s1",)
        raise InvalidInputError(
            f"SearchFilters.{name} must be a collection of strings such as {example!r}, not a single "
            f"{type(value).__name__}"
        )
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise InvalidInputError(f"SearchFilters.{name} must be a tuple of str, got {type(value).__name__}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise InvalidInputError(f"SearchFilters.{name} must hold str, got {type(item).__name__} {item!r}")
        if LONE_SURROGATE.search(item):
            raise InvalidInputError(f"SearchFilters.{name}: {item!r} has a lone surrogate (invalid Unicode)")
    return items


NO_FILTERS = SearchFilters()


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result. ``score`` is higher-is-better; its scale depends on the signal or fusion.

    ``signals`` maps each signal that found the record (``vector``, ``bm25``, ``entity``, ...) to its raw
    score; ``ranks`` to its 1-based rank in that signal's list. ``recipe`` names the recipe that produced it.
    ``context``: the adjacent turns of its session shown with it (the recipe's ``window``), in session
    order, without the record itself; empty when the recipe shows hits alone.
    ``superseded_by``: the ids of the user's later records that change what this record says
    (``MemoryRecord.supersedes``); ``changed``: for each record this hit shows (itself and its context) that a
    later one changes, when the change was said (the earliest such record's date), which the context marks.
    """

    record: MemoryRecord
    score: float
    signals: Mapping[str, float] = field(default_factory=frozen_mapping)
    ranks: Mapping[str, int] = field(default_factory=frozen_mapping)
    recipe: str | None = None
    context: tuple[MemoryRecord, ...] = ()
    superseded_by: tuple[str, ...] = ()
    changed: Mapping[str, datetime] = field(default_factory=frozen_mapping)


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


def passage_place(record: MemoryRecord) -> tuple[str, int, int, int] | None:
    """A passage's place in its message: ``(message kind, start, end, message length)``; ``None`` for
    another record (or a passage whose annotation does not read as one)."""
    if record.kind != "passage":
        return None
    kind, _, rest = record.annotations.get(PASSAGE_KEY, "").partition(":")
    try:
        start, end, total = (int(x) for x in rest.split(":"))
    except ValueError:
        return None
    return (kind, start, end, total) if 0 <= start <= end <= total else None


def conversation_order(record: MemoryRecord) -> tuple[datetime, str, int]:
    """A record's place in its user's conversation: by date, then session, then position."""
    return record.occurred_at, record.session_id, record.position


def place_kind(kind: str, record_id: str) -> str:
    """The kind a record's place is told apart by: each passage of a long message a place of its own (the
    passages share their message's session and position, not their text)."""
    return kind if kind != "passage" else f"passage {record_id}"
