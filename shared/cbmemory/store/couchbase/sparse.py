"""The Couchbase store's learned sparse vectors (``CouchbaseSparse``, a part of ``couchbase.CouchbaseStore``):
binding a sparse encoder (a field of the meta document), searching the users' sparse vectors (scored by
SQL++ server-side, then exactly from each document read back by key), and the records written before the
binding, which have no ``sparse`` field until ``set_sparse`` gives them one.
"""

from __future__ import annotations

import time

from ...dates import utcnow
from ...embedding.sparse import SparseVector
from ...errors import CbMemoryError, InvalidInputError
from ...models import MemoryRecord
from . import docs as d
from . import requests as q
from . import schema
from .core import CouchbaseBucket


class SparseVectors:
    """The sparse vectors of ``CouchbaseStore`` (its contract methods of the same names, inputs checked), on
    its bucket."""

    def __init__(self, bucket: CouchbaseBucket):
        self._b = bucket

    def bind(self, name: str) -> None:
        """Record ``name`` in the meta document (``sparse_encoder``, next to the embedder's fields; created
        with the collections when missing, under ``auto_schema``), with one atomic sub-document insert: of
        two processes binding at once, the first wins and the other compares names. A store that already
        holds records may be bound: their documents have no ``sparse`` field, ``sparse_search`` never finds
        them, and ``users_missing_sparse`` / ``records_without_sparse`` list them until ``set_sparse`` (or
        re-ingesting them) gives them one. So does a record written meanwhile by another process that read
        the meta document before the binding."""
        meta = self._b.read_meta()
        have = None if meta is None else meta.get(d.SPARSE_META)
        if have is not None:
            self._b.check_sparse(have, name)
            return
        if not self._b.collections_exist():
            if not self._b.auto_schema:
                raise CbMemoryError(f"{self._b.bucket_name}.{self._b.scope_name} has no cbmemory collections; call "
                                    f"ensure_schema(dimension) or construct the store with auto_schema=True")
            schema.ensure_collections(self._b.client, time.monotonic() + self._b.schema_timeout)
            self._b._collections_seen = True
        if not self._b.claim_meta("bind sparse encoder", d.sparse_meta(name), exists=meta is not None):
            self._b.check_sparse((self._b.read_meta() or {}).get(d.SPARSE_META), name)  # bound by another first
        self._b._sparse = name

    def users_missing(self) -> list[str]:
        """One SQL++ statement (``requests.users_missing_sparse``: the distinct users of live
        documents without a ``sparse`` field), sorted; ``[]`` without a request when no sparse encoder is
        bound."""
        if self._b.bound_sparse_encoder is None:
            return []
        rows = self._b.client.query(q.users_missing_sparse(self._b.memory_collection, utcnow()))
        return sorted({row for row in rows if isinstance(row, str)})

    def records_without(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        """One SQL++ statement (``requests.records_without_sparse``: ``list_records``' listing of
        the user's live records, every kind, restricted to documents without a ``sparse`` field); ``[]``
        without a request when no sparse encoder is bound."""
        if self._b.bound_sparse_encoder is None:
            return []
        st = q.records_without_sparse(self._b.memory_collection, user_id, utcnow(), limit=limit)
        return [d.body_to_record(row) for row in self._b.client.query(st)]

    def set(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        """The documents (their ids and vectors checked by ``set_sparse``) are read by key (KV
        ``get_multi``, with their CAS) and each that is the user's record of that id and has no ``sparse``
        field gets one: a sub-document insert of the field, sent with the CAS read
        (``CouchbaseClient.insert_field``). The document keeps its expiry and every other field. Not set (and
        not counted): another user's or an unknown id, a document that has the field (its vector is kept;
        also when another writer added it between the read and the insert) and one rewritten or erased since
        it was read (the CAS no longer matches: a concurrent re-ingest, which writes its own vector, or a
        forget). Records are not checked for expiry: a vector given to an expired record is never read."""
        if self._b.bound_sparse_encoder is None:
            raise InvalidInputError("bind a sparse encoder to the store before setting sparse vectors")
        wanted = {d.record_key(record_id): (record_id, vector) for record_id, vector in vectors.items()}
        found = self._b.client.get_many_cas(self._b.memory_collection, list(wanted))
        done = 0
        for key, (record_id, vector) in wanted.items():
            got = found.get(key)
            if got is None:
                continue
            body, cas = got
            if body.get("user_id") != user_id or body.get("record_id") != record_id or d.SPARSE_FIELD in body:
                continue
            outcome = self._b.client.insert_field(self._b.memory_collection, key, d.SPARSE_FIELD, d.sparse_terms(vector),
                                           cas=cas)
            done += outcome == "set"
        return done
