"""Sparse vectors and their scoring: the representation a learned sparse encoder (SPLADE) produces.

A ``SparseVector`` is a pair of arrays, term ids (int32, increasing) and weights (float32). ``sparse_dot``
scores one pair; ``SparseMatrix`` holds many documents inverted by term (one user's, say) and scores them all
against a query in a few numpy operations, touching only the postings of the query's terms. Pure numpy, no
model: the store can hold and score these vectors without loading the encoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InvalidInputError, InvalidVectorError


@dataclass(frozen=True, eq=False, slots=True)
class SparseVector:
    """A sparse vector: term ids (int32, strictly increasing) and their weights (float32, finite).

    The arrays are copies made read-only, so a vector never changes after it is built. Two vectors are equal
    when their ids and weights are.
    """

    ids: np.ndarray
    weights: np.ndarray

    def __post_init__(self) -> None:
        ids, weights = np.asarray(self.ids), np.asarray(self.weights)
        if ids.ndim != 1 or weights.ndim != 1 or ids.shape != weights.shape:
            raise InvalidVectorError(f"a sparse vector needs two 1-D arrays of one length, got shapes "
                                     f"{ids.shape} and {weights.shape}")
        if ids.size and not np.issubdtype(ids.dtype, np.integer):
            raise InvalidVectorError(f"sparse vector ids must be integers, got {ids.dtype}")
        wide = ids.astype(np.int64, copy=False) if ids.dtype != np.uint64 else ids.astype(np.float64)
        if ids.size and (wide[0] < 0 or wide[-1] > np.iinfo(np.int32).max or np.any(np.diff(wide) <= 0)):
            raise InvalidVectorError("sparse vector ids must be non-negative int32 values in increasing order")
        weights = weights.astype(np.float32)
        if not np.all(np.isfinite(weights)):
            raise InvalidVectorError("sparse vector weights must be finite")
        ids = ids.astype(np.int32)
        ids.setflags(write=False)
        weights.setflags(write=False)
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "weights", weights)

    def __len__(self) -> int:
        return int(self.ids.size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SparseVector):
            return NotImplemented
        return bool(np.array_equal(self.ids, other.ids) and np.array_equal(self.weights, other.weights))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking arrays: not hashable, like numpy's

    def top(self, k: int) -> SparseVector:
        """The ``k`` largest weights (ties: the lower id), still in id order. ``self`` when it has no more."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"k must be a positive integer, got {k!r}")
        if len(self) <= k:
            return self
        keep = np.sort(np.lexsort((self.ids, -self.weights))[:k])
        return SparseVector(self.ids[keep], self.weights[keep])


def sparse_dot(a: SparseVector, b: SparseVector) -> float:
    """The dot product of two sparse vectors (terms in both, weights multiplied and summed in float64)."""
    _, ia, ib = np.intersect1d(a.ids, b.ids, assume_unique=True, return_indices=True)
    return float(np.dot(a.weights[ia].astype(np.float64), b.weights[ib].astype(np.float64)))


@dataclass(frozen=True, eq=False)
class SparseMatrix:
    """Many documents' sparse vectors, inverted by term, to score them all against one query at once.

    Layout (compressed sparse columns, a column per term): ``terms`` are the distinct term ids in increasing
    order; the entries of ``terms[j]`` are ``rows[indptr[j]:indptr[j + 1]]`` (document positions, increasing)
    with ``weights`` alongside. A query touches only the postings of its own terms.
    """

    n_docs: int
    terms: np.ndarray  # int32, increasing
    indptr: np.ndarray  # int64, len(terms) + 1
    rows: np.ndarray  # int32
    weights: np.ndarray  # float32

    @classmethod
    def from_vectors(cls, vectors: Sequence[SparseVector]) -> SparseMatrix:
        n = len(vectors)
        lengths = np.fromiter((len(v) for v in vectors), dtype=np.int64, count=n)
        if n == 0 or lengths.sum() == 0:
            return cls.from_entries(n, *(np.zeros(0, dtype=t) for t in (np.int32, np.int32, np.float32)))
        return cls.from_entries(n, np.concatenate([v.ids for v in vectors]),
                                np.repeat(np.arange(n, dtype=np.int32), lengths),
                                np.concatenate([v.weights for v in vectors]))

    @classmethod
    def from_entries(cls, n_docs: int, ids: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> SparseMatrix:
        """The matrix of entries (term id, document position, weight), given so that each term's documents
        come in increasing order (e.g. document by document): a stable sort by term keeps that order."""
        order = np.argsort(ids, kind="stable")
        terms, counts = np.unique(ids[order], return_counts=True)
        indptr = np.zeros(terms.size + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        arrays = (terms.astype(np.int32), indptr, rows[order].astype(np.int32), weights[order].astype(np.float32))
        for a in arrays:
            a.setflags(write=False)
        return cls(n_docs, *arrays)

    @property
    def nnz(self) -> int:
        return int(self.rows.size)

    def scores(self, query: SparseVector) -> np.ndarray:
        """Every document's dot product with ``query`` (float64, one per document, in input order)."""
        pos = np.searchsorted(self.terms, query.ids)
        found = pos < self.terms.size
        found[found] = self.terms[pos[found]] == query.ids[found]
        pos, qw = pos[found], query.weights[found]
        starts, ends = self.indptr[pos], self.indptr[pos + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(self.n_docs, dtype=np.float64)
        # the positions of all postings of the query's terms, one run per term, without a Python loop
        first = np.cumsum(lengths) - lengths
        at = np.arange(total, dtype=np.int64) + np.repeat(starts - first, lengths)
        contrib = self.weights[at].astype(np.float64) * np.repeat(qw, lengths)
        return np.bincount(self.rows[at], weights=contrib, minlength=self.n_docs)

    def top(self, query: SparseVector, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The (at most) ``k`` best documents with a positive score: their positions and scores, best first
        (ties: the earlier document)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"k must be a positive integer, got {k!r}")
        s = self.scores(query)
        cand = np.flatnonzero(s > 0)
        best = cand[np.lexsort((cand, -s[cand]))[:k]]
        return best, s[best]


@runtime_checkable
class SparseEncoder(Protocol):
    """Turns texts into ``SparseVector`` s (documents and queries may be encoded differently).

    ``name`` identifies the model and its settings; a store records it and refuses another, so vectors of two
    encoders are never compared (``SpladeEncoder`` is the offline one).
    """

    name: str

    def encode_documents(self, texts: Sequence[str]) -> list[SparseVector]: ...

    def encode_query(self, text: str) -> SparseVector: ...


__all__ = ["SparseEncoder", "SparseMatrix", "SparseVector", "sparse_dot"]
