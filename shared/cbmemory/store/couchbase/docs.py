"""Pure translation between cbmemory's models and the Couchbase layout. No SDK and no network here.

Layout (after Couchbase Agent Memory): one bucket, one scope (``agentmemory`` by default) holding three
collections:

- ``memory``: one document per record, keyed by the record id (itself a hash of user, session, kind and
  turn, so re-ingesting the same turn rewrites the same document). The body carries the record (its
  ``index_text`` and raw ``text`` are the two full-text fields), its vector (``embedding``), when the store
  has a sparse encoder bound its learned sparse vector (``sparse``: ``[{"t": term id, "w": weight}, ...]`` in
  increasing term order, the form SQL++ unnests and scores server-side) and a few
  derived fields the indexes need: epoch-second copies of the clocks
  (``*_ts``, for SQL++ ranges and ordering), ``has_expiry`` (whether the Search index checks the expiry)
  and ``annotation_terms`` (``key\\x1fvalue`` strings, exact-matched by the Search index).
- ``sessions``: one document per (user, session) with the session date and annotations.
- ``users``: one document per user, plus the ``cbmemory::meta`` document binding the store to an embedder
  (``embedder_name``, ``embedder_dimension``) and, once one is bound, a sparse encoder (``sparse_encoder``).

Times are stored as RFC 3339 UTC strings with microseconds (``2023-05-07T13:56:00.000000Z``), which the
Search service's default ``dateTimeOptional`` parser reads and which round-trip exactly. The Search service
(bleve) holds datetimes as int64 nanoseconds: it indexes none outside 1677-09-21..2262-04-11 and refuses a
query endpoint outside ``SEARCH_TIME_MIN``..``SEARCH_TIME_MAX`` ("invalid/unsupported date range").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ...dates import to_utc
from ...embedding.sparse import SparseVector
from ...errors import CbMemoryError, InvalidInputError, InvalidVectorError
from ...models import MemoryRecord, Session, frozen_mapping

SCHEMA_VERSION = 1
META_KEY = "cbmemory::meta"
ANNOTATION_SEP = "\x1f"  # annotation keys are ids, which may not contain control characters
VECTOR_FIELD = "embedding"
SPARSE_FIELD = "sparse"  # [{"t": term id, "w": weight}, ...]
SPARSE_TERM, SPARSE_WEIGHT = "t", "w"
SPARSE_META = "sparse_encoder"  # the meta document's field naming the bound sparse encoder
TEXT_FIELDS = ("index_text", "text")  # full-text fields of the Search index: the indexed text, the raw turn
DEFAULT_SCOPE = "agentmemory"
DEFAULT_INDEX = "cbmemory_memory"
INDEX_DEFINITION_FILE = "couchbase_search_index.json"
# bleve's MinRFC3339CompatibleTime / MaxRFC3339CompatibleTime (search/query/query.go)
SEARCH_TIME_MIN = datetime(1677, 12, 1, tzinfo=timezone.utc)
SEARCH_TIME_MAX = datetime(2262, 4, 11, 11, 59, 59, tzinfo=timezone.utc)

# Bucket, scope, collection and index names end up inside SQL++ backticks and in index definitions:
# only Couchbase's own name alphabet is accepted (no backtick, quote, dot or space can get through).
_BUCKET_NAME = re.compile(r"^[A-Za-z0-9%_.\-]{1,100}$")
_SCOPE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9%_\-]{0,250}$")
_INDEX_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]{0,200}$")
_PLAIN_KEY = re.compile(r"^[0-9a-f]{32}$")

# Fields of a memory document that SQL++ listings return (everything except the vector).
RECORD_FIELDS = (
    "record_id", "user_id", "session_id", "kind", "position", "turn_id", "role", "speaker", "text",
    "index_text", "occurred_at", "ingested_at", "expires_at", "annotations", "source_ids", "content_hash",
    "supersedes",
)


def check_bucket_name(name: str) -> str:
    if not isinstance(name, str) or not _BUCKET_NAME.match(name):
        raise InvalidInputError(f"invalid Couchbase bucket name {name!r}")
    return name


def check_scope_name(name: str, what: str = "scope") -> str:
    """Scope and collection names: letters, digits, ``_ - %``, not starting with ``_`` or ``%``."""
    if not isinstance(name, str) or not _SCOPE_NAME.match(name):
        raise InvalidInputError(f"invalid Couchbase {what} name {name!r}")
    return name


def check_index_name(name: str) -> str:
    if not isinstance(name, str) or not _INDEX_NAME.match(name):
        raise InvalidInputError(f"invalid Search index name {name!r}")
    return name


# ------------------------------------------------------------------ ids
def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:32]


def record_key(record_id: str) -> str:
    """Document key of a record: its id when it is cbmemory's own 32-hex hash, else a hash of it
    (document keys are limited to 250 bytes; record ids are not)."""
    return record_id if _PLAIN_KEY.match(record_id) else "r::" + _digest(record_id)


def session_key(user_id: str, session_id: str) -> str:
    return "s::" + _digest(user_id, session_id)


def user_key(user_id: str) -> str:
    return "u::" + _digest(user_id)


# ------------------------------------------------------------------ times
def rfc3339(dt: datetime) -> str:
    """``2023-05-07T13:56:00.000000Z``; the year always has four digits (``strftime("%Y")`` drops the
    leading zeros of years before 1000 on Linux, which no parser reads back)."""
    return dt.astimezone(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_time(value: str) -> datetime:
    """A stored time as aware UTC. One outside the supported range (a document written before cbmemory
    refused such instants, e.g. ``datetime.max`` as an expiry) is clamped into it, so a read never fails."""
    return to_utc(value, clamp=True)


def epoch(dt: datetime | None) -> float | None:
    return None if dt is None else dt.timestamp()


def kv_expiry(expires_at: datetime | None, wall_clock: datetime) -> timedelta | None:
    """The document expiry to send with an upsert (``None``: no expiry).

    Couchbase expiry is relative to the server's clock, so it is computed against the wall clock, not
    against the logical ``now`` of a search. A record whose ``expires_at`` has already passed by the wall
    clock is written without an expiry (an expiry of 0 would mean "never"): every read hides it through
    its ``expires_at`` field and ``purge_expired`` deletes it. Expiries are rounded up to whole seconds.
    """
    if expires_at is None:
        return None
    seconds = (expires_at - wall_clock).total_seconds()
    if seconds <= 0:
        return None
    return timedelta(seconds=max(1, int(-(-seconds // 1))))


# ------------------------------------------------------------------ bodies
def annotation_terms(annotations: Mapping[str, str]) -> list[str]:
    return [f"{k}{ANNOTATION_SEP}{v}" for k, v in sorted(annotations.items())]


def record_body(record: MemoryRecord, vector: np.ndarray,
                sparse: SparseVector | None = None) -> dict[str, Any]:
    """The JSON body of a record's document (``vector`` is its L2-normalised embedding; ``sparse``, when
    given, its learned sparse vector: the ``sparse`` field, absent otherwise)."""
    body: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "record_id": record.record_id,
        "user_id": record.user_id,
        "session_id": record.session_id,
        "kind": record.kind,
        "position": record.position,
        "turn_id": record.turn_id,
        "role": record.role,
        "speaker": record.speaker,
        "text": record.text,
        "index_text": record.index_text,
        "occurred_at": rfc3339(record.occurred_at),
        "occurred_ts": epoch(record.occurred_at),
        "ingested_at": rfc3339(record.ingested_at),
        "ingested_ts": epoch(record.ingested_at),
        "expires_at": None if record.expires_at is None else rfc3339(record.expires_at),
        "expires_ts": epoch(record.expires_at),
        # an expiry past what the Search service indexes is left to the key-by-key check (the record is
        # live until then): were it flagged, the index could never find the record
        "has_expiry": record.expires_at is not None and record.expires_at <= SEARCH_TIME_MAX,
        "annotations": dict(record.annotations),
        "annotation_terms": annotation_terms(record.annotations),
        "source_ids": list(record.source_ids),
        "supersedes": list(record.supersedes),
        "content_hash": record.content_hash,
        VECTOR_FIELD: [float(x) for x in np.asarray(vector, dtype=np.float32).reshape(-1)],
    }
    if sparse is not None:
        body[SPARSE_FIELD] = sparse_terms(sparse)
    return body


def sparse_terms(vector: SparseVector) -> list[dict[str, Any]]:
    """A sparse vector as stored: one ``{"t": term id, "w": weight}`` object per term, in term order (the
    weights are the float32 values, exactly, as JSON doubles)."""
    return [{SPARSE_TERM: int(t), SPARSE_WEIGHT: float(w)}
            for t, w in zip(vector.ids.tolist(), vector.weights.tolist(), strict=True)]


def _is_number(x: object, integral: bool = False) -> bool:
    kinds: tuple[type, ...] = (int,) if integral else (int, float)
    return isinstance(x, kinds) and not isinstance(x, bool)


def body_sparse(body: Mapping[str, Any]) -> SparseVector | None:
    """A stored record's sparse vector; ``None`` when the document has none (written with no sparse encoder
    bound). A field that is not a well-formed sparse vector (not a list of ``{"t": int, "w": number}``,
    ids not increasing int32, weights not finite) raises ``InvalidVectorError``: a search skips such a
    document."""
    raw = body.get(SPARSE_FIELD)
    if raw is None:
        return None
    if not isinstance(raw, list) or not all(isinstance(e, Mapping) for e in raw):
        raise InvalidVectorError(f"the {SPARSE_FIELD!r} field is not a list of term objects")
    ids = [e.get(SPARSE_TERM) for e in raw]
    weights = [e.get(SPARSE_WEIGHT) for e in raw]
    if not all(_is_number(t, integral=True) for t in ids) or not all(_is_number(w) for w in weights):
        raise InvalidVectorError(f"the {SPARSE_FIELD!r} field holds a term without an integer id or a weight")
    try:
        with np.errstate(over="ignore"):  # a weight past float32 becomes inf, which SparseVector refuses
            return SparseVector(np.asarray(ids, dtype=np.int64), np.asarray(weights, dtype=np.float64))
    except OverflowError as exc:  # an id past int64
        raise InvalidVectorError(f"the {SPARSE_FIELD!r} field holds an out-of-range term id") from exc


def body_to_record(body: Mapping[str, Any]) -> MemoryRecord:
    expires = body.get("expires_at")
    return MemoryRecord(
        record_id=body["record_id"], user_id=body["user_id"], session_id=body["session_id"],
        kind=body["kind"], position=int(body["position"]), role=body["role"], text=body["text"],
        index_text=body["index_text"], occurred_at=parse_time(body["occurred_at"]),
        ingested_at=parse_time(body["ingested_at"]), content_hash=body["content_hash"],
        turn_id=body.get("turn_id"), speaker=body.get("speaker"),
        annotations=frozen_mapping(body.get("annotations") or {}),
        expires_at=None if expires is None else parse_time(expires),
        source_ids=tuple(body.get("source_ids") or ()),
        supersedes=tuple(body.get("supersedes") or ()),
    )


def body_vector(body: Mapping[str, Any]) -> np.ndarray:
    return np.asarray(body[VECTOR_FIELD], dtype=np.float32)


def record_signature(body: Mapping[str, Any]) -> tuple[object, ...]:
    """What decides "unchanged" on re-ingest (as in the embedded store): content, event time, expiry and
    annotations, the records it supersedes, and whether it carries a sparse vector (a document written before a sparse encoder was bound
    is rewritten with one). Works on stored bodies and on bodies about to be written alike."""
    return (body.get("content_hash"), body.get("occurred_at"), body.get("expires_at"),
            json.dumps(body.get("annotations") or {}, sort_keys=True), body.get(SPARSE_FIELD) is not None,
            list(body.get("supersedes") or ()))


def session_body(session: Session) -> dict[str, Any]:
    return {
        "schema": SCHEMA_VERSION,
        "user_id": session.user_id,
        "session_id": session.session_id,
        "occurred_at": rfc3339(session.occurred_at),
        "occurred_ts": epoch(session.occurred_at),
        "annotations": dict(session.annotations),
    }


def body_to_session(body: Mapping[str, Any]) -> Session:
    return Session(body["user_id"], body["session_id"], parse_time(body["occurred_at"]),
                   frozen_mapping(body.get("annotations") or {}))


def session_date(body: Mapping[str, Any]) -> datetime | None:
    """A stored session's date (``None`` when unreadable: the session then counts as changed)."""
    try:
        return parse_time(body["occurred_at"])
    except (KeyError, TypeError, ValueError, CbMemoryError):
        return None


