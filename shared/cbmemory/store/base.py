"""The one store contract every backend implements (embedded SQLite, Couchbase, ...).

Score contract, stated once: a search (``search``, by ``Signal``) returns hits ordered best first with ``score`` higher
is better. ``vector`` scores are cosine similarities in [-1, 1] (vectors are L2-normalised);
``bm25`` and ``entity`` scores are positive BM25 values (unbounded, comparable only within one call),
computed over the queried user's records only: another user's data changes neither a score nor the cost;
``sparse`` scores are positive dot products of learned sparse vectors (SPLADE), records scoring 0 never hit.
Every method takes exactly one ``user_id`` and never returns a record of any other user. Which records
a search may return is :func:`cbmemory.store.filters.admits` (expired records, ``expires_at`` at or before
``now``, never are), whatever the backend.

Inputs are checked here, once for every backend, before a backend's method runs: writes (:meth:`write`,
:meth:`set_sparse`) and what searches and reads ask (``inputs``: the user id, k, the query vector, text,
phrases or sparse vector, filters, limits, ``now``), each refused with an ``InvalidInputError``. Each public
method calls the backend's ``_``-prefixed one (``_write``, ``_search``, ``_list_records``, ...) with
checked values.

Batches: on a backend with atomic batches (SQLite) a ``write`` is all-or-nothing across its records; on
one without (Couchbase: per document) each record is atomic and re-running the write completes it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Literal, get_args

import numpy as np

from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError, SparseEncoderBoundError
from ..models import NO_FILTERS, ForgetResult, IngestResult, MemoryRecord, SearchFilters, Session
from ..text import LONE_SURROGATE
from ..validation import check_annotation_limits
from .candidates import Candidates
from .filters import admits_nothing
from .inputs import (
    check_filters,
    check_flag,
    check_form,
    check_limit,
    check_now,
    check_record_ids,
    check_user_id,
)
from .search_base import SearchBase
from .windows import Anchor, Window, windows

WriteMode = Literal["merge", "replace", "append"]
# a record's id, a text derived from it (its content hash and its vector), and the form of the texts it is of
Derived = tuple[str, str, np.ndarray, int]
WRITE_MODES: tuple[str, ...] = get_args(WriteMode)
MAX_LINKS = 64  # records one record may supersede


class MemoryStore(SearchBase):
    """Storage of memory records with their vectors, per user."""

    read_only: bool = False  # opened only to read: every write raises ``ReadOnlyStoreError``
    # keeps the vectors of texts derived from records that ``write`` is given (``derived``) for ``lookup_vectors``;
    # a backend that does not drops them (its reads embed those texts again: slower, the same results)
    keeps_derived: bool = False

    @abstractmethod
    def bind_embedder(self, name: str, dimension: int) -> None:
        """Record the embedder on first use; raise ``EmbedderMismatchError`` if the store holds another's."""

    @property
    @abstractmethod
    def bound_embedder(self) -> tuple[str, int] | None:
        """``(name, dimension)`` of the embedder whose vectors the store holds; ``None`` before any is bound."""

    def _dimension(self) -> int | None:
        """The dimension written vectors must have (the bound embedder's). Backends may cache it."""
        bound = self.bound_embedder
        return None if bound is None else bound[1]

    def bind_sparse_encoder(self, name: str) -> None:
        """Record the sparse encoder (``SparseEncoder.name``) whose vectors every record written from now on
        carries. Binding the bound one again does nothing; another raises ``EmbedderMismatchError``. Records
        written before (a store that held records when it was bound) have no sparse vector until
        :meth:`set_sparse` gives them one, and no sparse search returns them until then
        (:meth:`users_missing_sparse` says whose). A read-only store only checks. Checked here: ``name`` a
        non-empty string; the backend's :meth:`_bind_sparse_encoder` binds it."""
        if not isinstance(name, str) or not name:
            raise InvalidInputError(f"a sparse encoder's name must be a non-empty string, got {name!r}")
        self._bind_sparse_encoder(name)

    @abstractmethod
    def _bind_sparse_encoder(self, name: str) -> None:
        """:meth:`bind_sparse_encoder` of a checked name."""

    @property
    @abstractmethod
    def bound_sparse_encoder(self) -> str | None:
        """The name of the sparse encoder whose vectors the store holds; ``None``: the store holds none."""

    def _check_writable(self) -> None:
        """Raise if this store may not be written at all (e.g. opened read-only); called before any other
        check of a write. Nothing to check by default."""
        return None

    def write(
        self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray, *,
        mode: WriteMode = "merge", sparse: Sequence[SparseVector] | None = None,
        derived: Mapping[str, Mapping[str, np.ndarray]] | None = None, derived_form: int = 1,
    ) -> IngestResult:
        """Store sessions and records (row i of ``vectors`` belongs to ``records[i]``). With atomic batches
        (see the module docstring), after a crash either all of them are visible or none; elsewhere each
        record is atomic and re-running the write completes it (it is idempotent).
        Re-writing an unchanged record changes nothing; a record whose content, date, expiry or
        annotations changed is replaced.

        ``mode``: ``merge`` adds and replaces records. ``replace`` makes each of ``sessions`` hold exactly
        the batch's records: its other raw records are deleted, and if anything of it changed, the
        records derived from it too. ``append`` raises ``WriteConflictError`` (writing nothing) if a record
        of the same session and kind already holds a position at or after the batch's first one.

        Checked here, for every backend, before anything is sent (``InvalidInputError``): a known mode, an
        embedder bound, one finite vector of the bound dimension per record, no record id twice, text
        that is valid Unicode (no lone surrogates, which no file or server can encode), annotations of each
        record and session within ``validation``'s limits (keys, characters, bytes); ``sparse``: one
        ``SparseVector`` per record exactly when a sparse encoder is bound, none otherwise; ``derived``: by the id
        of a record of the batch, vectors of texts derived from it (``statements.kept_texts``) by their content hash,
        each finite and of the bound dimension, kept with the record where the backend ``keeps_derived`` (and
        erased with it) for ``lookup_vectors``; ``derived_form``: the form of those texts (``statements.KEPT_FORM``, a
        whole number from 1: ``turns_to_keep``). The backend's :meth:`_write` then stores the checked batch."""
        self._check_writable()
        if mode not in WRITE_MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(map(repr, WRITE_MODES))}, got {mode!r}")
        dim = self._dimension()
        if dim is None:
            raise InvalidInputError("bind an embedder to the store before writing records")
        try:
            vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"vectors must be an array of floats: {exc}") from exc
        if vecs.shape != (len(records), dim):
            raise InvalidInputError(f"vectors have shape {vecs.shape}; expected ({len(records)}, {dim})")
        if not np.isfinite(vecs).all():
            raise InvalidInputError("vectors must be finite (no NaN or infinity)")
        if len({r.record_id for r in records}) != len(records):
            raise InvalidInputError("a batch holds the same record twice")
        for r in records:  # records built outside validate_messages (e.g. from an LLM's reply) too
            check_annotation_limits(r.annotations, f"the annotations of record {r.record_id}")
            texts = (r.text, r.index_text, r.speaker or "", *r.annotations.keys(), *r.annotations.values())
            links = r.supersedes
            if not isinstance(links, tuple) or not all(isinstance(x, str) and x for x in links) or \
                    r.record_id in links or len(links) > MAX_LINKS:
                raise InvalidInputError(f"record {r.record_id}: supersedes must be a tuple of at most {MAX_LINKS} "
                                        "other records' ids")
            texts = (*texts, *links)
            if any(LONE_SURROGATE.search(t) for t in texts):
                raise InvalidInputError(f"record {r.record_id} holds a lone surrogate (not valid Unicode text)")
        for s in sessions:
            check_annotation_limits(s.annotations, f"the annotations of session {s.session_id}")
        kept = _checked_derived(derived, {r.record_id for r in records}, dim, derived_form)  # alike in every backend
        return self._write(sessions, records, vecs, mode, self._checked_sparse(records, sparse),
                           kept if self.keeps_derived else None)

    def _checked_sparse(self, records: Sequence[MemoryRecord], sparse: Sequence[SparseVector] | None
                        ) -> list[SparseVector] | None:
        bound = self.bound_sparse_encoder
        if sparse is None:
            if bound is not None and records:
                raise SparseEncoderBoundError(bound, f"this store holds sparse vectors from {bound!r}: write one "
                                              "per record")
            return None
        if bound is None:
            raise InvalidInputError("bind a sparse encoder to the store before writing sparse vectors")
        if isinstance(sparse, (str, bytes)) or len(sparse) != len(records):
            raise InvalidInputError(f"sparse must hold one SparseVector per record ({len(records)})")
        if not all(isinstance(v, SparseVector) for v in sparse):
            raise InvalidInputError("sparse must hold SparseVector objects")
        return list(sparse)

    @abstractmethod
    def _write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray,
               mode: WriteMode, sparse: list[SparseVector] | None, derived: list[Derived] | None) -> IngestResult:
        """Store a batch :meth:`write` has checked (``vectors``: float32, C-contiguous, one row per record;
        ``sparse``: one vector per record when a sparse encoder is bound, else ``None``; ``derived``: (record id,
        content hash, float32 vector, form) of the batch's records, only where the backend ``keeps_derived``)."""

    def turns_to_keep(self, user_id: str, after: str = "", *, limit: int | None = 256, form: int = 1
                      ) -> list[MemoryRecord]:
        """The user's own live turns (kind ``turn``, role ``user``) with no kept derived vector of ``form`` or a later
        one, whose record id is after ``after``, in record-id order, at most ``limit`` (checked here: ``None`` or at
        least 0; ``form`` a whole number from 1): the turns written before their vectors were kept, or kept of texts
        of an earlier form, to be given them (``keep_derived``), and those that state nothing. ``[]`` where the
        backend keeps none."""
        user_id, limit, form = check_user_id(user_id), check_limit(limit), check_form(form)
        if not isinstance(after, str):
            raise InvalidInputError(f"after must be a record id (a string), got {type(after).__name__}")
        return self._turns_to_keep(user_id, after, limit, form) if self.keeps_derived and limit != 0 else []

    def _turns_to_keep(self, user_id: str, after: str, limit: int | None, form: int) -> list[MemoryRecord]:
        return []

    def keep_derived(self, user_id: str, derived: Mapping[str, Mapping[str, np.ndarray]], *, form: int = 1) -> int:
        """Keep vectors of texts derived from the user's stored records, as ``write``'s ``derived`` (checked the
        same way, before anything is written; ``form`` as its ``derived_form``), for records written without them
        or with those of an earlier form (which go: a record's kept texts are of one form); a record of another
        user or none is skipped, a vector kept already (of this form or a later one) stays. Returns how many were
        kept (0 where the backend keeps none)."""
        self._check_writable()
        user_id = check_user_id(user_id)
        dim = self._dimension()
        if dim is None or not derived:
            return 0
        kept = _checked_derived(derived, None, dim, form)
        return self._keep_derived(user_id, kept or []) if self.keeps_derived else 0

    def _keep_derived(self, user_id: str, derived: list[Derived]) -> int:
        return 0

    @abstractmethod
    def users_missing_sparse(self) -> list[str]:
        """The users who have live records without a sparse vector while a sparse encoder is bound (user ids
        only, never records); ``[]`` when none is bound."""

    def records_without_sparse(self, user_id: str, *, limit: int | None = None) -> list[MemoryRecord]:
        """The user's live records (every kind) without a sparse vector, in conversation order, at most
        ``limit`` (checked here: ``None`` or an integer of at least 0); ``[]`` when no sparse encoder is
        bound. The backend's :meth:`_records_without_sparse` reads them."""
        return self._records_without_sparse(check_user_id(user_id), check_limit(limit))

    @abstractmethod
    def _records_without_sparse(self, user_id: str, limit: int | None) -> list[MemoryRecord]: ...

    def set_sparse(self, user_id: str, vectors: Mapping[str, SparseVector]) -> int:
        """Give the user's records (by record id) their sparse vectors, where they have none; a record that has
        one keeps it, ids of other users' or unknown records are ignored. Returns how many were set.
        Checked here before anything is written (``InvalidInputError``): a writable store, a mapping of
        string ids to ``SparseVector`` s. The backend's :meth:`_set_sparse` then sets them, and refuses
        (``InvalidInputError``, nothing set) when no sparse encoder is bound."""
        self._check_writable()
        user_id = check_user_id(user_id)
        if not isinstance(vectors, Mapping):
            raise InvalidInputError(f"vectors must map record ids to SparseVector objects, got "
                                    f"{type(vectors).__name__}")
        for record_id, vector in vectors.items():
            if not isinstance(record_id, str):
                raise InvalidInputError(f"record ids must be strings, got {record_id!r}")
            if not isinstance(vector, SparseVector):
                raise InvalidInputError(f"the sparse vector of record {record_id!r} is a {type(vector).__name__}, "
                                        "not a SparseVector")
        return self._set_sparse(user_id, dict(vectors))

    @abstractmethod
    def _set_sparse(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        """Set checked vectors (:meth:`set_sparse`)."""

    def sparse_terms(self, user_id: str) -> np.ndarray | None:
        """The user's sparse term ids (int32, increasing; never another's); ``None``: the backend does not say."""
        return self._sparse_terms(check_user_id(user_id))

    def _sparse_terms(self, user_id: str) -> np.ndarray | None:
        return None  # any term may match (a query term outside the user's scores 0 for every record)

    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        """The user's records with these ids (others' and unknown ids are silently absent). Checked here: the
        user id, and ``record_ids`` a list (not a string) of strings; the backend's :meth:`_get_records` reads."""
        return self._get_records(check_user_id(user_id), check_record_ids(record_ids))

    @abstractmethod
    def _get_records(self, user_id: str, record_ids: list[str]) -> list[MemoryRecord]:
        """:meth:`get_records` of checked inputs."""

    def superseding(self, user_id: str, record_ids: Sequence[str], now: datetime | None = None
                    ) -> dict[str, tuple[str, ...]]:
        """The links from the older side: for each of ``record_ids`` that a live record (at ``now``) of the
        user supersedes (its ``MemoryRecord.supersedes`` names it), the ids of those records in conversation
        order; ids nothing supersedes are absent. A link lives on the newer record: it goes when that record
        is forgotten, replaced without it or expires, and ``forget``/``purge_expired`` drop links to the
        records they erase. Supersession deletes nothing. Checked here: the user id, ``record_ids`` a list of
        strings, ``now``; the backend's :meth:`_superseding` reads."""
        ids = check_record_ids(record_ids)
        user_id, at = check_user_id(user_id), check_now(now)
        return self._superseding(user_id, ids, at) if ids else {}

    @abstractmethod
    def _superseding(self, user_id: str, record_ids: list[str], now: datetime) -> dict[str, tuple[str, ...]]:
        """:meth:`superseding` of checked inputs (at least one id)."""

    def list_records(
        self, user_id: str, filters: SearchFilters = NO_FILTERS, *, limit: int | None = None,
        newest_first: bool = False, now: datetime | None = None,
    ) -> list[MemoryRecord]:
        """The user's records in conversation order (session date, then position), those ``filters.admits``
        at ``now``; the last ``limit`` first when ``newest_first``. Checked here: the user id, ``filters``,
        ``limit`` (``None`` or an integer of at least 0), ``newest_first`` (a bool) and ``now``; the
        backend's :meth:`_list_records` reads."""
        return self._list_records(check_user_id(user_id), check_filters(filters), check_limit(limit),
                                  check_flag(newest_first, "newest_first"), check_now(now))

    @abstractmethod
    def _list_records(self, user_id: str, filters: SearchFilters, limit: int | None, newest_first: bool,
                      now: datetime) -> list[MemoryRecord]:
        """:meth:`list_records` of checked inputs."""

    def neighbours(self, user_id: str, anchors: Iterable[Anchor], radius: int, filters: SearchFilters = NO_FILTERS,
                   now: datetime | None = None) -> list[MemoryRecord]:
        """The user's records around ``anchors``: for each ``(session_id, kind, position)``, the records of that
        session and kind at positions ``position - radius`` to ``position + radius`` (its own included), those
        ``filters.admits`` at ``now``, each once, in ``list_records``' order. Exactly what a listing of the
        anchors' sessions under ``filters`` holds at those places, read by position: the cost grows with the
        anchors and the radius, never with the length of their sessions. Never another user's records.

        Checked here (``InvalidInputError``): the user id, ``filters`` and ``now`` as for a search, ``radius``
        an integer of at least 0, each anchor a ``(str, str, int)`` tuple. The anchors' windows are merged (``windows.windows``) and the backend's
        :meth:`_neighbours` reads them; no anchor, or filters that admit nothing, read nothing."""
        user_id, filters, at = check_user_id(user_id), check_filters(filters), check_now(now)
        merged = windows(anchors, radius)
        if not merged or admits_nothing(filters):
            return []
        return self._neighbours(user_id, merged, filters, at)

    def neighbour_candidates(self, user_id: str, anchors: Iterable[Anchor], radius: int,
                             filters: SearchFilters = NO_FILTERS, now: datetime | None = None) -> Candidates:
        """The records :meth:`neighbours` returns, the same checks and order, as columns (``Candidates``,
        scores 0): retrieval scores them and reads only those it returns (:meth:`read_candidates`)."""
        user_id, filters, at = check_user_id(user_id), check_filters(filters), check_now(now)
        merged = windows(anchors, radius)
        if not merged or admits_nothing(filters):
            return Candidates.empty(user_id)
        return self._neighbour_candidates(user_id, merged, filters, at)

    def _neighbour_candidates(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                              now: datetime) -> Candidates:
        """By default the backend's records as columns (kept); a backend with columns in memory answers
        without reading records."""
        records = self._neighbours(user_id, merged, filters, now)
        return Candidates.from_records(user_id, records, [0.0] * len(records))

    @abstractmethod
    def _neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        """The user's records inside ``merged`` (non-overlapping windows) that ``filters.admits`` at ``now``,
        in ``list_records``' order (:meth:`neighbours`)."""

    @abstractmethod
    def get_session(self, user_id: str, session_id: str) -> Session | None: ...

    @abstractmethod
    def list_sessions(self, user_id: str) -> list[Session]: ...

    @abstractmethod
    def count(self, user_id: str | None = None) -> int:
        """Live records of one user, or of all users when ``user_id`` is None."""

    @abstractmethod
    def users(self) -> list[str]: ...

    @abstractmethod
    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase a user's records, raw and derived, and sessions (or one session's) in one step: rows,
        full-text terms and vectors, and the user's own entry once nothing of the user is left."""

    @abstractmethod
    def purge_expired(self, now: datetime | None = None) -> int:
        """Delete records whose ``expires_at`` has passed, and the sessions left with no record.
        Returns how many records."""

    @abstractmethod
    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        """The user's stored vectors by content hash, for the embedding cache: the records' (of their indexed
        text) and, where the backend ``keeps_derived``, those kept of texts derived from them (``write``'s
        ``derived``). Vectors only, never text; never another user's, so the cache's speed reveals nothing of
        what others wrote."""

    @abstractmethod
    def stats(self) -> dict[str, object]: ...

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _checked_derived(derived: Mapping[str, Mapping[str, np.ndarray]] | None, ids: set[str] | None, dim: int,
                     form: int) -> list[Derived] | None:
    """``write``'s ``derived`` as (record id, hash, float32 vector, ``form``), or ``InvalidInputError``: a record of
    the batch (``ids``; ``None``: any id, the store skips those not the user's) each, a non-empty hash, one finite
    vector of ``dim`` floats; ``form`` a whole number from 1."""
    form = check_form(form)
    if not derived:
        return None
    out: list[Derived] = []
    for rid, vectors in derived.items():
        if (ids is not None and rid not in ids) or not isinstance(vectors, Mapping):
            raise InvalidInputError(f"derived vectors must be given by the id of a record of the batch, got {rid!r}")
        for h, vec in vectors.items():
            v = vec if isinstance(vec, np.ndarray) and np.issubdtype(vec.dtype, np.floating) else None
            if not isinstance(h, str) or not h or v is None or v.shape != (dim,) or not np.isfinite(v).all():
                raise InvalidInputError(f"record {rid}: a derived vector must be a finite array of {dim} floats, "
                                        "by a non-empty content hash")
            out.append((rid, h, np.ascontiguousarray(v, dtype=np.float32), form))
    return out
