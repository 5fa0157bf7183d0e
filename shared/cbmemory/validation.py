"""Input checks shared by every entry point. Each failure is an ``InvalidInputError`` naming the field. Also
the agent seam's cleaning (``clean_text``, ``clean_id``, ``stable_id``, ``clean_query``, ``storable``): what
``save`` and ``recall`` (``cbmemory.agent``, which fail open) make of an input they take rather than refuse.

Annotations (``check_annotations``, ``check_annotation_limits``) are small metadata, and are bounded because
they multiply: a session's annotations are copied onto every record of it, a round's onto the messages' own,
and every record's are read back with it and matched by annotation filters. Limits, each refused with an
``InvalidInputError`` that names it, before anything is stored:

- a key is an id: at most ``MAX_ID_CHARS`` (256) characters, no control characters;
- a value: at most ``MAX_ANNOTATION_CHARS`` (4,096) characters, no NUL (room for an image caption);
- at most ``MAX_ANNOTATION_KEYS`` (64) keys per mapping: a message's, a session's, and a record's own, which
  holds its session's merged under its messages' (a round's merges several messages');
- at most ``MAX_ANNOTATION_BYTES`` (64 KiB) of UTF-8 in one mapping, keys and values together: room for a
  LangGraph store item's JSON value of about 60 KB (``CbMemoryStore`` keeps it in annotation parts), or all
  64 keys with 1 KB values. A session's annotations are stored with each of its records, so a 20-turn
  session holds at most 1.3 MB of them (without the limit, 10,000 keys of 4 KB made 823 MB and one search
  read gigabytes);
- a key starting with ``SLOT_PREFIX`` (``cbmemory.slot``) is cbmemory's own: where an LLM enricher stores
  the slot keys of the user's facts (``cbmemory.ingest.slots``), which link a statement to the earlier ones
  it changes, so a message's or a session's annotations cannot forge one;
- a search filter (``SearchFilters.annotations``, checked by the model itself): at most
  ``MAX_FILTER_ANNOTATIONS`` (16) pairs; each pair is one exact match every backend evaluates (one lookup
  in the embedded store's pair index, one term query in Couchbase Search, one SQL++ condition), and an
  application filters by a few tags, not by dozens.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from .dates import MAX_INSTANT, MIN_INSTANT, to_utc
from .errors import InvalidDateError, InvalidInputError, InvalidVectorError
from .models import MAX_FILTER_ANNOTATIONS as MAX_FILTER_ANNOTATIONS  # re-exported: every limit is named here
from .models import ROLES, SLOT_PREFIX, Message
from .text import LONE_SURROGATE

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

MAX_TEXT_CHARS = 100_000
MAX_ID_CHARS = 256
MAX_ANNOTATION_CHARS = 4_096  # characters of one annotation value
MAX_ANNOTATION_KEYS = 64  # keys of one annotation mapping (a message's, a session's, a record's)
MAX_ANNOTATION_BYTES = 65_536  # UTF-8 bytes of one mapping's keys and values together
MAX_QUERY_CHARS = 10_000
MAX_K = 10_000  # results one search returns at most
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_DAY = re.compile(r"\s*\d{4}([-/])\d{2}\1\d{2}\s*(?:\([A-Za-z]{3}\))?\s*")  # a date without a time of day


def check_unicode(value: str, what: str) -> str:
    """Refuse a str with a lone surrogate (e.g. ``"\\ud800"``, from a bad decode or JSON escape): it cannot be
    encoded to UTF-8, so it could be neither stored nor searched."""
    if (m := LONE_SURROGATE.search(value)) is not None:
        raise InvalidInputError(
            f"{what} contains a lone surrogate {m.group()!r} at position {m.start()}; it is not valid "
            "Unicode (decode the source bytes with errors='replace')"
        )
    return value


def check_id(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{what} must not be empty")
    if len(value) > MAX_ID_CHARS:
        raise InvalidInputError(f"{what} is longer than {MAX_ID_CHARS} characters")
    if _CONTROL.search(value):
        raise InvalidInputError(f"{what} {value!r} contains control characters")
    return check_unicode(value, what)


def check_text(value: object, what: str = "text") -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"{what} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{what} must not be empty or whitespace only")
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidInputError(f"{what} has {len(value)} characters; the limit is {MAX_TEXT_CHARS}")
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains a NUL character")
    return check_unicode(value, what)


def check_role(value: object) -> str:
    if not isinstance(value, str) or value not in ROLES:
        raise InvalidInputError(f"unknown role {value!r}; expected one of {sorted(ROLES)}")
    return value


def check_annotations(value: object, what: str = "annotations") -> dict[str, str]:
    """A mapping of str to str (``None`` for none), checked and copied; anything else is refused, and so is
    one beyond the limits (module docstring)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{what} must be a mapping of str to str")
    if len(value) > MAX_ANNOTATION_KEYS:  # before reading a key: a huge mapping is refused at once
        check_annotation_limits(value, what)
    out: dict[str, str] = {}
    for key, val in value.items():
        check_id(key, f"{what} key")
        if key.startswith(SLOT_PREFIX):
            raise InvalidInputError(f"{what} key {key!r} starts with {SLOT_PREFIX!r}, which cbmemory reserves for "
                                    "the slot keys its enricher stores; choose another key")
        if not isinstance(val, str):
            raise InvalidInputError(f"{what}[{key!r}] must be a string, got {type(val).__name__}")
        if len(val) > MAX_ANNOTATION_CHARS:
            check_annotation_limits({key: val}, what)  # raises, naming the limit
        if "\x00" in val:
            raise InvalidInputError(f"{what}[{key!r}] contains NUL")
        out[key] = check_unicode(val, f"{what}[{key!r}]")
    check_annotation_limits(out, what)  # value lengths, then the total
    return out


