"""Memory on Couchbase Server (7.6+) or Capella: KV documents, one Search index for vector and full-text
search, SQL++ for listing and erasing. The couchbase SDK is imported on first use, never at import time.

    store = CouchbaseStore.connect("couchbase://localhost", "user", "password", bucket="cbmemory")
    memory = AgentMemory(store)

What each operation sends (the builders are in ``couchbase_requests``; document bodies in ``couchbase_docs``):

- writes: one KV ``upsert_multi`` per batch of records (TTL as per-document expiry), sessions and users;
  ``mode="replace"`` lists the session's records (SQL++) and removes its leftovers (KV ``remove_multi``),
  ``mode="append"`` checks the session's positions first (SQL++);
- ``vector_search``: one Search request, k-NN with the user and filters as pre-filter;
- ``text_search`` / ``phrase_search``: one Search request, ``match`` / ``match_phrase`` with the filters
  as zero-boost conjuncts;
- ``hybrid_search``: ONE Search request carrying both, split and fused client-side (see its docstring);
- ``list_records``, ``count``, ``users``, ``list_sessions``, ``forget``, ``purge_expired``, ``lookup_vectors``:
  SQL++ with named parameters, at ``request_plus`` consistency.

Every hit is fetched back by key and checked again (user, expiry, filters) before it is returned, so a
lagging Search index can never surface another user's record, an erased record or an expired one. Vector
scores are recomputed exactly from the stored (normalised) vectors: cosine similarities, as in the
embedded store. Searches wait (``at_plus``) for this store's own writes to be indexed.

Not the embedded store's guarantees: a batch is not all-or-nothing (each document write is atomic and a
retried ingest is idempotent, so a crash mid-batch is repaired by re-running it); ``append``'s position
check and the clean-ups of ``replace``, ``forget`` and ``purge_expired`` are separate requests, not one
transaction (see ``write``).

Full-text scores are NOT per-user. The Search service scores with tf-idf (7.6) or BM25 (8.0+, when the
index's scoring model is set to it), and its term statistics (document frequencies, average lengths) span
the whole index: every user's records. Another user's data therefore shifts the scores and can shift the
order of close hits, unlike the embedded store, whose BM25 counts the queried user's records only. The
server score is therefore never handed out as such: ``bm25`` and ``entity`` scores (``text_search``,
``phrase_search``, the text side of ``hybrid_search``) are each hit's server score divided by the best
one of the call, in (0, 1], best hit 1.0; only their order, within one call, means anything.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

import numpy as np

from ..dates import utcnow
from ..errors import (
    CbMemoryError,
    EmbedderMismatchError,
    InvalidInputError,
    StoreUnavailableError,
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
from ..retrieval.fusion import rrf
from . import couchbase_docs as d
from . import couchbase_requests as q
from .base import MemoryStore, StoreCapabilities, WriteMode
from .sessions import leftovers

_CHUNK = 500  # keys per multi-operation and values per IN list
T = TypeVar("T")


def _best(scores: Iterable[float]) -> float:
    """What text scores are divided by: the call's best server score (1.0 when there is no positive one)."""
    return max((s for s in scores if s > 0), default=1.0)


def _stored_date(body: Mapping[str, Any]) -> datetime | None:
    """A stored session's date (``None`` when unreadable: the session then counts as changed)."""
    try:
        return d.parse_time(body["occurred_at"])
    except (KeyError, TypeError, ValueError, CbMemoryError):
        return None


def _sdk_exceptions():
    import couchbase.exceptions as e

    return e


