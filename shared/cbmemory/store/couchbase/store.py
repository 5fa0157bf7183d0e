"""Memory on Couchbase Server (7.6+) or Capella: KV documents, one Search index for vector and full-text
search, SQL++ for listing and erasing. The couchbase SDK is imported on first use, never at import time.

    store = CouchbaseStore.connect("couchbase://localhost", "user", "password", bucket="cbmemory")
    memory = AgentMemory(store)

``CouchbaseStore`` is here with its writes and erasures; it holds its other parts, each on the bucket:
``core`` (settings, schema, the bindings, the re-check of every hit by key), ``reads`` (the listings),
``sparse`` (the sparse vectors) and ``scorers`` (the searches, by signal). Inputs are checked once, for every
backend, by ``MemoryStore`` (``base``, ``inputs``) before any of them runs.

What each operation sends (the builders are in ``requests``, document bodies in ``docs``,
the calls in ``client``, schema management in ``schema``):

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
missed by a search with a time filter on that date (``requests.filter_clauses``).

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

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ...dates import utcnow
from ...embedding.sparse import SparseVector
from ...errors import CbMemoryError, WriteConflictError
from ...models import ForgetResult, Hit, IngestResult, MemoryRecord, SearchFilters, Session
from ..base import Derived, WriteMode
from ..parts import PartsStore
from ..sessions import leftovers
from ..signals import Signal
from ..windows import Window
from . import docs as d
from . import requests as q
from .client import CHUNK, connect_cluster
from .core import CouchbaseBucket
from .reads import Listings
from .scorers import SCORERS
from .sparse import SparseVectors


class CouchbaseStore(PartsStore):
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

    Composed of parts: the bucket (``core.CouchbaseBucket``: settings, client, schema, the meta document's
    bindings, the re-check of every hit by key), its listings (``reads.Listings``), its sparse vectors
    (``sparse.SparseVectors``) and its searches (``scorers.SCORERS``), each on the bucket; the writes and
    erasures are here.
    """

    _listings: Listings
    _sparse: SparseVectors

    scorers = SCORERS

    def __init__(self, cluster: Any, bucket: str, *, scope: str = d.DEFAULT_SCOPE,
                 index_name: str = d.DEFAULT_INDEX, users_collection: str = "users",
                 sessions_collection: str = "sessions", memory_collection: str = "memory",
                 auto_schema: bool = True, schema_timeout: float = 120.0, candidates_per_k: int = 2,
                 consistency: str = "at_plus", close_cluster: bool = False):
        self._b = b = CouchbaseBucket(
            cluster, bucket, scope=scope, index_name=index_name, users_collection=users_collection,
            sessions_collection=sessions_collection, memory_collection=memory_collection, auto_schema=auto_schema,
            schema_timeout=schema_timeout, candidates_per_k=candidates_per_k, consistency=consistency)
        self._c = b.client
        self.cluster, self.bucket_name, self.scope_name, self.index_name = cluster, bucket, scope, index_name
        self.users_collection, self.sessions_collection = users_collection, sessions_collection
        self.memory_collection = memory_collection
        self.candidates_per_k, self.consistency = candidates_per_k, consistency
        self._close_cluster = close_cluster
        self._listings = Listings(b)
        self._sparse = SparseVectors(b)

    # ---------------------------------------------------------------- the parts' answers, as they are
    def ensure_schema(self, dimension: int, *, timeout: float | None = None) -> None:
        """Create what is missing: scope, collections, SQL++ indexes and the Search index (with
        ``dimension``-sized vectors). An existing Search index with another dimension is refused with
        ``EmbedderMismatchError``. Waits, by polling up to ``timeout`` seconds, until each is usable."""
        self._b.ensure_schema(dimension, timeout=timeout)

    def bind_embedder(self, name: str, dimension: int) -> None:
        self._b.bind_embedder(name, dimension)

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        return self._b.bound_embedder

    def _dimension(self) -> int | None:
        return self._b.dimension()

    def _neighbours(self, user_id: str, merged: Sequence[Window], filters: SearchFilters,
                    now: datetime) -> list[MemoryRecord]:
        return self._listings.neighbours(user_id, merged, filters, now)

    @property
    def bound_sparse_encoder(self) -> str | None:
        return self._b.bound_sparse_encoder

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

    # ---------------------------------------------------------------- writes
    def _write(self, sessions: Sequence[Session], records: Sequence[MemoryRecord], vectors: np.ndarray,
               mode: WriteMode, sparse: list[SparseVector] | None, derived: list[Derived] | None) -> IngestResult:
        """Not atomic on Couchbase: each document write is, and re-running an interrupted write completes
        it. Records are written first, then sessions, then users, then (``replace``) the session's
        leftovers are removed.

        ``append`` is a check-then-write, not an atomic one: one SQL++ query per (user, session, kind)
        looks for a stored record at or after the batch's first position (other than the batch's own
        records, so a retried append completes) and raises ``WriteConflictError`` before anything is
        written; a writer that appends between that check and the upserts is not detected.
        ``replace`` lists each session's stored records (SQL++), keeps what ``sessions.leftovers`` keeps
        and removes the rest by key after the batch is written. Each record's sparse vector, when given,
        goes into its document (``docs.record_body``). No derived vectors are kept (``keeps_derived`` is False:
        ``derived`` is always None)."""
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
        by_session: dict[tuple[str, str], set[str]] = {}  # grouped once: a batch of many sessions
        for r in records:
            by_session.setdefault((r.user_id, r.session_id), set()).add(r.record_id)
        for key, date in dates.items():
            old = old_sessions.get(d.session_key(*key))
            changed = key in written or (old is not None and d.session_date(old) != date)
            batch = by_session.get(key, set())
            rows = self._c.query(q.session_records(self.memory_collection, *key))
            stored = [(row["record_id"], row["kind"]) for row in rows if isinstance(row, Mapping)]
            stale += [d.record_key(rid) for rid in leftovers(stored, batch, changed)]
        return stale

    # ---------------------------------------------------------------- erasure
    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult:
        """Erase the user's records and sessions (or one session's) with SQL++ ``DELETE ... RETURNING``
        (the counts are the rows returned), then the user document when no record of the user is left.
        Documents are gone from KV at once; the Search index drops them as it catches up, and every hit
        is re-read by key, so an erased record is never returned meanwhile."""
        gone = [] if session_id is None else [row["record_id"] for row in self._c.query(
            q.session_records(self.memory_collection, user_id, session_id)) if isinstance(row, Mapping)]
        records = len(self._c.query(q.erase_records(self.memory_collection, user_id, session_id)))
        sessions = len(self._c.query(q.erase_sessions(self.sessions_collection, user_id, session_id)))
        if session_id is None:
            self._c.remove_many(self.users_collection, [d.user_key(user_id)])
        else:
            self._unlink(user_id, gone)
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
        for user in users:
            self._unlink(user, [row["record_id"] for row in rows if isinstance(row, Mapping)
                                and row.get("user_id") == user and isinstance(row.get("record_id"), str)])
        for i in range(0, len(users), CHUNK):
            self._c.query(q.erase_empty_sessions(self.sessions_collection, self.memory_collection,
                                               users[i : i + CHUNK]))
        self._drop_users_without_records(users)
        return len(rows)

    def _unlink(self, user_id: str, record_ids: Sequence[str]) -> None:
        """Drop the user's links to erased records (``record_ids``), ``CHUNK`` ids a statement."""
        for i in range(0, len(record_ids), CHUNK):
            self._c.query(q.unlink(self.memory_collection, user_id, record_ids[i : i + CHUNK]))

    def _drop_users_without_records(self, user_ids: Sequence[str]) -> None:
        """Remove the user document of each of ``user_ids`` that has no record left."""
        users = list(dict.fromkeys(user_ids))
        for i in range(0, len(users), CHUNK):
            part = users[i : i + CHUNK]
            left = set(self._c.query(q.users_with_records(self.memory_collection, part)))
            self._c.remove_many(self.users_collection, [d.user_key(u) for u in part if u not in left])

    # ---------------------------------------------------------------- searches
    def _search(self, signal: Signal, user_id: str, query: Any, k: int, filters: SearchFilters,
                now: datetime) -> list[Hit]:
        return self.scorers[signal](self._b, user_id, query, k, filters, now)

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
