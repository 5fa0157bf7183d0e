"""Memory on Couchbase Server (7.6+) or Capella: KV documents, one Search index for vector and full-text
search, SQL++ for listing and erasing. The couchbase SDK is imported on first use, never at import time.

    store = CouchbaseStore.connect("couchbase://localhost", "user", "password", bucket="cbmemory")
    memory = AgentMemory(store)

What each operation sends (the builders are in ``couchbase_requests``, document bodies in ``couchbase_docs``,
the calls in ``couchbase_client``, schema management in ``couchbase_schema``):

- writes: one KV ``upsert_multi`` per batch of records (TTL as per-document expiry), sessions and users;
  ``mode="replace"`` lists the session's records (SQL++) and removes its leftovers (KV ``remove_multi``),
  ``mode="append"`` checks the session's positions first (SQL++);
- ``vector_search``: one Search request, k-NN with the user and filters as pre-filter;
- ``sparse_search``: one SQL++ statement that scores the user's records server-side (``UNNEST`` of each
  record's stored sparse vector, summed per record), at ``request_plus`` consistency;
- ``text_search`` / ``phrase_search``: one Search request, each query word (``match``) or phrase
  (``match_phrase``) on both text fields, with the filters as zero-boost conjuncts;
- ``list_records``, ``neighbours`` (windows of positions), ``count``, ``users``, ``list_sessions``, ``forget``, ``purge_expired``, ``lookup_vectors``,
  ``users_missing_sparse``, ``records_without_sparse``: SQL++ with named parameters, at ``request_plus``
  consistency;
- ``set_sparse``: one KV ``get_multi`` per batch of ids (bodies and CAS), then per document that needs it
  one sub-document insert of its ``sparse`` field, sent with the CAS read.

Every hit is fetched back by key and checked again (the user, then ``filters.admits``) before it is
returned, so a lagging Search index can never surface another user's record, an erased record or an
expired one. Vector scores are recomputed exactly from the stored (normalised) vectors: cosine
similarities, as in the embedded store; sparse scores likewise (``sparse_dot`` of the stored and the query
vector). Searches wait (``at_plus``) for this store's own writes to be indexed.

Not the embedded store's guarantees: batches are not atomic (each document write is, and a retried ingest
is idempotent, so re-running it repairs a crash mid-batch); ``append``'s position check and the clean-ups
of ``replace``, ``forget`` and ``purge_expired`` are separate requests, not one transaction (see
``_write``); the Search service holds dates only from 1677 to 2262, so a record dated outside them may be
missed by a search with a time filter on that date (``couchbase_requests.filter_clauses``).

Full text, as close to the embedded store as the Search service allows. Like the embedded store's BM25
over two fields (the indexed text and the raw turn, weighed equally: lexical.py), the index holds both
``index_text`` and ``text`` (``en`` analyser) and a query is, per content word (the same stopword-free
words the embedded store searches), a disjunction of ``match`` on both fields with equal boosts; a phrase
is a ``match_phrase`` on both fields. What still differs:

- statistics span tenants: the Search service's term statistics (document frequencies, average lengths)
  are those of the whole index, every user's records, so another user's data shifts the scores and can
  shift the order of close hits; the embedded store counts the queried user's records only;
- the scoring function: tf-idf (7.6) or BM25 (8.0+, when the index's scoring model is set to it), with
  Lucene-style coordination (a disjunction's sum is scaled by the share of its clauses that matched), not
  the embedded store's BM25F (k1 = 1.2, b = 0.75 over the summed fields); stemming and stopwords are the
  ``en`` analyser's, not Porter's on the embedded store's tokens.

The server score is therefore never handed out as such: ``bm25`` and ``entity`` scores are each hit's
server score divided by the best one of the call, in (0, 1], best hit 1.0; only their order, within one
call, means anything.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ..dates import utcnow
from ..embedding.sparse import SparseVector, sparse_dot
from ..errors import (
    CbMemoryError,
    EmbedderMismatchError,
    InvalidInputError,
    WriteConflictError,
)
from ..models import (
    NO_FILTERS,
    ForgetResult,
    Hit,
    IngestResult,
    MemoryRecord,
    SearchFilters,
    Session,
    frozen_mapping,
)
from . import couchbase_docs as d
from . import couchbase_requests as q
from . import couchbase_schema as schema
from .base import MemoryStore, WriteMode
from .couchbase_client import CHUNK, CouchbaseClient, connect_cluster, sdk_exceptions
from .filters import admits, admits_nothing
from .sessions import leftovers
from .windows import Window


class CouchbaseStore(MemoryStore):
    """Memory in one Couchbase bucket: a scope (``agentmemory``) with ``users``, ``sessions`` and
    ``memory`` collections and one Search index over ``memory``. Batches are not atomic (see the module
    docstring).

    Construct with an injected, connected ``couchbase.cluster.Cluster`` (nothing is sent until the first
    operation) or with :meth:`connect`. With ``auto_schema`` (default) the first ``bind_embedder`` creates
    the scope, collections, SQL++ indexes and Search index when missing (:meth:`ensure_schema`).

    ``candidates_per_k``: a vector search asks the Search service for ``k * candidates_per_k`` nearest
    neighbours (a sparse search asks SQL++ for as many best-scoring keys) and keeps the exact top k.
    ``consistency``: ``"at_plus"`` (searches wait until this store's own writes are indexed) or
    ``"not_bounded"``.
    """

    def __init__(self, cluster: Any, bucket: str, *, scope: str = d.DEFAULT_SCOPE,
                 index_name: str = d.DEFAULT_INDEX, users_collection: str = "users",
                 sessions_collection: str = "sessions", memory_collection: str = "memory",
                 auto_schema: bool = True, schema_timeout: float = 120.0, candidates_per_k: int = 2,
                 consistency: str = "at_plus", close_cluster: bool = False):
        if consistency not in ("at_plus", "not_bounded"):
            raise InvalidInputError(f"consistency must be 'at_plus' or 'not_bounded', got {consistency!r}")
        if not isinstance(candidates_per_k, int) or candidates_per_k < 1:
            raise InvalidInputError("candidates_per_k must be a positive integer")
        self._c = CouchbaseClient(cluster, bucket, scope, index_name, users_collection, sessions_collection,
                                  memory_collection, consistency)
        self.cluster = cluster
        self.bucket_name, self.scope_name, self.index_name = bucket, scope, index_name
        self.users_collection, self.sessions_collection = users_collection, sessions_collection
        self.memory_collection = memory_collection
        self.auto_schema = auto_schema
        self.schema_timeout = schema_timeout
        self.candidates_per_k = candidates_per_k
        self.consistency = consistency
        self._close_cluster = close_cluster
        self._dim: int | None = None
        self._sparse: str | None = None  # the bound sparse encoder, once seen (a binding never changes)
        self._schema_ready = False
        self._collections_seen = False

    @classmethod
    def connect(cls, connection_string: str, username: str, password: str, bucket: str, *,
                timeout: float = 10.0, cluster_options: Any = None, **kwargs: Any) -> CouchbaseStore:
        """Connect (``couchbase://host``, or ``couchbases://host`` for Capella), check that the Query and
        Search services answer within ``timeout`` seconds and open the bucket (Data service);
        ``StoreUnavailableError`` otherwise (unreachable, refused credentials, missing bucket).
        ``cluster_options`` replaces the default ``ClusterOptions`` (e.g. with a WAN profile applied)."""
        cluster = connect_cluster(connection_string, username, password, timeout=timeout,
                                  cluster_options=cluster_options)
        store = cls(cluster, bucket, close_cluster=True, **kwargs)
        try:
            store._c.handle("bucket")  # opens the bucket: the Data service answers, and the bucket exists
        except CbMemoryError:
            cluster.close()
            raise
        return store

    # ---------------------------------------------------------------- schema and embedder
    def ensure_schema(self, dimension: int, *, timeout: float | None = None) -> None:
        """Create what is missing: scope, collections, SQL++ indexes and the Search index (with
        ``dimension``-sized vectors). An existing Search index with another dimension is refused with
        ``EmbedderMismatchError``. Waits, by polling up to ``timeout`` seconds, until each is usable."""
        deadline = time.monotonic() + (self.schema_timeout if timeout is None else timeout)
        schema.ensure_collections(self._c, deadline)
        self._collections_seen = True
        schema.ensure_search_index(self._c, dimension, deadline)
        self._schema_ready = True

    def _collections_exist(self) -> bool:
        if not self._collections_seen:
            self._collections_seen = schema.collections_exist(self._c)
        return self._collections_seen

    def _read_meta(self) -> dict[str, Any] | None:
        if not self._collections_exist():
            return None
        return self._c.get_one(self.users_collection, d.META_KEY)

    def _claim_meta(self, what: str, fields: Mapping[str, Any], *, exists: bool) -> bool:
        """Write ``fields`` into the meta document (created when missing), unless another process set one
        of them first: ``False`` then, and nothing is written (each is set once, never overwritten)."""
        if not exists:
            e = sdk_exceptions()
            try:
                self._c.io(what, self._c.handle(self.users_collection).insert, d.META_KEY, d.meta_doc(fields))
                return True
            except e.DocumentExistsException:  # another process made it first: add to it
                pass
        return self._c.add_fields(self.users_collection, d.META_KEY, fields)

    def bind_embedder(self, name: str, dimension: int) -> None:
        meta = self._read_meta()
        has_embedder = meta is not None and "embedder_name" in meta  # not when only a sparse encoder is bound
        if has_embedder and meta is not None:
            self._check_meta(meta, name, dimension)
        if self.auto_schema and not self._schema_ready:
            self.ensure_schema(dimension)
        elif not self._collections_exist():
            raise CbMemoryError(f"{self.bucket_name}.{self.scope_name} has no cbmemory collections; call "
                                f"ensure_schema({dimension}) or construct the store with auto_schema=True")
        if not has_embedder and not self._claim_meta("bind embedder", d.embedder_meta(name, dimension),
                                                     exists=meta is not None):
            self._check_meta(self._read_meta() or {}, name, dimension)  # another process bound it first
        self._dim = dimension

    def _check_meta(self, meta: Mapping[str, Any], name: str, dimension: int) -> None:
        have_name, have_dim = meta.get("embedder_name"), meta.get("embedder_dimension")
        if have_name != name or have_dim != dimension:
            raise EmbedderMismatchError(
                f"{self.bucket_name}.{self.scope_name} holds vectors from {have_name!r} ({have_dim} dimensions); "
                f"it cannot be used with {name!r} ({dimension} dimensions)")

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        meta = self._read_meta()
        if not meta or "embedder_name" not in meta:
            return None
        return meta["embedder_name"], int(meta["embedder_dimension"])

    def bind_sparse_encoder(self, name: str) -> None:
        """Record ``name`` in the meta document (``sparse_encoder``, next to the embedder's fields; created
        with the collections when missing, under ``auto_schema``), with one atomic sub-document insert: of
        two processes binding at once, the first wins and the other compares names. A store that already
        holds records may be bound: their documents have no ``sparse`` field, ``sparse_search`` never finds
        them, and ``users_missing_sparse`` / ``records_without_sparse`` list them until ``set_sparse`` (or
        re-ingesting them) gives them one. So does a record written meanwhile by another process that read
        the meta document before the binding."""
        if not isinstance(name, str) or not name:
            raise InvalidInputError(f"a sparse encoder's name must be a non-empty string, got {name!r}")
        meta = self._read_meta()
        have = None if meta is None else meta.get(d.SPARSE_META)
        if have is not None:
            self._check_sparse(have, name)
            return
        if not self._collections_exist():
            if not self.auto_schema:
                raise CbMemoryError(f"{self.bucket_name}.{self.scope_name} has no cbmemory collections; call "
                                    f"ensure_schema(dimension) or construct the store with auto_schema=True")
            schema.ensure_collections(self._c, time.monotonic() + self.schema_timeout)
            self._collections_seen = True
        if not self._claim_meta("bind sparse encoder", d.sparse_meta(name), exists=meta is not None):
            self._check_sparse((self._read_meta() or {}).get(d.SPARSE_META), name)  # bound by another first
        self._sparse = name

    def _check_sparse(self, have: object, name: str) -> None:
        if have != name:
            raise EmbedderMismatchError(
                f"{self.bucket_name}.{self.scope_name} holds sparse vectors from {have!r}; it cannot be used "
                f"with {name!r}")
        self._sparse = name

    @property
    def bound_sparse_encoder(self) -> str | None:
        if self._sparse is None:
            meta = self._read_meta()
            have = None if meta is None else meta.get(d.SPARSE_META)
            self._sparse = have if isinstance(have, str) else None
        return self._sparse

    def _dimension(self) -> int | None:
        if self._dim is None:
            bound = self.bound_embedder
            self._dim = bound[1] if bound else None
        return self._dim

    def _drop_users_without_records(self, user_ids: Sequence[str]) -> None:
        """Remove the user document of each of ``user_ids`` that has no record left."""
        users = list(dict.fromkeys(user_ids))
        for i in range(0, len(users), CHUNK):
            part = users[i : i + CHUNK]
            left = set(self._c.query(q.users_with_records(self.memory_collection, part)))
            self._c.remove_many(self.users_collection, [d.user_key(u) for u in part if u not in left])

    # ---------------------------------------------------------------- writes
    def _write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray,
               mode: WriteMode, sparse: list[SparseVector] | None) -> IngestResult:
        """Not atomic on Couchbase: each document write is, and re-running an interrupted write completes
        it. Records are written first, then sessions, then users, then (``replace``) the session's
        leftovers are removed.

        ``append`` is a check-then-write, not an atomic one: one SQL++ query per (user, session, kind)
        looks for a stored record at or after the batch's first position (other than the batch's own
        records, so a retried append completes) and raises ``WriteConflictError`` before anything is
        written; a writer that appends between that check and the upserts is not detected.
        ``replace`` lists each session's stored records (SQL++), keeps what ``sessions.leftovers`` keeps
        and removes the rest by key after the batch is written. Each record's sparse vector, when given,
        goes into its document (``couchbase_docs.record_body``)."""
        keys = [d.record_key(r.record_id) for r in records]
        if mode == "append":
            self._check_append(records)
        existing = self._c.get_many(self.memory_collection, keys)
        old_sessions = (self._c.get_many(self.sessions_collection,
                                         [d.session_key(s.user_id, s.session_id) for s in sessions])
                        if mode == "replace" else {})
        wall_clock = utcnow()
        docs: dict[str, dict[str, Any]] = {}
        expiry: dict[str, timedelta] = {}
        inserted = replaced = unchanged = 0
        written: set[tuple[str, str]] = set()  # sessions with a record inserted or replaced
        sparse_vectors: Sequence[SparseVector | None] = [None] * len(records) if sparse is None else sparse
        for rec, vec, sv, key in zip(records, vectors, sparse_vectors, keys, strict=True):
            body = d.record_body(rec, vec, sv)
            old = existing.get(key)
            if old is not None and d.record_signature(old) == d.record_signature(body):
                unchanged += 1
                continue
            replaced += old is not None
            inserted += old is None
            written.add((rec.user_id, rec.session_id))
            docs[key] = body
            ttl = d.kv_expiry(rec.expires_at, wall_clock)
            if ttl is not None:
                expiry[key] = ttl
        stale = self._leftovers(sessions, records, old_sessions, written) if mode == "replace" else []
        users = {s.user_id for s in sessions} | {r.user_id for r in records}
        # records before their session and user: a concurrent purge or forget that deletes a session or user
        # left empty cannot delete one this write is about to fill (it re-creates them after its records)
        self._c.upsert_many(self.memory_collection, docs, expiry)
        self._c.upsert_many(self.sessions_collection,
                            {d.session_key(s.user_id, s.session_id): d.session_body(s) for s in sessions})
        self._c.upsert_many(self.users_collection, {d.user_key(u): d.user_body(u) for u in sorted(users)})
        self._c.remove_many(self.memory_collection, stale)
        return IngestResult(inserted, replaced, unchanged, tuple(r.record_id for r in records))

    def _check_append(self, records: Sequence[MemoryRecord]) -> None:
        """Refuse an append whose positions another writer took since they were read (nothing written)."""
        first: dict[tuple[str, str, str], int] = {}
        ids: dict[tuple[str, str, str], list[str]] = {}
        for r in records:
            group = (r.user_id, r.session_id, r.kind)
            first[group] = min(first.get(group, r.position), r.position)
            ids.setdefault(group, []).append(r.record_id)
        for (user, session, kind), position in first.items():
            if self._c.query(q.append_conflict(self.memory_collection, user, session, kind, position,
                                               ids[(user, session, kind)])):
                raise WriteConflictError(
                    f"another writer appended to session {session!r} first; nothing was written")

    def _leftovers(self, sessions: Sequence[Session], records: Sequence[MemoryRecord],
                   old_sessions: Mapping[str, dict[str, Any]], written: set[tuple[str, str]]) -> list[str]:
        """Keys of the stored records ``replace`` deletes: per session, ``sessions.leftovers`` of what it
        holds (listed by SQL++), the session counting as changed when a record of it was inserted or
        replaced or its stored date differs."""
        stale: list[str] = []
        dates = {(s.user_id, s.session_id): s.occurred_at for s in sessions}  # the last one given is written
        for key, date in dates.items():
            old = old_sessions.get(d.session_key(*key))
            changed = key in written or (old is not None and d.session_date(old) != date)
            batch = {r.record_id for r in records if (r.user_id, r.session_id) == key}
            rows = self._c.query(q.session_records(self.memory_collection, *key))
            stored = [(row["record_id"], row["kind"]) for row in rows if isinstance(row, Mapping)]
            stale += [d.record_key(rid) for rid in leftovers(stored, batch, changed)]
        return stale

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase the user's records and sessions (or one session's) with SQL++ ``DELETE ... RETURNING``
        (the counts are the rows returned), then the user document when no record of the user is left.
        Documents are gone from KV at once; the Search index drops them as it catches up, and every hit
        is re-read by key, so an erased record is never returned meanwhile."""
        records = len(self._c.query(q.erase_records(self.memory_collection, user_id, session_id)))
        sessions = len(self._c.query(q.erase_sessions(self.sessions_collection, user_id, session_id)))
        if session_id is None:
            self._c.remove_many(self.users_collection, [d.user_key(user_id)])
        else:
            self._drop_users_without_records([user_id])
        return ForgetResult(records, sessions, wiped=True)

    def purge_expired(self, now: datetime | None = None) -> int:
        """Delete expired records (one SQL++ ``DELETE``, which returns each one's user), then those users'
        sessions left with no record and the user documents of users left with none. Returns how many
        records. Separate statements, not one transaction: a write racing the clean-up re-creates its
        session and user documents after its records (see ``write``)."""
        rows = self._c.query(q.purge_expired(self.memory_collection, now or utcnow()))
        users = sorted({row["user_id"] for row in rows
                        if isinstance(row, Mapping) and isinstance(row.get("user_id"), str)})
        for i in range(0, len(users), CHUNK):
            self._c.query(q.erase_empty_sessions(self.sessions_collection, self.memory_collection,
                                               users[i : i + CHUNK]))
        self._drop_users_without_records(users)
        return len(rows)

    # ---------------------------------------------------------------- searches
    def _query_vector(self, vector: np.ndarray) -> np.ndarray | None:
        dim = self._dimension()
        if dim is None:
            return None
        qv = np.asarray(vector, dtype=np.float32).reshape(-1)
        if qv.shape[0] != dim or not np.isfinite(qv).all():
            raise InvalidInputError(f"query vector must be {dim} finite floats")
        return qv

    def _checked(self, rows: Sequence[tuple[str, float]], user_id: str, filters: SearchFilters,
                 now: datetime) -> Iterator[tuple[float, MemoryRecord, dict[str, Any]]]:
        """Rows whose documents still exist, are the user's and are admitted by the filters, in server order."""
        bodies = self._c.get_many(self.memory_collection, [key for key, _ in rows])
        for key, score in rows:
            body = bodies.get(key)
            if body is None:
                continue
            rec = d.body_to_record(body)
            if rec.user_id == user_id and admits(rec, filters, now):
                yield score, rec, body

    def vector_search(self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        qv = self._query_vector(vector)
        if qv is None or admits_nothing(filters):
            return []
        now = now or utcnow()
        n = max(k, k * self.candidates_per_k)
        rows = self._c.search(q.vector_request(user_id, qv, n, filters, now), n)
        found = [(float(d.body_vector(body) @ qv), rec) for _, rec, body in self._checked(rows, user_id, filters, now)]
        found.sort(key=lambda x: -x[0])  # stable: ties keep the server's order
        return [Hit(rec, s, frozen_mapping({"vector": s}), frozen_mapping({"vector": i}))
                for i, (s, rec) in enumerate(found[:k], 1)]

    def sparse_search(self, user_id: str, query: SparseVector, k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        """One SQL++ statement (``couchbase_requests.sparse_search``) scores the user's records server-side
        and returns the best ``k * candidates_per_k`` keys; each document is then fetched by key and checked
        again (the user, ``filters.admits``), its score recomputed exactly from the stored vector
        (``sparse_dot``, as the embedded store scores), and the best ``k`` with a positive score are returned
        (ties: by document key, the statement's order). A document whose ``sparse`` field is malformed is
        skipped. Nothing is sent when no sparse encoder is bound or the query has no term."""
        if not isinstance(query, SparseVector):
            raise InvalidInputError(f"query must be a SparseVector, got {type(query).__name__}")
        if len(query) == 0 or admits_nothing(filters) or self.bound_sparse_encoder is None:
            return []
        now = now or utcnow()
        n = max(k, k * self.candidates_per_k)
        rows = self._c.query(q.sparse_search(self.memory_collection, user_id, query, filters, now, n))
        keys = dict.fromkeys(row["key"] for row in rows
                             if isinstance(row, Mapping) and isinstance(row.get("key"), str))
        found: list[tuple[float, MemoryRecord]] = []
        for _, rec, body in self._checked([(key, 0.0) for key in keys], user_id, filters, now):
            try:
                stored = d.body_sparse(body)
            except CbMemoryError:  # a malformed sparse field: the document cannot be scored
                continue
            score = 0.0 if stored is None else sparse_dot(stored, query)
            if score > 0:
                found.append((score, rec))
        found.sort(key=lambda x: -x[0])  # stable: ties keep the statement's order (by key)
        return [Hit(rec, s, frozen_mapping({"sparse": s}), frozen_mapping({"sparse": i}))
                for i, (s, rec) in enumerate(found[:k], 1)]

    def _text_hits(self, signal: str, user_id: str, request: Any, k: int, filters: SearchFilters,
                   now: datetime) -> list[Hit]:
        if request is None:
            return []
        rows = self._c.search(request, max(k, k * self.candidates_per_k))
        found = [(s, rec) for s, rec, _ in self._checked(rows, user_id, filters, now)][:k]
        scale = max((s for s, _ in found if s > 0), default=1.0)  # the best server score (1.0: none positive)
        return [Hit(rec, s / scale, frozen_mapping({signal: s / scale}), frozen_mapping({signal: i}))
                for i, (s, rec) in enumerate(found, 1)]

    def text_search(self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS,
                    now: datetime | None = None) -> list[Hit]:
        if admits_nothing(filters):
            return []
        now = now or utcnow()
        return self._text_hits("bm25", user_id, q.text_request(user_id, filters, now, query=query), k, filters, now)

    def phrase_search(self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        if admits_nothing(filters):
            return []
        now = now or utcnow()
        return self._text_hits("entity", user_id, q.text_request(user_id, filters, now, phrases=phrases),
                               k, filters, now)

    # ---------------------------------------------------------------- records without sparse vectors
    def users_missing_sparse(self) -> list[str]:
        """One SQL++ statement (``couchbase_requests.users_missing_sparse``: the distinct users of live
        documents without a ``sparse`` field), sorted; ``[]`` without a request when no sparse encoder is
        bound."""
        if self.bound_sparse_encoder is None:
            return []
        rows = self._c.query(q.users_missing_sparse(self.memory_collection, utcnow()))
        return sorted({row for row in rows if isinstance(row, str)})

    def _records_without_sparse(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        """One SQL++ statement (``couchbase_requests.records_without_sparse``: ``list_records``' listing of
        the user's live records, every kind, restricted to documents without a ``sparse`` field); ``[]``
        without a request when no sparse encoder is bound."""
        if self.bound_sparse_encoder is None:
            return []
        st = q.records_without_sparse(self.memory_collection, user_id, utcnow(), limit=limit)
        return [d.body_to_record(row) for row in self._c.query(st)]

    def _set_sparse(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        """The documents (their ids and vectors checked by ``set_sparse``) are read by key (KV
        ``get_multi``, with their CAS) and each that is the user's record of that id and has no ``sparse``
        field gets one: a sub-document insert of the field, sent with the CAS read
        (``CouchbaseClient.insert_field``). The document keeps its expiry and every other field. Not set (and
        not counted): another user's or an unknown id, a document that has the field (its vector is kept;
        also when another writer added it between the read and the insert) and one rewritten or erased since
        it was read (the CAS no longer matches: a concurrent re-ingest, which writes its own vector, or a
        forget). Records are not checked for expiry: a vector given to an expired record is never read."""
        if self.bound_sparse_encoder is None:
            raise InvalidInputError("bind a sparse encoder to the store before setting sparse vectors")
        wanted = {d.record_key(record_id): (record_id, vector) for record_id, vector in vectors.items()}
        found = self._c.get_many_cas(self.memory_collection, list(wanted))
        done = 0
        for key, (record_id, vector) in wanted.items():
            got = found.get(key)
            if got is None:
                continue
            body, cas = got
            if body.get("user_id") != user_id or body.get("record_id") != record_id or d.SPARSE_FIELD in body:
                continue
            outcome = self._c.insert_field(self.memory_collection, key, d.SPARSE_FIELD, d.sparse_terms(vector),
                                           cas=cas)
            done += outcome == "set"
        return done

    # ---------------------------------------------------------------- reads
    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        record_ids = list(dict.fromkeys(record_ids))
        keys = [d.record_key(r) for r in record_ids]
        bodies = self._c.get_many(self.memory_collection, keys)
        out = []
        for rid, key in zip(record_ids, keys, strict=True):
            body = bodies.get(key)
            if body is not None and body.get("user_id") == user_id and body.get("record_id") == rid:
                out.append(d.body_to_record(body))
        return out

    def list_records(self, user_id: str, filters: SearchFilters = NO_FILTERS, *, limit: int | None = None,
                     newest_first: bool = False, now: datetime | None = None) -> list[MemoryRecord]:
        st = q.list_records(self.memory_collection, user_id, filters, now or utcnow(), limit=limit,
                            newest_first=newest_first)
        return [d.body_to_record(row) for row in self._c.query(st)]

    def _neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        """SQL++ (``couchbase_requests.neighbours``), ``CHUNK`` windows a statement, each read by position."""
        records = [d.body_to_record(row) for i in range(0, len(merged), CHUNK) for row in self._c.query(
            q.neighbours(self.memory_collection, user_id, merged[i : i + CHUNK], filters, now))]
        if len(merged) > CHUNK:  # each statement's rows are in order; all of them, in list_records' order
            records.sort(key=lambda r: (r.occurred_at, r.session_id, r.position, d.record_key(r.record_id)))
        return records

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        body = self._c.get_one(self.sessions_collection, d.session_key(user_id, session_id))
        if body is None or body.get("user_id") != user_id or body.get("session_id") != session_id:
            return None
        return d.body_to_session(body)

    def list_sessions(self, user_id: str) -> list[Session]:
        return [d.body_to_session(row) for row in self._c.query(q.list_sessions(self.sessions_collection, user_id))]

    def count(self, user_id: str | None = None) -> int:
        rows = self._c.query(q.count_records(self.memory_collection, utcnow(), user_id))
        return int(rows[0]) if rows else 0

    def users(self) -> list[str]:
        return sorted(set(self._c.query(q.list_users(self.memory_collection))))

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(content_hashes))
        for i in range(0, len(hashes), CHUNK):
            for row in self._c.query(q.lookup_vectors(self.memory_collection, user_id, hashes[i : i + CHUNK])):
                out.setdefault(row["content_hash"], np.asarray(row[d.VECTOR_FIELD], dtype=np.float32))
        return out

    def stats(self) -> dict[str, object]:
        kinds = {row["kind"]: int(row["n"]) for row in self._c.query(q.kind_counts(self.memory_collection))}
        sessions = self._c.query(q.count_all(self.sessions_collection))
        bound = self.bound_embedder
        return {
            "backend": "couchbase",
            "bucket": self.bucket_name,
            "scope": self.scope_name,
            "search_index": self.index_name,
            "users": len(self.users()),
            "sessions": int(sessions[0]) if sessions else 0,
            "records": sum(kinds.values()),
            "records_by_kind": kinds,
            "embedder": bound[0] if bound else None,
            "dimension": bound[1] if bound else None,
            "sparse_encoder": self.bound_sparse_encoder,
            "schema_version": d.SCHEMA_VERSION,
        }

    def close(self) -> None:
        self._c.forget_handles()
        if self._close_cluster:
            self.cluster.close()
            self._close_cluster = False