def annotation_bytes(value: Mapping[str, str]) -> int:
    """UTF-8 bytes of a mapping's keys and values together (what ``MAX_ANNOTATION_BYTES`` bounds)."""
    return sum(len(k.encode("utf-8", "surrogatepass")) + len(v.encode("utf-8", "surrogatepass"))
               for k, v in value.items())


def check_annotation_limits(value: Mapping[str, str], what: str = "annotations") -> None:
    """Refuse a mapping of annotations beyond the limits (module docstring): more than ``MAX_ANNOTATION_KEYS``
    keys, a key longer than ``MAX_ID_CHARS``, a value longer than ``MAX_ANNOTATION_CHARS``, more than
    ``MAX_ANNOTATION_BYTES`` in all. Types and characters are ``check_annotations``' to check."""
    if len(value) > MAX_ANNOTATION_KEYS:
        raise InvalidInputError(f"{what}: {len(value)} keys; the limit is {MAX_ANNOTATION_KEYS} "
                                "(MAX_ANNOTATION_KEYS)")
    for key, val in value.items():
        if isinstance(key, str) and len(key) > MAX_ID_CHARS:
            raise InvalidInputError(f"{what} key {key[:40]!r}... has {len(key)} characters; the limit is "
                                    f"{MAX_ID_CHARS} (MAX_ID_CHARS)")
        if isinstance(val, str) and len(val) > MAX_ANNOTATION_CHARS:
            raise InvalidInputError(f"{what}[{key[:40]!r}] has {len(val)} characters; the limit is "
                                    f"{MAX_ANNOTATION_CHARS} (MAX_ANNOTATION_CHARS)")
    size = annotation_bytes(value)
    if size > MAX_ANNOTATION_BYTES:
        raise InvalidInputError(f"{what}: {size:,} bytes of keys and values; the limit is "
                                f"{MAX_ANNOTATION_BYTES:,} (MAX_ANNOTATION_BYTES)")


