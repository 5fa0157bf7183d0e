"""The Couchbase store's learned sparse vectors (``CouchbaseSparse``, a part of ``couchbase.CouchbaseStore``):
binding a sparse encoder (a field of the meta document), searching the users' sparse vectors (scored by
SQL++ server-side, then exactly from each document read back by key), and the records written before the
binding, which have no ``sparse`` field until ``set_sparse`` gives them one.
"""

from __future__ import annotations

import time

from ...dates import utcnow
from ...embedding.sparse import SparseVector
from ...errors import CbMemoryError, EmbedderMismatchError, InvalidInputError
from ...models import MemoryRecord
from . import docs as d
from . import requests as q
from . import schema
from .core import CouchbaseCore


class CouchbaseSparse(CouchbaseCore):
    """The sparse-vector methods of ``CouchbaseStore``."""

    def _bind_sparse_encoder(self, name: str) -> None:
        """Record ``name`` in the meta document (``sparse_encoder``, next to the embedder's fields; created
        with the collections when missing, under ``auto_schema``), with one atomic sub-document insert: of
        two processes binding at once, the first wins and the other compares names. A store that already
        holds records may be bound: their documents have no ``sparse`` field, ``sparse_search`` never finds
        them, and ``users_missing_sparse`` / ``records_without_sparse`` list them until ``set_sparse`` (or
        re-ingesting them) gives them one. So does a record written meanwhile by another process that read
        the meta document before the binding."""
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

    def users_missing_sparse(self) -> list[str]:
        """One SQL++ statement (``requests.users_missing_sparse``: the distinct users of live
        documents without a ``sparse`` field), sorted; ``[]`` without a request when no sparse encoder is
        bound."""
        if self.bound_sparse_encoder is None:
            return []
        rows = self._c.query(q.users_missing_sparse(self.memory_collection, utcnow()))
        return sorted({row for row in rows if isinstance(row, str)})

    def _records_without_sparse(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        """One SQL++ statement (``requests.records_without_sparse``: ``list_records``' listing of
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
