"""Memory files that move: a store's memories written as JSON Lines (``export_to``) and read back into any
store (``import_from``), through the store contract only, so SQLite -> Couchbase -> SQLite works.

The format (version ``FORMAT_VERSION``), one JSON object per line, keys sorted, UTF-8:

- line 1, the header: ``{"format": "cbmemory-memories", "version": 1, "embedder": {"name", "dimension"},
  "sparse_encoder", "recipe", "ingest", "vectors"}``: whose vectors the file carries and how its records were
  made (informative: the records keep their own indexed text);
- per session, in date order: ``{"type": "session", "user_id", "session_id", "occurred_at", "annotations"}``,
  then its records: ``{"type": "record", ...}`` with every field of ``MemoryRecord`` (ids, kind, position,
  role, speaker, text, indexed text, both dates, ``expires_at`` (the TTL), annotations, and ``source_ids``:
  the links, i.e. the memories an echo restates and the turns a summary or event was derived from), and
  ``vector``: the record's embedding, base64 of little-endian float32 (absent with ``vectors=False``).

Records are written by their fields, whatever fields ``MemoryRecord`` has: a link the store keeps as a field
travels with it. Expired records are not exported (no read returns them). Sparse vectors are not exported:
the target's sparse encoder, if it has one, encodes the records again (deterministic).

Import checks the whole file before it writes anything (a bad line: ``InvalidInputError`` naming it, nothing
written), refuses a newer format version (``FormatVersionError``), then writes one session per store write
(``merge``): all or nothing per session on a store with atomic batches, and idempotent (a record already
there unchanged is left alone; importing the same file twice changes nothing). Vectors: kept from the file
when its embedder is the target memory's (same name and dimension), else every record is embedded again with
the target's embedder (``ImportResult.vectors`` says which). Ids, dates, ``ingested_at`` and TTLs are kept,
so export -> import -> export gives the same bytes, and searches find the same hits with the same scores.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from ..dates import to_utc
from ..embedding.base import CachedEmbedder
from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError
from ..ingest import IngestConfig
from ..models import MemoryRecord, SearchFilters, Session, frozen_mapping
from ..recipes import Recipe
from ..retrieval.statements import KEPT_FORM
from ..store.base import MemoryStore
from ..validation import check_id

FORMAT = "cbmemory-memories"
FORMAT_VERSION = 1
_FIELDS = tuple(f.name for f in dataclasses.fields(MemoryRecord))
_REQUIRED = tuple(f.name for f in dataclasses.fields(MemoryRecord)
                  if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
_DATES = ("occurred_at", "ingested_at", "expires_at")


class FormatVersionError(InvalidInputError):
    """A memory file written in a newer format than this cbmemory reads."""


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote: users, sessions, records, and the lines' bytes (header included)."""

    users: int
    sessions: int
    records: int
    bytes: int


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import did: sessions and records read, and what the writes did with the records (inserted,
    replaced, unchanged). ``vectors``: ``kept`` (the file's embedder is the target's), ``embedded`` (the
    target's embedder embedded every record again) or ``none`` (no record)."""

    sessions: int
    records: int
    inserted: int
    replaced: int
    unchanged: int
    vectors: str


class _Memory(Protocol):
    store: MemoryStore
    embedder: CachedEmbedder
    recipe: Recipe
    ingest: IngestConfig
    clock: Callable[[], datetime]

    def _bind(self) -> None: ...

    def _encode_sparse(self, records: Sequence[MemoryRecord]) -> list[SparseVector] | None: ...

    def _embedded(self, records: Sequence[MemoryRecord]
                  ) -> tuple[np.ndarray, dict[str, dict[str, np.ndarray]] | None]: ...


def _json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _line(obj: Mapping[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def header(memory: _Memory, vectors: bool) -> dict[str, Any]:
    """The header line's object for a file written from ``memory``."""
    bound = memory.store.bound_embedder
    name, dim = bound if bound is not None else (memory.embedder.name, memory.embedder.dimension)
    return {"format": FORMAT, "version": FORMAT_VERSION, "embedder": {"name": name, "dimension": dim},
            "sparse_encoder": memory.store.bound_sparse_encoder, "recipe": memory.recipe.name,
            "ingest": memory.ingest.key, "vectors": vectors}


def export_lines(memory: _Memory, user_id: str | None = None, session_id: str | None = None, *,
                 vectors: bool = True) -> Iterator[str]:
    """The file's lines (see the module docstring): every user's memories, or ``user_id``'s, or one session
    of theirs (``session_id`` needs ``user_id``). Users in sorted order, sessions by date then id, records by
    kind then position: the same memories always give the same bytes."""
    return map(_line, _rows(memory, user_id, session_id, vectors))


def _rows(memory: _Memory, user_id: str | None, session_id: str | None, vectors: bool) -> Iterator[dict[str, Any]]:
    """The objects of ``export_lines``' lines."""
    if session_id is not None and user_id is None:
        raise InvalidInputError("exporting one session needs its user: give user_id with session_id")
    store = memory.store
    users = [check_id(user_id, "user_id")] if user_id is not None else sorted(store.users())
    if session_id is not None:
        check_id(session_id, "session_id")
    yield header(memory, vectors)
    now = memory.clock()
    for user in users:
        sessions = sorted(store.list_sessions(user), key=lambda s: (s.occurred_at, s.session_id))
        if session_id is not None:
            sessions = [s for s in sessions if s.session_id == session_id]
        if not sessions:
            continue
        filters = SearchFilters(session_ids=(session_id,)) if session_id is not None else SearchFilters()
        by_session: dict[str, list[MemoryRecord]] = {}
        for r in store.list_records(user, filters, now=now):
            by_session.setdefault(r.session_id, []).append(r)
        for s in sessions:
            records = sorted(by_session.get(s.session_id, ()), key=lambda r: (r.kind, r.position, r.record_id))
            if not records:  # every record expired: nothing to move
                continue
            yield {"type": "session", "user_id": s.user_id, "session_id": s.session_id,
                   "occurred_at": s.occurred_at.isoformat(), "annotations": dict(s.annotations)}
            found = store.lookup_vectors(user, [r.content_hash for r in records]) if vectors else {}
            for r in records:
                row = {name: _json(getattr(r, name)) for name in _FIELDS}
                row["type"] = "record"
                vec = found.get(r.content_hash)
                if vec is not None:
                    row["vector"] = base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")
                yield row


def export_to(memory: _Memory, out: str | os.PathLike[str] | IO[str] | None = None, user_id: str | None = None,
              session_id: str | None = None, *, vectors: bool = True) -> ExportResult:
    """Write the file (``export_lines``) to ``out``: a path (written whole, then renamed into place), a text
    stream, or ``None`` for stdout."""
    if out is None or not isinstance(out, (str, os.PathLike)):
        return _write_lines(out if out is not None else sys.stdout, _rows(memory, user_id, session_id, vectors))
    path = Path(out)
    part = path.with_name(path.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="\n") as f:
            result = _write_lines(f, _rows(memory, user_id, session_id, vectors))
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)
    return result


def _write_lines(out: IO[str], rows: Iterable[Mapping[str, Any]]) -> ExportResult:
    users: set[str] = set()
    sessions = records = size = 0
    for row in rows:  # counted from the objects: a line is not parsed back
        text = _line(row)
        out.write(text)
        size += len(text.encode("utf-8"))
        if row.get("type") == "session":
            sessions += 1
            users.add(row["user_id"])
        elif row.get("type") == "record":
            records += 1
    return ExportResult(len(users), sessions, records, size)


# ---------------------------------------------------------------------------- import
def _bad(where: str, what: str) -> InvalidInputError:
    return InvalidInputError(f"memory file, {where}: {what}")


def read_header(line: str) -> dict[str, Any]:
    """The header's object, checked: this format, a version this cbmemory reads, an embedder."""
    try:
        head = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _bad("line 1", f"not JSON ({exc.msg})") from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise _bad("line 1", f"not a cbmemory memory file (its first line has no \"format\": \"{FORMAT}\"); "
                   "`cbmemory export` writes one")
    version = head.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _bad("line 1", f"the format version must be a whole number of at least 1, got {version!r}")
    if version > FORMAT_VERSION:
        raise FormatVersionError(f"the memory file is in format version {version}, written by a newer cbmemory; "
                                 f"this one reads versions up to {FORMAT_VERSION}: upgrade cbmemory to import it")
    emb = head.get("embedder")
    if not isinstance(emb, dict) or not isinstance(emb.get("name"), str) or not isinstance(emb.get("dimension"), int):
        raise _bad("line 1", "the header names no embedder ({\"name\": str, \"dimension\": int})")
    return head


def _date(value: Any, where: str, name: str) -> datetime:
    if not isinstance(value, str):
        raise _bad(where, f"{name} must be an ISO date string, got {type(value).__name__}")
    return to_utc(value)


def _strings(value: Any, where: str, name: str) -> Mapping[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise _bad(where, f"{name} must be an object of strings")
    return frozen_mapping(value)


def _session(row: dict[str, Any], where: str) -> Session:
    extra = set(row) - {"type", "user_id", "session_id", "occurred_at", "annotations"}
    if extra:
        raise _bad(where, f"a session has unknown fields {sorted(extra)}")
    return Session(check_id(row.get("user_id"), "user_id"), check_id(row.get("session_id"), "session_id"),
                   _date(row.get("occurred_at"), where, "occurred_at"),
                   _strings(row.get("annotations", {}), where, "annotations"))


def _record(row: dict[str, Any], where: str, dimension: int) -> tuple[MemoryRecord, np.ndarray | None]:
    extra = set(row) - {*_FIELDS, "type", "vector"}
    if extra:
        raise _bad(where, f"a record has unknown fields {sorted(extra)}")
    missing = [name for name in _REQUIRED if name not in row]
    if missing:
        raise _bad(where, f"a record lacks {missing}")
    values: dict[str, Any] = {}
    for name in _FIELDS:
        if name not in row:
            continue
        v = row[name]
        if name in _DATES:
            values[name] = None if v is None and name == "expires_at" else _date(v, where, name)
        elif name == "annotations":
            values[name] = _strings(v, where, name)
        elif name == "position":
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise _bad(where, f"position must be a whole number of at least 0, got {v!r}")
            values[name] = v
        elif isinstance(v, list):
            if not all(isinstance(x, str) for x in v):
                raise _bad(where, f"{name} must be a list of strings")
            values[name] = tuple(v)
        elif v is None or isinstance(v, str):
            values[name] = v
        else:
            raise _bad(where, f"{name} must be a string, got {type(v).__name__}")
    record = MemoryRecord(**values)
    check_id(record.user_id, "user_id")
    check_id(record.session_id, "session_id")
    check_id(record.record_id, "record_id")
    vector = None
    if row.get("vector") is not None:
        try:
            raw = base64.b64decode(row["vector"], validate=True)
        except (ValueError, TypeError):
            raise _bad(where, "the vector is not base64") from None
        vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        if vector.shape != (dimension,) or not np.isfinite(vector).all():
            raise _bad(where, f"the vector is not {dimension} finite floats")
    return record, vector


Batch = tuple[Session, list[MemoryRecord], list["np.ndarray | None"]]


def read_lines(lines: Iterable[str], user_id: str | None = None) -> tuple[dict[str, Any], list[Batch]]:
    """The header and the sessions of a memory file (``user_id``: that user's only), every line checked."""
    it = iter(lines)
    first = next((ln for ln in it if ln.strip()), None)
    if first is None:
        raise _bad("line 1", "the file is empty")
    head = read_header(first)
    dim = int(head["embedder"]["dimension"])
    batches: dict[tuple[str, str], Batch] = {}
    current: Batch | None = None
    for n, text in enumerate(it, 2):
        if not text.strip():
            continue
        where = f"line {n}"
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _bad(where, f"not JSON ({exc.msg})") from None
        kind = row.get("type") if isinstance(row, dict) else None
        try:
            parsed = _session(row, where) if kind == "session" else _record(row, where, dim) if kind == "record" else None
        except InvalidInputError as exc:  # a date, an id or a record the models refuse: said with its line
            raise exc if str(exc).startswith("memory file") else _bad(where, str(exc)) from None
        if isinstance(parsed, Session):
            s = parsed
            key = (s.user_id, s.session_id)
            if key in batches:
                raise _bad(where, f"session {s.session_id!r} of {s.user_id!r} appears twice")
            current = batches[key] = (s, [], [])
        elif isinstance(parsed, tuple):
            record, vec = parsed
            if current is None or (record.user_id, record.session_id) != (current[0].user_id, current[0].session_id):
                raise _bad(where, f"record {record.record_id!r} does not follow its session's line")
            current[1].append(record)
            current[2].append(vec)
        else:
            raise _bad(where, "each line must be a session or a record (\"type\")")
    out = [b for b in batches.values() if user_id is None or b[0].user_id == user_id]
    return head, out


def import_lines(memory: _Memory, lines: Iterable[str], user_id: str | None = None) -> ImportResult:
    """Read a memory file into ``memory``'s store (see the module docstring)."""
    if user_id is not None:
        check_id(user_id, "user_id")
    head, batches = read_lines(lines, user_id)
    emb = head["embedder"]
    keep = (emb["name"], emb["dimension"]) == (memory.embedder.name, memory.embedder.dimension)
    memory._bind()
    sessions = records = inserted = replaced = unchanged = 0
    vectors = "none"
    for session, recs, vecs in batches:
        if not recs:
            continue
        derived = None  # with the file's vectors nothing is embedded: the stage embeds what turns state when read
        if keep and all(v is not None for v in vecs):
            matrix = np.stack([v for v in vecs if v is not None])
            vectors = "kept" if vectors != "embedded" else vectors
        else:
            matrix, derived = memory._embedded(recs)  # as a write embeds (what user turns state, where kept)
            vectors = "embedded"
        done = memory.store.write([session], recs, matrix, mode="merge", sparse=memory._encode_sparse(recs),
                                  derived=derived, derived_form=KEPT_FORM)
        sessions += 1
        records += len(recs)
        inserted, replaced, unchanged = (inserted + done.inserted, replaced + done.replaced,
                                         unchanged + done.unchanged)
    return ImportResult(sessions, records, inserted, replaced, unchanged, vectors)


def import_from(memory: _Memory, source: str | os.PathLike[str] | IO[str], user_id: str | None = None
                ) -> ImportResult:
    """``import_lines`` of a file's path or a text stream."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as f:
            return import_lines(memory, f, user_id)
    return import_lines(memory, source, user_id)


class Transfer:
    """What ``AgentMemory`` gets from this module: ``export_to`` and ``import_from``."""

    def export_to(self: _Memory, out: str | os.PathLike[str] | IO[str] | None = None, user_id: str | None = None,
                  session_id: str | None = None, *, vectors: bool = True) -> ExportResult:
        """Write this memory's memories (every user's, one user's or one session) as a memory file: JSON Lines
        a store of any backend can import (``cbmemory.memory.transfer``). ``out``: a path, a text stream, or
        ``None`` for stdout; ``vectors=False`` leaves the embeddings out (the importer embeds again)."""
        return export_to(self, out, user_id, session_id, vectors=vectors)

    def import_from(self: _Memory, source: str | os.PathLike[str] | IO[str], user_id: str | None = None
                    ) -> ImportResult:
        """Read a memory file (a path or a text stream) into this memory's store: checked whole before any
        write, one session per write, idempotent; the file's vectors kept when its embedder is this memory's,
        else embedded again (``ImportResult.vectors``). ``user_id``: import that user's memories only."""
        return import_from(self, source, user_id)


__all__ = ["FORMAT", "FORMAT_VERSION", "ExportResult", "FormatVersionError", "ImportResult", "Transfer",
           "export_lines", "export_to", "header", "import_from", "import_lines", "read_header", "read_lines"]