def check_query(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"query must be a string, got {type(value).__name__}")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query has {len(value)} characters; the limit is {MAX_QUERY_CHARS}")
    return check_unicode(value, "query")


def check_ttl(ttl: object, what: str = "ttl") -> timedelta:
    """A time to live: a positive ``timedelta`` short enough to end inside the supported date range.
    (Whether ``now + ttl`` is inside it is checked where ``now`` is known.)"""
    if not isinstance(ttl, timedelta):
        raise InvalidInputError(
            f"{what} must be a datetime.timedelta such as timedelta(days=30), got {type(ttl).__name__} "
            f"{ttl!r}"
        )
    if ttl <= timedelta(0):
        raise InvalidInputError(f"{what} must be positive, got {ttl}")
    if ttl > MAX_INSTANT - MIN_INSTANT:
        raise InvalidInputError(
            f"{what} {ttl} ends after {MAX_INSTANT:%Y}; pass None (no {what}) for memories that never expire"
        )
    return ttl


def expiry(now: datetime, ttl: timedelta | None, expires_at: datetime | date | str | None,
           default_ttl: timedelta | None = None) -> datetime | None:
    """When records written ``now`` expire: ``expires_at`` if given, else ``now`` + ``ttl`` (or
    ``default_ttl``), else never (``None``); an instant past the supported range is refused."""
    never = "pass expires_at=None and no ttl for memories that never expire"
    if expires_at is not None:
        try:
            return to_utc(expires_at)
        except InvalidDateError as exc:
            raise InvalidDateError(f"expires_at: {exc}; {never}") from exc
    ttl = check_ttl(ttl) if ttl is not None else default_ttl
    if ttl is None:
        return None
    try:
        return to_utc(now + ttl)
    except (OverflowError, InvalidDateError) as exc:
        raise InvalidInputError(f"ttl {ttl} from {now:%Y-%m-%d} ends past {MAX_INSTANT:%Y-%m-%d}; {never}") from exc


def check_k(k: object) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or k > MAX_K:
        raise InvalidInputError(f"k must be an integer between 1 and {MAX_K}, got {k!r}")
    return k


def check_vectors(vectors: object, rows: int, dim: int) -> np.ndarray:
    """Vectors from an embedder: a finite float32 matrix of shape (rows, dim)."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape != (rows, dim):
        raise InvalidVectorError(f"embedder returned shape {arr.shape}; expected ({rows}, {dim})")
    if not np.isfinite(arr).all():
        raise InvalidVectorError("embedder returned NaN or infinite values")
    return arr


def known_fields(cls: type[DataclassInstance], data: object) -> dict[str, Any]:
    """``data`` as keyword arguments of the frozen config ``cls``: a mapping whose keys are all fields of
    ``cls`` (missing ones take their defaults when ``cls(**...)`` is called), else ``InvalidInputError``."""
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"{cls.__name__} must be given a mapping, got {type(data).__name__}")
    unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise InvalidInputError(f"unknown {cls.__name__} fields {sorted(unknown)}")
    return dict(data)


# ------------------------------------------------------------------ cleaning, for the agent seam (it fails open)
# ``save`` and ``recall`` store and search what can be stored or searched rather than refusing it: these
# make an input the checks above accept, and say nothing of it (the seam reports what changed).
_CONTROLS = str.maketrans({c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)})
_ID_CONTROLS = str.maketrans({c: None for c in (*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)})
CUT = " […]"  # what ends a text cut to MAX_TEXT_CHARS


def clean_query(text: str) -> str:
    """``text`` as a search can take it: lone surrogates replaced, NUL dropped, its last ``MAX_QUERY_CHARS``."""
    return LONE_SURROGATE.sub("\ufffd", text).replace("\x00", "").strip()[-MAX_QUERY_CHARS:]


def clean_text(text: str) -> str:
    """A message's text as the store takes it: lone surrogates replaced, control characters but tab and line
    breaks dropped, cut to ``MAX_TEXT_CHARS`` (ending with ``CUT``)."""
    text = LONE_SURROGATE.sub("\ufffd", text).translate(_CONTROLS)
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - len(CUT)] + CUT


def clean_id(value: str) -> str:
    """An id or speaker as the store takes it: no control or line-separator characters, at most
    ``MAX_ID_CHARS``."""
    return LONE_SURROGATE.sub("\ufffd", value).translate(_ID_CONTROLS).strip()[:MAX_ID_CHARS]


def stable_id(value: str) -> str:
    """``value`` when the store takes it as an id, else one it takes, the same for the same ``value``
    (``id:`` + its hash): too long, control characters, or ``#...``."""
    if clean_id(value) == value and not value.startswith("#"):
        return value
    return "id:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def derived_id(turn_id: str, text: str) -> str:
    """The id a text is stored under when its own id already holds another text (the same on a retry)."""
    digest = hashlib.sha256(f"{turn_id}\x1f{text}".encode("utf-8", "surrogatepass")).hexdigest()
    alt = f"{turn_id}~{digest[:12]}"
    return alt if len(alt) <= MAX_ID_CHARS else "id:" + digest[:32]


