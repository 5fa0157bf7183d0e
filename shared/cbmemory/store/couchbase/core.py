"""The Couchbase store's bucket (``CouchbaseBucket``, the part every other part of ``CouchbaseStore`` uses):
its settings and client (client.py), the schema it creates when missing (schema.py), the meta document that
binds the embedder and the sparse encoder, and the re-check by key every hit goes through. The parts built on
it: the listings (reads.py), the sparse vectors (sparse.py), the searches (scorers.py); the store itself
(store.py) holds them and adds the writes and erasures.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from ...errors import CbMemoryError, EmbedderMismatchError, InvalidInputError
from ...models import MemoryRecord, SearchFilters
from ..filters import admits
from . import docs as d
from . import schema
from .client import CouchbaseClient, sdk_exceptions


class CouchbaseBucket:
    """One Couchbase bucket's scope, with the embedder and the sparse encoder bound in its meta document;
    ``CouchbaseStore`` is the store (its docstring says what the arguments mean)."""

    def __init__(self, cluster: Any, bucket: str, *, scope: str = d.DEFAULT_SCOPE,
                 index_name: str = d.DEFAULT_INDEX, users_collection: str = "users",
                 sessions_collection: str = "sessions", memory_collection: str = "memory",
                 auto_schema: bool = True, schema_timeout: float = 120.0, candidates_per_k: int = 2,
                 consistency: str = "at_plus"):
        if consistency not in ("at_plus", "not_bounded"):
            raise InvalidInputError(f"consistency must be 'at_plus' or 'not_bounded', got {consistency!r}")
        if not isinstance(candidates_per_k, int) or candidates_per_k < 1:
            raise InvalidInputError("candidates_per_k must be a positive integer")
        self.client = CouchbaseClient(cluster, bucket, scope, index_name, users_collection, sessions_collection,
                                      memory_collection, consistency)
        self.cluster = cluster
        self.bucket_name, self.scope_name, self.index_name = bucket, scope, index_name
        self.users_collection, self.sessions_collection = users_collection, sessions_collection
        self.memory_collection = memory_collection
        self.auto_schema = auto_schema
        self.schema_timeout = schema_timeout
        self.candidates_per_k = candidates_per_k
        self.consistency = consistency
        self._dim: int | None = None
        self._sparse: str | None = None  # the bound sparse encoder, once seen (a binding never changes)
        self._schema_ready = False
        self._collections_seen = False

    # ---------------------------------------------------------------- schema and embedder
    def ensure_schema(self, dimension: int, *, timeout: float | None = None) -> None:
        """Create what is missing: scope, collections, SQL++ indexes and the Search index (with
        ``dimension``-sized vectors). An existing Search index with another dimension is refused with
        ``EmbedderMismatchError``. Waits, by polling up to ``timeout`` seconds, until each is usable."""
        deadline = time.monotonic() + (self.schema_timeout if timeout is None else timeout)
        schema.ensure_collections(self.client, deadline)
        self._collections_seen = True
        schema.ensure_search_index(self.client, dimension, deadline)
        self._schema_ready = True

    def collections_exist(self) -> bool:
        if not self._collections_seen:
            self._collections_seen = schema.collections_exist(self.client)
        return self._collections_seen

    def read_meta(self) -> dict[str, Any] | None:
        if not self.collections_exist():
            return None
        return self.client.get_one(self.users_collection, d.META_KEY)

    def claim_meta(self, what: str, fields: Mapping[str, Any], *, exists: bool) -> bool:
        """Write ``fields`` into the meta document (created when missing), unless another process set one
        of them first: ``False`` then, and nothing is written (each is set once, never overwritten)."""
        if not exists:
            e = sdk_exceptions()
            try:
                self.client.io(what, self.client.handle(self.users_collection).insert, d.META_KEY, d.meta_doc(fields))
                return True
            except e.DocumentExistsException:  # another process made it first: add to it
                pass
        return self.client.add_fields(self.users_collection, d.META_KEY, fields)

    def bind_embedder(self, name: str, dimension: int) -> None:
        meta = self.read_meta()
        has_embedder = meta is not None and "embedder_name" in meta  # not when only a sparse encoder is bound
        if has_embedder and meta is not None:
            self._check_meta(meta, name, dimension)
        if self.auto_schema and not self._schema_ready:
            self.ensure_schema(dimension)
        elif not self.collections_exist():
            raise CbMemoryError(f"{self.bucket_name}.{self.scope_name} has no cbmemory collections; call "
                                f"ensure_schema({dimension}) or construct the store with auto_schema=True")
        if not has_embedder and not self.claim_meta("bind embedder", d.embedder_meta(name, dimension),
                                                     exists=meta is not None):
            self._check_meta(self.read_meta() or {}, name, dimension)  # another process bound it first
        self._dim = dimension

    def _check_meta(self, meta: Mapping[str, Any], name: str, dimension: int) -> None:
        have_name, have_dim = meta.get("embedder_name"), meta.get("embedder_dimension")
        if have_name != name or have_dim != dimension:
            raise EmbedderMismatchError(
                f"{self.bucket_name}.{self.scope_name} holds vectors from {have_name!r} ({have_dim} dimensions); "
                f"it cannot be used with {name!r} ({dimension} dimensions)")

    @property
    def bound_embedder(self) -> tuple[str, int] | None:
        meta = self.read_meta()
        if not meta or "embedder_name" not in meta:
            return None
        return meta["embedder_name"], int(meta["embedder_dimension"])

    def dimension(self) -> int | None:
        if self._dim is None:
            bound = self.bound_embedder
            self._dim = bound[1] if bound else None
        return self._dim

    # ---------------------------------------------------------------- hits
    def checked(self, rows: Sequence[tuple[str, float]], user_id: str, filters: SearchFilters,
                 now: datetime) -> Iterator[tuple[float, MemoryRecord, dict[str, Any]]]:
        """Rows whose documents still exist, are the user's and are admitted by the filters, in server order."""
        bodies = self.client.get_many(self.memory_collection, [key for key, _ in rows])
        for key, score in rows:
            body = bodies.get(key)
            if body is None:
                continue
            rec = d.body_to_record(body)
            if rec.user_id == user_id and admits(rec, filters, now):
                yield score, rec, body

    def check_sparse(self, have: object, name: str) -> None:
        if have != name:
            raise EmbedderMismatchError(
                f"{self.bucket_name}.{self.scope_name} holds sparse vectors from {have!r}; it cannot be used "
                f"with {name!r}")
        self._sparse = name

    @property
    def bound_sparse_encoder(self) -> str | None:
        if self._sparse is None:
            meta = self.read_meta()
            have = None if meta is None else meta.get(d.SPARSE_META)
            self._sparse = have if isinstance(have, str) else None
        return self._sparse