class CouchbaseStore(MemoryStore):
    """Memory in one Couchbase bucket: a scope (``agentmemory``) with ``users``, ``sessions`` and
    ``memory`` collections and one Search index over ``memory``.

    Construct with an injected, connected ``couchbase.cluster.Cluster`` (nothing is sent until the first
    operation) or with :meth:`connect`. With ``auto_schema`` (default) the first ``bind_embedder`` creates
    the scope, collections, SQL++ indexes and Search index when missing (:meth:`ensure_schema`).

    ``candidates_per_k``: a vector search asks the Search service for ``k * candidates_per_k`` nearest
    neighbours and keeps the exact top k. ``consistency``: ``"at_plus"`` (searches wait until this store's
    own writes are indexed) or ``"not_bounded"``.
    """

    capabilities = StoreCapabilities(vector=True, full_text=True, phrase=True, ttl=True, persistent=True,
                                     atomic_batches=False)

    def __init__(self, cluster: Any, bucket: str, *, scope: str = d.DEFAULT_SCOPE,
                 index_name: str = d.DEFAULT_INDEX, users_collection: str = "users",
                 sessions_collection: str = "sessions", memory_collection: str = "memory",
                 auto_schema: bool = True, schema_timeout: float = 120.0, candidates_per_k: int = 2,
                 consistency: str = "at_plus", close_cluster: bool = False):
        if consistency not in ("at_plus", "not_bounded"):
            raise InvalidInputError(f"consistency must be 'at_plus' or 'not_bounded', got {consistency!r}")
        if not isinstance(candidates_per_k, int) or candidates_per_k < 1:
            raise InvalidInputError("candidates_per_k must be a positive integer")
        self.cluster = cluster
        self.bucket_name = d.check_bucket_name(bucket)
        self.scope_name = d.check_scope_name(scope)
        self.index_name = d.check_index_name(index_name)
        self.users_collection = d.check_scope_name(users_collection, "collection")
        self.sessions_collection = d.check_scope_name(sessions_collection, "collection")
        self.memory_collection = d.check_scope_name(memory_collection, "collection")
        self.auto_schema = auto_schema
        self.schema_timeout = schema_timeout
        self.candidates_per_k = candidates_per_k
        self.consistency = consistency
        self._close_cluster = close_cluster
        self._lock = threading.RLock()
        self._handles: dict[str, Any] = {}
        self._tokens: dict[tuple[str, int], Any] = {}
        self._dim: int | None = None
        self._schema_ready = False
        self._collections_seen = False

    # ---------------------------------------------------------------- connection
    @classmethod
    def connect(cls, connection_string: str, username: str, password: str, bucket: str, *,
                timeout: float = 10.0, cluster_options: Any = None, **kwargs: Any) -> CouchbaseStore:
        """Connect (``couchbase://host``, or ``couchbases://host`` for Capella), check that the Query and
        Search services answer within ``timeout`` seconds and open the bucket (Data service);
        ``StoreUnavailableError`` otherwise (unreachable, refused credentials, missing bucket).
        ``cluster_options`` replaces the default ``ClusterOptions`` (e.g. with a WAN profile applied)."""
        from couchbase.auth import PasswordAuthenticator
        from couchbase.cluster import Cluster
        from couchbase.diagnostics import ServiceType
        from couchbase.options import ClusterOptions, ClusterTimeoutOptions, WaitUntilReadyOptions

        e = _sdk_exceptions()
        limit = timedelta(seconds=timeout)
        if cluster_options is None:
            cluster_options = ClusterOptions(
                PasswordAuthenticator(username, password),
                timeout_options=ClusterTimeoutOptions(bootstrap_timeout=limit, connect_timeout=limit))
        where = connection_string.split("?", 1)[0]
        try:
            cluster = Cluster(connection_string, cluster_options)
        except e.AuthenticationException as exc:
            raise StoreUnavailableError(f"Couchbase at {where} refused the credentials: {exc}") from exc
        except e.CouchbaseException as exc:
            raise StoreUnavailableError(
                f"Couchbase at {where} did not answer within {timeout:g}s: {exc}") from exc
        try:
            cluster.wait_until_ready(limit, WaitUntilReadyOptions(
                service_types=[ServiceType.Query, ServiceType.Search]))
        except e.CouchbaseException as exc:
            cluster.close()
            raise StoreUnavailableError(
                f"Couchbase at {where} is up but its Query and Search services were not both ready "
                f"within {timeout:g}s: {exc}") from exc
        store = cls(cluster, bucket, close_cluster=True, **kwargs)
        try:
            store._h("bucket")  # opens the bucket: the Data service answers, and the bucket exists
        except CbMemoryError:
            cluster.close()
            raise
        return store

    def _h(self, name: str) -> Any:
        """SDK handles, opened on first use (opening a bucket talks to the cluster)."""
        with self._lock:
            if name not in self._handles:
                if name == "bucket":
                    e = _sdk_exceptions()
                    try:
                        self._handles[name] = self._io("open bucket", self.cluster.bucket, self.bucket_name)
                    except e.BucketNotFoundException as exc:
                        raise StoreUnavailableError(
                            f"bucket {self.bucket_name!r} does not exist (create it first)") from exc
                elif name == "scope":
                    self._handles[name] = self._h("bucket").scope(self.scope_name)
                else:
                    self._handles[name] = self._h("scope").collection(name)
            return self._handles[name]

    def _io(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one SDK call; a cluster that does not answer becomes ``StoreUnavailableError``."""
        e = _sdk_exceptions()
        try:
            return fn(*args, **kwargs)
        except (e.UnAmbiguousTimeoutException, e.AmbiguousTimeoutException, e.ServiceUnavailableException,
                e.MissingConnectionException) as exc:
            raise StoreUnavailableError(f"Couchbase did not answer ({what}): {exc}") from exc

    # ---------------------------------------------------------------- schema
    def ensure_schema(self, dimension: int, *, timeout: float | None = None) -> None:
        """Create what is missing: scope, collections, SQL++ indexes and the Search index (with
        ``dimension``-sized vectors). An existing Search index with another dimension is refused with
        ``EmbedderMismatchError``. Waits, by polling up to ``timeout`` seconds, until each is usable."""
        e = _sdk_exceptions()
        deadline = time.monotonic() + (self.schema_timeout if timeout is None else timeout)
        manager = self._h("bucket").collections()
        have = {s.name: {c.name for c in s.collections} for s in self._io("list scopes", manager.get_all_scopes)}
        if self.scope_name not in have:
            try:
                self._io("create scope", manager.create_scope, self.scope_name)
            except e.ScopeAlreadyExistsException:
                pass
        for coll in (self.users_collection, self.sessions_collection, self.memory_collection):
            if coll not in have.get(self.scope_name, set()):
                try:
                    self._io("create collection", manager.create_collection, self.scope_name, coll)
                except e.CollectionAlreadyExistsException:
                    pass
            self._poll(deadline, f"collection {coll}", lambda c=coll: self._h(c).exists(d.META_KEY))
        for st in q.secondary_indexes(self.memory_collection, self.sessions_collection):
            self._poll(deadline, "SQL++ index", lambda st=st: self._query(st, consistent=False))
        self._collections_seen = True
        self._ensure_search_index(dimension, deadline)
        self._schema_ready = True

    def _ensure_search_index(self, dimension: int, deadline: float) -> None:
        from couchbase.management.search import SearchIndex

        e = _sdk_exceptions()
        manager = self._h("scope").search_indexes()
        try:
            existing = self._io("get Search index", manager.get_index, self.index_name)
        except e.SearchIndexNotFoundException:
            existing = None
        if existing is not None:
            have = d.index_dimension(existing.params)
            if have is not None and have != dimension:
                raise EmbedderMismatchError(
                    f"Search index {self.index_name!r} indexes {have}-dimensional vectors; the embedder makes "
                    f"{dimension}-dimensional ones")
        else:
            definition = d.search_index_definition(self.bucket_name, self.scope_name, self.memory_collection,
                                                   dimension, self.index_name)

            def create() -> None:  # retried: a collection made a moment ago may not be known yet
                try:
                    manager.get_index(self.index_name)  # an earlier attempt got through
                except e.SearchIndexNotFoundException:
                    manager.upsert_index(SearchIndex.from_json(definition))

            self._poll(deadline, f"create Search index {self.index_name}", create)
        probe = q.sdk().search.SearchRequest.create(q.sdk().search.MatchNoneQuery())
        self._poll(deadline, f"Search index {self.index_name}", lambda: self._search(probe, 1, consistent=False))

    def _poll(self, deadline: float, what: str, attempt: Callable[[], object]) -> None:
        """Retry ``attempt`` until it succeeds or the deadline passes (resources created a moment ago take
        a while to be usable on every node)."""
        e = _sdk_exceptions()
        delay = 0.05
        while True:
            try:
                attempt()
                return
            except (e.CouchbaseException, StoreUnavailableError) as exc:
                if time.monotonic() + delay > deadline:
                    raise StoreUnavailableError(f"{what} was not ready in time: {exc}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 1.0)

    def _collections_exist(self) -> bool:
        """Checked through the management API first: a KV read from a collection that does not exist
        would only fail after the full KV timeout."""
        if not self._collections_seen:
            manager = self._h("bucket").collections()
            scopes = {s.name: {c.name for c in s.collections}
                      for s in self._io("list scopes", manager.get_all_scopes)}
            self._collections_seen = {self.users_collection, self.sessions_collection,
                                      self.memory_collection} <= scopes.get(self.scope_name, set())
        return self._collections_seen

    def _read_meta(self) -> dict[str, Any] | None:
        if not self._collections_exist():
            return None
        return self._get_one(self.users_collection, d.META_KEY)

    def bind_embedder(self, name: str, dimension: int) -> None:
        meta = self._read_meta()
        if meta is not None:
            self._check_meta(meta, name, dimension)
        if self.auto_schema and not self._schema_ready:
            self.ensure_schema(dimension)
        elif not self._collections_exist():
            raise CbMemoryError(f"{self.bucket_name}.{self.scope_name} has no cbmemory collections; call "
                                f"ensure_schema({dimension}) or construct the store with auto_schema=True")
        if meta is None:
            e = _sdk_exceptions()
            try:
                self._io("bind embedder", self._h(self.users_collection).insert, d.META_KEY,
                         d.meta_body(name, dimension))
            except e.DocumentExistsException:  # another process bound it first
                self._check_meta(self._read_meta() or {}, name, dimension)
        self._dim = dimension

    def _check_meta(self, meta: Mapping[str, Any], name: str, dimension: int) -> None:
        have_name, have_dim = meta.get("embedder_name"), meta.get("embedder_dimension")
        if have_name != name or have_dim != dimension:
            raise EmbedderMismatchError(
                f"{self.bucket_name}.{self.scope_name} holds vectors from {have_name!r} ({have_dim} dimensions); "
                f"it cannot be used with {name!r} ({dimension} dimensions)")

    @property
    def embedder(self) -> tuple[str, int] | None:
        meta = self._read_meta()
        if not meta:
            return None
        return meta["embedder_name"], int(meta["embedder_dimension"])

    def _dimension(self) -> int | None:
        if self._dim is None:
            bound = self.embedder
            self._dim = bound[1] if bound else None
        return self._dim

    # ---------------------------------------------------------------- KV primitives
    def _get_one(self, collection: str, key: str) -> dict[str, Any] | None:
        e = _sdk_exceptions()
        try:
            return self._io("get", self._h(collection).get, key).content_as[dict]
        except e.DocumentNotFoundException:
            return None

    def _get_many(self, collection: str, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Bodies of the documents that exist, by key (missing keys are absent)."""
        e = _sdk_exceptions()
        out: dict[str, dict[str, Any]] = {}
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), _CHUNK):
            res = self._io("get", self._h(collection).get_multi, unique[i : i + _CHUNK])
            for key, value in res.results.items():
                if isinstance(value, e.DocumentNotFoundException):
                    continue
                if isinstance(value, Exception):
                    self._raise_kv(key, value)
                out[key] = value.content_as[dict]
        return out

    def _upsert_many(self, collection: str, docs: Mapping[str, dict[str, Any]],
                     expiry: Mapping[str, timedelta] | None = None) -> None:
        from couchbase.options import UpsertMultiOptions, UpsertOptions

        keys = list(docs)
        for i in range(0, len(keys), _CHUNK):
            part = keys[i : i + _CHUNK]
            per_key = {k: UpsertOptions(expiry=expiry[k]) for k in part if expiry and k in expiry}
            opts = UpsertMultiOptions(per_key_options=per_key) if per_key else UpsertMultiOptions()
            res = self._io("upsert", self._h(collection).upsert_multi, {k: docs[k] for k in part}, opts)
            failed = res.exceptions
            if collection == self.memory_collection:  # the only writes the Search index must catch up on
                self._remember(v for k, v in res.results.items() if k not in failed)
            for key, exc in failed.items():
                self._raise_kv(key, exc)

    def _remove_many(self, collection: str, keys: Sequence[str]) -> None:
        """Remove documents by key; one already gone (erased, or expired by its TTL) is not an error."""
        e = _sdk_exceptions()
        unique = list(dict.fromkeys(keys))
        for i in range(0, len(unique), _CHUNK):
            res = self._io("remove", self._h(collection).remove_multi, unique[i : i + _CHUNK])
            failed = {k: v for k, v in res.exceptions.items() if not isinstance(v, e.DocumentNotFoundException)}
            if collection == self.memory_collection:
                self._remember(v for k, v in res.results.items() if k not in res.exceptions)
            for key, exc in failed.items():
                self._raise_kv(key, exc)

    def _drop_users_without_records(self, user_ids: Sequence[str]) -> None:
        """Remove the user document of each of ``user_ids`` that has no record left."""
        users = list(dict.fromkeys(user_ids))
        for i in range(0, len(users), _CHUNK):
            part = users[i : i + _CHUNK]
            left = set(self._query(q.users_with_records(self.memory_collection, part)))
            self._remove_many(self.users_collection, [d.user_key(u) for u in part if u not in left])

    def _raise_kv(self, key: str, exc: Exception) -> None:
        e = _sdk_exceptions()
        if isinstance(exc, (e.UnAmbiguousTimeoutException, e.AmbiguousTimeoutException)):
            raise StoreUnavailableError(f"Couchbase did not answer for document {key!r}: {exc}") from exc
        raise CbMemoryError(f"Couchbase refused document {key!r}: {exc}") from exc

    def _remember(self, results: Any) -> None:
        """Keep the newest mutation token per partition, for ``at_plus`` searches."""
        with self._lock:
            for r in results:
                token = r.mutation_token() if hasattr(r, "mutation_token") else None
                if token is None:
                    continue
                key = (token.bucket_name, token.partition_id)
                old = self._tokens.get(key)
                if old is None or token.sequence_number > old.sequence_number:
                    self._tokens[key] = token

    def _mutation_state(self) -> Any:
        if self.consistency != "at_plus" or not self._tokens:
            return None
        from couchbase.mutation_state import MutationState

        state = MutationState()
        with self._lock:
            for token in self._tokens.values():
                state.add_mutation_token(token)
        return state

    # ---------------------------------------------------------------- SQL++ and Search primitives
    def _query(self, st: q.Statement, *, consistent: bool = True) -> list[Any]:
        from couchbase.n1ql import QueryScanConsistency

        extra = {"scan_consistency": QueryScanConsistency.REQUEST_PLUS} if consistent else {}
        result = self._io("SQL++", self._h("scope").query, st.sql, st.options(**extra))
        return self._io("SQL++", lambda: list(result.rows()))

    def _search(self, request: Any, limit: int, *, explain: bool = False,
                consistent: bool = True) -> list[tuple[str, float, dict[str, Any]]]:
        options = q.search_options(limit, explain=explain,
                                   consistent_with=self._mutation_state() if consistent else None)
        result = self._io("Search", self._h("scope").search, self.index_name, request, options)
        rows = self._io("Search", lambda: list(result.rows()))
        return [(row.id, float(row.score), row.explanation or {}) for row in rows]

    # ---------------------------------------------------------------- writes
    def write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray, *,
              mode: WriteMode = "merge") -> IngestResult:
        """See ``MemoryStore.write``. Not atomic on Couchbase (``capabilities.atomic_batches`` is False):
        each document write is, and re-running an interrupted write completes it. Records are written
        first, then sessions, then users, then (``replace``) the session's leftovers are removed.

        ``append`` is a check-then-write, not an atomic one: one SQL++ query per (user, session, kind)
        looks for a stored record at or after the batch's first position (other than the batch's own
        records, so a retried append completes) and raises ``WriteConflictError`` before anything is
        written; a writer that appends between that check and the upserts is not detected.
        ``replace`` lists each session's stored records (SQL++), keeps what ``sessions.leftovers`` keeps
        and removes the rest by key after the batch is written."""
        if mode not in ("merge", "replace", "append"):
            raise InvalidInputError(f"mode must be 'merge', 'replace' or 'append', got {mode!r}")
        dim = self._dimension()
        if dim is None:
            raise InvalidInputError("bind an embedder to the store before writing records")
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        if vecs.shape != (len(records), dim):
            raise InvalidInputError(f"vectors have shape {vecs.shape}; expected ({len(records)}, {dim})")
        if not np.isfinite(vecs).all():
            raise InvalidInputError("vectors contain NaN or infinite values")
        keys = [d.record_key(r.record_id) for r in records]
        if len(set(keys)) != len(records):
            raise InvalidInputError("a batch holds the same record twice")
        if mode == "append":
            self._check_append(records)
        existing = self._get_many(self.memory_collection, keys)
        old_sessions = (self._get_many(self.sessions_collection,
                                       [d.session_key(s.user_id, s.session_id) for s in sessions])
                        if mode == "replace" else {})
        wall_clock = utcnow()
        docs: dict[str, dict[str, Any]] = {}
        expiry: dict[str, timedelta] = {}
        inserted = replaced = unchanged = 0
        written: set[tuple[str, str]] = set()  # sessions with a record inserted or replaced
        for rec, vec, key in zip(records, vecs, keys, strict=True):
            body = d.record_body(rec, vec)
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
        self._upsert_many(self.memory_collection, docs, expiry)
        self._upsert_many(self.sessions_collection,
                          {d.session_key(s.user_id, s.session_id): d.session_body(s) for s in sessions})
        self._upsert_many(self.users_collection, {d.user_key(u): d.user_body(u) for u in sorted(users)})
        self._remove_many(self.memory_collection, stale)
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
            if self._query(q.append_conflict(self.memory_collection, user, session, kind, position,
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
            changed = key in written or (old is not None and _stored_date(old) != date)
            batch = {r.record_id for r in records if (r.user_id, r.session_id) == key}
            rows = self._query(q.session_records(self.memory_collection, *key))
            stored = [(row["record_id"], row["kind"]) for row in rows if isinstance(row, Mapping)]
            stale += [d.record_key(rid) for rid in leftovers(stored, batch, changed)]
        return stale

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase the user's records and sessions (or one session's) with SQL++ ``DELETE ... RETURNING``
        (the counts are the rows returned), then the user document when no record of the user is left.
        Documents are gone from KV at once; the Search index drops them as it catches up, and every hit
        is re-read by key, so an erased record is never returned meanwhile."""
        records = len(self._query(q.erase_records(self.memory_collection, user_id, session_id)))
        sessions = len(self._query(q.erase_sessions(self.sessions_collection, user_id, session_id)))
        if session_id is None:
            self._remove_many(self.users_collection, [d.user_key(user_id)])
        else:
            self._drop_users_without_records([user_id])
        return ForgetResult(records, sessions, wiped=True)

    def purge_expired(self, now: datetime | None = None) -> int:
        """Delete expired records (one SQL++ ``DELETE``, which returns each one's user), then those users'
        sessions left with no record and the user documents of users left with none. Returns how many
        records. Separate statements, not one transaction: a write racing the clean-up re-creates its
        session and user documents after its records (see ``write``)."""
        rows = self._query(q.purge_expired(self.memory_collection, now or utcnow()))
        users = sorted({row["user_id"] for row in rows
                        if isinstance(row, Mapping) and isinstance(row.get("user_id"), str)})
        for i in range(0, len(users), _CHUNK):
            self._query(q.erase_empty_sessions(self.sessions_collection, self.memory_collection,
                                               users[i : i + _CHUNK]))
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

    @staticmethod
    def _nothing_allowed(filters: SearchFilters) -> bool:
        return filters.session_ids == () or filters.kinds == ()

    def _checked(self, rows: Sequence[tuple[str, float, dict[str, Any]]], user_id: str, filters: SearchFilters,
                 now: datetime) -> Iterator[tuple[float, dict[str, Any], MemoryRecord, dict[str, Any]]]:
        """Rows whose documents still exist and still match (user, expiry, filters), in server order."""
        bodies = self._get_many(self.memory_collection, [r[0] for r in rows])
        for key, score, explanation in rows:
            body = bodies.get(key)
            if body is None:
                continue
            rec = d.body_to_record(body)
            if d.matches(rec, user_id, filters, now):
                yield score, explanation, rec, body

    def vector_search(self, user_id: str, vector: np.ndarray, k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        qv = self._query_vector(vector)
        if qv is None or self._nothing_allowed(filters):
            return []
        now = now or utcnow()
        n = max(k, k * self.candidates_per_k)
        rows = self._search(q.vector_request(user_id, qv, n, filters, now), n)
        found = [(float(d.body_vector(body) @ qv), rec) for _, _, rec, body in self._checked(rows, user_id, filters, now)]
        found.sort(key=lambda x: -x[0])  # stable: ties keep the server's order
        return [Hit(rec, s, frozen_mapping({"vector": s}), frozen_mapping({"vector": i}))
                for i, (s, rec) in enumerate(found[:k], 1)]

    def _text_hits(self, signal: str, user_id: str, request: Any, k: int, filters: SearchFilters,
                   now: datetime) -> list[Hit]:
        if request is None:
            return []
        rows = self._search(request, max(k, k * self.candidates_per_k))
        found = [(s, rec) for s, _, rec, _ in self._checked(rows, user_id, filters, now)][:k]
        scale = _best(s for s, _ in found)
        return [Hit(rec, s / scale, frozen_mapping({signal: s / scale}), frozen_mapping({signal: i}))
                for i, (s, rec) in enumerate(found, 1)]

    def text_search(self, user_id: str, query: str, k: int, filters: SearchFilters = NO_FILTERS,
                    now: datetime | None = None) -> list[Hit]:
        if self._nothing_allowed(filters):
            return []
        now = now or utcnow()
        return self._text_hits("bm25", user_id, q.text_request(user_id, filters, now, query=query), k, filters, now)

    def phrase_search(self, user_id: str, phrases: Sequence[str], k: int, filters: SearchFilters = NO_FILTERS,
                      now: datetime | None = None) -> list[Hit]:
        if self._nothing_allowed(filters):
            return []
        now = now or utcnow()
        return self._text_hits("entity", user_id, q.text_request(user_id, filters, now, phrases=phrases),
                               k, filters, now)

    def hybrid_search(self, user_id: str, vector: np.ndarray, query: str | None, phrases: Sequence[str] = (),
                      k: int = 10, filters: SearchFilters = NO_FILTERS, now: datetime | None = None, *,
                      vector_pool: int = 50, text_pool: int = 50, rrf_k: int = 60,
                      weights: Mapping[str, float] | None = None) -> list[Hit]:
        """Vector and full-text (words, and ``phrases`` as exact phrases) in ONE Search request, fused
        client-side by reciprocal rank (``cbmemory.retrieval.fusion.rrf``, as the recipes do).

        What one request gives: the union of the k-NN candidates (``num_candidates = vector_pool``) and the
        text matches, each hit with the SUM of its text score and its k-NN score. The Python SDK has no
        server-side fusion (Couchbase Server 8.1 adds one; this targets 7.6), so the request asks for score
        explanations and ``split_hybrid_score`` separates each hit's two parts; the vector list is then
        ranked by exact cosine from the stored vectors, the text list by the text part, and both are fused.

        What it cannot give: the server truncates the union by the combined score (``size = vector_pool +
        text_pool``), so when many text matches score above weak vector candidates those candidates are
        cut before the client sees them; the vector list may then be shorter than ``vector_pool``. The
        text list keeps its top ``text_pool`` (only the ``vector_pool`` k-NN hits and better text hits can
        outrank a text hit), except a text hit whose own k-NN part is negative. The split relies on the
        shape of bleve's score explanation. For exact separate lists use ``vector_search`` +
        ``text_search`` (two requests), which is what the recipes do.
        """
        qv = self._query_vector(vector)
        if qv is None or self._nothing_allowed(filters):
            return []
        now = now or utcnow()
        vp, tp = max(k, vector_pool), max(k, text_pool)
        request = q.hybrid_request(user_id, qv, vp, filters, now, query=query, phrases=phrases)
        rows = self._search(request, vp + tp, explain=True)
        vec_list: list[Hit] = []
        text_list: list[Hit] = []
        for score, explanation, rec, body in self._checked(rows, user_id, filters, now):
            text_part, vector_part = q.split_hybrid_score(score, explanation)
            if vector_part is not None:
                cos = float(d.body_vector(body) @ qv)
                vec_list.append(Hit(rec, cos, frozen_mapping({"vector": cos})))
            if text_part is not None:
                text_list.append(Hit(rec, text_part, frozen_mapping({"bm25": text_part})))
        vec_list.sort(key=lambda h: -h.score)
        text_list.sort(key=lambda h: -h.score)
        scale = _best(h.score for h in text_list)  # index-wide statistics: relative, never the server's own
        text_list = [Hit(h.record, h.score / scale, frozen_mapping({"bm25": h.score / scale})) for h in text_list]
        lists = {"vector": vec_list[:vp], "bm25": text_list[:tp]}
        return rrf({s: hits for s, hits in lists.items() if hits}, c=rrf_k, weights=weights)[:k]

    # ---------------------------------------------------------------- reads
    def get_records(self, user_id: str, record_ids: Sequence[str]) -> list[MemoryRecord]:
        record_ids = list(dict.fromkeys(record_ids))
        keys = [d.record_key(r) for r in record_ids]
        bodies = self._get_many(self.memory_collection, keys)
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
        return [d.body_to_record(row) for row in self._query(st)]

    def get_session(self, user_id: str, session_id: str) -> Session | None:
        body = self._get_one(self.sessions_collection, d.session_key(user_id, session_id))
        if body is None or body.get("user_id") != user_id or body.get("session_id") != session_id:
            return None
        return d.body_to_session(body)

    def list_sessions(self, user_id: str) -> list[Session]:
        return [d.body_to_session(row) for row in self._query(q.list_sessions(self.sessions_collection, user_id))]

    def count(self, user_id: str | None = None) -> int:
        rows = self._query(q.count_records(self.memory_collection, utcnow(), user_id))
        return int(rows[0]) if rows else 0

    def users(self) -> list[str]:
        return sorted(set(self._query(q.list_users(self.memory_collection))))

    def lookup_vectors(self, user_id: str, content_hashes: Sequence[str]) -> Mapping[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        hashes = list(dict.fromkeys(content_hashes))
        for i in range(0, len(hashes), _CHUNK):
            for row in self._query(q.lookup_vectors(self.memory_collection, user_id, hashes[i : i + _CHUNK])):
                out.setdefault(row["content_hash"], np.asarray(row[d.VECTOR_FIELD], dtype=np.float32))
        return out

    def stats(self) -> dict[str, object]:
        kinds = {row["kind"]: int(row["n"]) for row in self._query(q.kind_counts(self.memory_collection))}
        sessions = self._query(q.count_all(self.sessions_collection))
        bound = self.embedder
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
            "schema_version": d.SCHEMA_VERSION,
        }

    def close(self) -> None:
        with self._lock:
            self._handles.clear()
            if self._close_cluster:
                self.cluster.close()
                self._close_cluster = False