def step_id(step: str, role: str, text: str, nth: int) -> str:
    """The id of a turn given without one in the step ``step``: the same when the step is re-sent."""
    return "step:" + hashlib.sha256(f"{step}\x1f{role}\x1f{text}\x1f{nth}".encode("utf-8", "surrogatepass")
                                    ).hexdigest()[:32]


@dataclasses.dataclass(slots=True)
class CleanNotes:
    """What ``save`` reports: ``lost`` (turns not stored, always reported) and ``changed`` (turn index ->
    how it is stored, reported only for the turns that were stored)."""

    lost: list[str] = dataclasses.field(default_factory=list)
    changed: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def change(self, turn: int, note: str) -> None:
        self.changed.setdefault(turn, []).append(note)


def storable(messages: Iterable[Message], step: str | None) -> tuple[list[Message], CleanNotes]:
    """The messages as the store can take them (``cbmemory.agent``'s docstring), and what was changed or left
    out. ``step``: the token of the step's ``Recall``; a turn without an id is given one made of it, its role
    and text (``step:...``), so that the same step re-sent is stored once."""
    out: list[Message] = []
    notes = CleanNotes()
    taken: dict[str, tuple[str, str]] = {}
    nth: Counter[tuple[str, str]] = Counter()
    for i, m in enumerate(messages):
        if m.role not in ROLES:
            notes.lost.append(f"message {i}: role {m.role!r} is not stored")
            continue
        text = clean_text(m.content)
        if not text.strip():
            notes.lost.append(f"message {i}: no text left to store, not stored")
            continue
        at = len(out)
        if text != m.content:
            notes.change(at, f"message {i}: text stored cleaned or cut")
        speaker = (clean_id(m.speaker) or None) if m.speaker is not None else None
        turn_id = None
        if m.turn_id:
            turn_id = stable_id(m.turn_id)
            if turn_id != m.turn_id:
                notes.change(at, f"message {i}: id {m.turn_id[:40]!r} stored as {turn_id!r}")
        elif step:
            nth[(m.role, text)] += 1
            turn_id = step_id(step, m.role, text, nth[(m.role, text)])
        if turn_id is not None and turn_id in taken:
            if taken[turn_id] == (m.role, text):
                notes.lost.append(f"message {i}: the same id and text sent twice in one step, stored once")
                continue
            old, turn_id = turn_id, derived_id(turn_id, text)
            notes.change(at, f"message {i}: id {old[:40]!r} used twice in one step for different texts; this "
                         f"one stored as {turn_id!r}")
        if turn_id is not None:
            taken[turn_id] = (m.role, text)
        out.append(Message(m.role, text, speaker, turn_id, restates=m.restates))
    return out, notes