def user_body(user_id: str) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, "user_id": user_id}


def embedder_meta(embedder_name: str, dimension: int) -> dict[str, Any]:
    """The meta document's fields binding the store to an embedder."""
    return {"embedder_name": embedder_name, "embedder_dimension": dimension}


def sparse_meta(encoder_name: str) -> dict[str, Any]:
    """The meta document's field binding the store to a sparse encoder."""
    return {SPARSE_META: encoder_name}


def meta_doc(fields: Mapping[str, Any]) -> dict[str, Any]:
    """A new meta document holding ``fields`` (``embedder_meta`` and/or ``sparse_meta``)."""
    return {"schema": SCHEMA_VERSION, **fields}


def meta_body(embedder_name: str, dimension: int) -> dict[str, Any]:
    return meta_doc(embedder_meta(embedder_name, dimension))


# ------------------------------------------------------------------ Search index definition
@lru_cache(maxsize=1)
def _index_template() -> str:
    return (resources.files("cbmemory") / "data" / INDEX_DEFINITION_FILE).read_text(encoding="utf-8")


def search_index_definition(bucket: str, scope: str, collection: str, dimension: int,
                            name: str = DEFAULT_INDEX) -> dict[str, Any]:
    """The shipped index definition (``data/couchbase_search_index.json``) for one keyspace and dimension.

    The file is a complete definition for bucket ``cbmemory``, keyspace ``agentmemory.memory`` and 384
    dimensions (the offline MiniLM embedder); this function renames the type mapping and sets the bucket,
    name and vector dimension.
    """
    if not isinstance(dimension, int) or isinstance(dimension, bool) or not 1 <= dimension <= 4096:
        raise InvalidInputError(f"vector dimension must be between 1 and 4096, got {dimension!r}")
    defn = json.loads(_index_template())  # a fresh copy every call
    defn["name"] = check_index_name(name)
    defn["sourceName"] = check_bucket_name(bucket)
    types = defn["params"]["mapping"]["types"]
    (mapping,) = types.values()
    type_key = f"{check_scope_name(scope)}.{check_scope_name(collection, 'collection')}"
    defn["params"]["mapping"]["types"] = {type_key: mapping}
    for field in mapping["properties"][VECTOR_FIELD]["fields"]:
        field["dims"] = dimension
    return defn


def index_dimension(params: Mapping[str, Any]) -> int | None:
    """The vector dimension in an existing index's ``params`` (``None`` when it has no vector field)."""
    types = (params.get("mapping") or {}).get("types") or {}
    for mapping in types.values():
        prop = (mapping.get("properties") or {}).get(VECTOR_FIELD) or {}
        for field in prop.get("fields") or ():
            if field.get("type") == "vector":
                return int(field["dims"])
    return None
