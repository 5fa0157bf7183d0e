"""The Couchbase store's ``{Signal: scorer}`` table (``CouchbaseStore.scorers``): each scorer sends its
signal's request (built in ``requests``), re-reads every hit by key and checks it again
(``CouchbaseBucket.checked``: the user, then ``filters.admits``) and returns the best ``k`` as hits. Vector and
sparse scores are recomputed exactly from the stored vectors, as in the embedded store; full-text scores are
the server's, divided by the call's best (``CouchbaseStore``'s docstring says why).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

import numpy as np

from ...embedding.sparse import SparseVector, sparse_dot
from ...errors import CbMemoryError
from ...models import Hit, MemoryRecord, SearchFilters, frozen_mapping
from ..signals import Signal
from . import docs as d
from . import requests as q
from .core import CouchbaseBucket

Scorer = Callable[[CouchbaseBucket, str, Any, int, SearchFilters, datetime], list[Hit]]


def _hits(signal: Signal, found: list[tuple[float, MemoryRecord]]) -> list[Hit]:
    return [Hit(rec, s, frozen_mapping({signal.value: s}), frozen_mapping({signal.value: i}))
            for i, (s, rec) in enumerate(found, 1)]


def vector(bucket: CouchbaseBucket, user_id: str, query: np.ndarray, k: int, filters: SearchFilters,
           now: datetime) -> list[Hit]:
    """One Search request, k-NN with the user and filters as pre-filter, for ``k * candidates_per_k``
    neighbours; the exact top ``k`` by the cosine with the stored vectors."""
    n = max(k, k * bucket.candidates_per_k)
    rows = bucket.client.search(q.vector_request(user_id, query, n, filters, now), n)
    found = [(float(d.body_vector(body) @ query), rec) for _, rec, body in bucket.checked(rows, user_id, filters, now)]
    found.sort(key=lambda x: -x[0])  # stable: ties keep the server's order
    return _hits(Signal.VECTOR, found[:k])


def _text(signal: Signal, bucket: CouchbaseBucket, user_id: str, request: Any, k: int, filters: SearchFilters,
          now: datetime) -> list[Hit]:
    if request is None:
        return []
    rows = bucket.client.search(request, max(k, k * bucket.candidates_per_k))
    found = [(s, rec) for s, rec, _ in bucket.checked(rows, user_id, filters, now)][:k]
    scale = max((s for s, _ in found if s > 0), default=1.0)  # the best server score (1.0: none positive)
    return _hits(signal, [(s / scale, rec) for s, rec in found])


def bm25(bucket: CouchbaseBucket, user_id: str, query: str, k: int, filters: SearchFilters,
         now: datetime) -> list[Hit]:
    """One Search request: each query word (``match``) on both text fields, the filters as zero-boost
    conjuncts."""
    return _text(Signal.BM25, bucket, user_id, q.text_request(user_id, filters, now, query=query), k, filters, now)


def entity(bucket: CouchbaseBucket, user_id: str, query: list[str], k: int, filters: SearchFilters,
           now: datetime) -> list[Hit]:
    """One Search request: each phrase (``match_phrase``) on both text fields."""
    return _text(Signal.ENTITY, bucket, user_id, q.text_request(user_id, filters, now, phrases=query), k,
                 filters, now)


def sparse(bucket: CouchbaseBucket, user_id: str, query: SparseVector, k: int, filters: SearchFilters,
           now: datetime) -> list[Hit]:
    """One SQL++ statement (``requests.sparse_search``) scores the user's records server-side and returns
    the best ``k * candidates_per_k`` keys; each document is then fetched by key and checked again (the
    user, ``filters.admits``), its score recomputed exactly from the stored vector (``sparse_dot``, as the
    embedded store scores), and the best ``k`` with a positive score are returned (ties: by document key,
    the statement's order). A document whose ``sparse`` field is malformed is skipped. Nothing is sent when
    no sparse encoder is bound."""
    if bucket.bound_sparse_encoder is None:
        return []
    n = max(k, k * bucket.candidates_per_k)
    rows = bucket.client.query(q.sparse_search(bucket.memory_collection, user_id, query, filters, now, n))
    keys = dict.fromkeys(row["key"] for row in rows if isinstance(row, Mapping) and isinstance(row.get("key"), str))
    found: list[tuple[float, MemoryRecord]] = []
    for _, rec, body in bucket.checked([(key, 0.0) for key in keys], user_id, filters, now):
        try:
            stored = d.body_sparse(body)
        except CbMemoryError:  # a malformed sparse field: the document cannot be scored
            continue
        score = 0.0 if stored is None else sparse_dot(stored, query)
        if score > 0:
            found.append((score, rec))
    found.sort(key=lambda x: -x[0])  # stable: ties keep the statement's order (by key)
    return _hits(Signal.SPARSE, found[:k])


SCORERS: Mapping[Signal, Scorer] = MappingProxyType({
    Signal.VECTOR: vector, Signal.BM25: bm25, Signal.ENTITY: entity, Signal.SPARSE: sparse,
})