def check_reads(current_only: object, as_of: object) -> datetime | None:
    """The state reads of ``search``/``recall`` (``cbmemory.retrieval.current``): ``current_only`` a bool
    (else ``InvalidInputError``), and ``as_of`` as the instant it bounds, or ``None``: a datetime as given
    (a naive one is UTC); a date, or a string of a date without a time of day (``2023-05-07``,
    ``2023/05/07 (Sun)``), the end of that day (23:59:59.999999 UTC), so that day's memories count. Not a
    datetime, date or string: ``InvalidInputError``; a string that does not parse: ``InvalidDateError``."""
    if not isinstance(current_only, bool):
        raise InvalidInputError(f"current_only must be True or False, got {current_only!r}")
    if as_of is None:
        return None
    if not isinstance(as_of, (datetime, date, str)):
        raise InvalidInputError(f"as_of must be a datetime, a date or a date string, got {type(as_of).__name__}")
    try:
        at = to_utc(as_of)
    except InvalidDateError as exc:
        raise InvalidDateError(f"as_of: {exc}") from exc
    whole_day = (isinstance(as_of, date) and not isinstance(as_of, datetime)) or (
        isinstance(as_of, str) and _DAY.fullmatch(as_of) is not None)
    return min(at + timedelta(days=1, microseconds=-1), MAX_INSTANT) if whole_day else at


# ------------------------------------------------------------------ the agent seam's calls (cbmemory.agent)
# ``recall`` and ``save`` fail open on what a running agent meets (a store locked or gone, hostile or
# over-long text, a date a user's context gives that does not parse); a call that is wrong as written
# raises at once, from these checks: see docs/guarantees.md for both lists.
def check_when(value: object, what: str) -> None:
    """A date parameter of the agent seam must be a datetime, a date, a string or ``None`` (whether a string
    parses is the seam's to handle: it falls back to the clock and reports it)."""
    if value is not None and not isinstance(value, (datetime, date, str)):
        raise InvalidInputError(f"{what} must be a datetime, a date or a date string, got {type(value).__name__}")


def check_hook(on_error: object) -> None:
    if on_error is not None and not callable(on_error):
        raise InvalidInputError(f"on_error must be callable (it is handed each MemoryFault), got "
                                f"{type(on_error).__name__}")


def check_recall_call(query: object, user_id: object, k: object, today: object, on_error: object,
                      current_only: object = False, as_of: object = None) -> None:
    """``recall(query, user_id, ...)`` as written: ``query`` a string (any text: what no cleaning can use is
    handled by recall), ``user_id`` a valid id (so a message passed in its place, longer than an id or with a
    line break, is refused), ``k`` an int in range, ``today`` and ``as_of`` a date or string, ``current_only``
    a bool, ``on_error`` callable."""
    if not isinstance(query, str):
        raise InvalidInputError(f"query must be a string (the user's message), got {type(query).__name__}: "
                                "recall(query, user_id, ...)")
    check_id(user_id, "user_id")
    if k is not None:
        check_k(k)
    check_when(today, "today")
    check_when(as_of, "as_of")
    if not isinstance(current_only, bool):
        raise InvalidInputError(f"current_only must be True or False, got {current_only!r}")
    check_hook(on_error)


def check_save_call(user_id: object, session_id: object, messages: object, date_: object, on_error: object) -> None:
    """``save(user_id, session_id, messages, ...)`` as written: two valid ids, a list or tuple of ``Message``,
    ``date`` a date or string, ``on_error`` callable."""
    check_id(user_id, "user_id")
    check_id(session_id, "session_id")
    if not isinstance(messages, (list, tuple)):
        raise InvalidInputError(f"messages must be a list of Message, got {type(messages).__name__}: "
                                "save(user_id, session_id, messages, ...)")
    for i, m in enumerate(messages):
        if not isinstance(m, Message):
            raise InvalidInputError(f"messages[{i}] must be a Message, got {type(m).__name__}")
    check_when(date_, "date")
    check_hook(on_error)
