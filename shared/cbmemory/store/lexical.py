"""One user's full-text index in memory: term ids per record, BM25 over that user's records only.

A shared full-text index (one FTS5 table for every tenant of a file) lets tenants reach each other: its
BM25 statistics (document count, average length, document frequency) are those of every tenant, so a
user's scores move with what others said, and a query reads every tenant's postings, so its cost does
too. Here each user's records are indexed on their own, like the user's vector matrix, from term ids the
store keeps per record (:func:`encode`): statistics and cost both come from the queried user's records.

This module is the core's one BM25 and one tokenizer: the store's full-text search and retrieval's re-rank
of a small pool (``cbmemory.retrieval.rerank``) both score with :meth:`LexicalIndex.bm25`, over the same
terms, each with its variant (``Variant``, one per formula, each with the paper it follows):

- ``OKAPI`` (the store's): FTS5's ``bm25()`` (k1 = 1.2, b = 0.75, idf = ln((N - df + 0.5) / (df + 0.5))
  floored at 1e-6; Robertson & Zaragoza, "The Probabilistic Relevance Framework", 2009), the formula the
  embedded store used before, over the user's live records. A record is two fields, the indexed text and
  the raw turn, weighed equally: the turn's own words count twice and its context once (a two-field BM25F).
  Phrases match contiguous terms within one field. In a tiny corpus (a user with a few records) the idf of
  a term in half the records or more is the floor: such a term finds its records but barely orders them.
- ``PLUS`` (the re-rank's): BM25+ (Lv & Zhai, "Lower-bounding term frequency normalization", CIKM 2011),
  k1 = 1.5, b = 0.75, delta = 1, idf = ln((N + 1) / df), positive for every term present, so in a pool of
  ten the query's main words still count; delta lower-bounds every document's weight of each query term
  found in the pool, as ``rank_bm25.BM25Plus`` (which the re-rank used before) computes it.

Terms are words folded to lower case without diacritics (as SQLite's ``unicode61 remove_diacritics``
does) and Porter-stemmed; each is stored as a 64-bit id (blake2b of the stem), so the file keeps no
vocabulary shared between users: erasing a user's records erases their words.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..text import stemmer, tokens

_SEP = 0  # between the two fields of a record and after each record: phrases never span it


def okapi_idf(n: int, df: int) -> float:
    """FTS5's idf: ln((N - df + 0.5) / (df + 0.5)), floored at 1e-6 (a term in half the records or more)."""
    return max(math.log((n - df + 0.5) / (df + 0.5)), 1e-6)


def plus_idf(n: int, df: int) -> float:
    """BM25+'s idf: ln((N + 1) / df), positive for every term present."""
    return math.log((n + 1) / df)


@dataclass(frozen=True)
class Variant:
    """One BM25 formula: term-frequency saturation ``k1``, length normalisation ``b``, the idf, and
    ``delta``, the lower bound of each document's weight of a query term found in the corpus (0: none)."""

    k1: float
    b: float
    idf: Callable[[int, int], float]
    delta: float = 0.0


OKAPI = Variant(1.2, 0.75, okapi_idf)  # the store's full-text search (FTS5's bm25())
PLUS = Variant(1.5, 0.75, plus_idf, 1.0)  # the re-rank of a small pool (BM25+, as rank_bm25 computes it)
K1, B = OKAPI.k1, OKAPI.b


def term_id(token: str) -> int:
    """The stable 64-bit id of a token's stem (never 0, which separates fields); cached for a word's length only,
    as the cache holds its keys (a pasted hex dump is one token of up to 64 KiB: 262,144 of them would hold GBs)."""
    return _cached_term_id(token) if len(token) <= 64 else _term_id(token)


def _term_id(token: str) -> int:
    stem = stemmer().stemWord(token)
    tid = int.from_bytes(hashlib.blake2b(stem.encode("utf-8"), digest_size=8).digest(), "little", signed=True)
    return tid or 1


_cached_term_id = lru_cache(maxsize=262_144)(_term_id)


def term_ids(text: str) -> list[int]:
    return [term_id(t) for t in tokens(text)]


def query_terms(words: Sequence[str]) -> np.ndarray:
    """Distinct term ids of query words (already stopword-filtered by the caller), in order."""
    return np.array(list(dict.fromkeys(t for w in words for t in term_ids(w))), dtype=np.int64)


def encode(index_text: str, text: str) -> bytes:
    """What the store keeps per record: the term ids of both fields, separated."""
    return np.array([*term_ids(index_text), _SEP, *term_ids(text)], dtype=np.int64).tobytes()


def encode_one(text: str) -> bytes:
    """The term ids of a one-field document (what the re-rank indexes)."""
    return np.array(term_ids(text), dtype=np.int64).tobytes()


class LexicalIndex:
    """Term ids of one user's records (in the order of the user's vector matrix), searchable by BM25.

    Records are appended; postings (term -> records, term frequency; and term -> positions, for phrases)
    cover a prefix of them and are rebuilt when the records appended since outgrow an eighth of that
    prefix. The newer records are scanned directly, so a search right after an append costs no rebuild.
    A phrase is read from the positions of its rarest term (a phrase of common words, "on tuesdays", reads
    only where "tuesdays" is); the positions cost 4 bytes a term (the terms themselves 8, their records 4).
    """

    def __init__(self) -> None:
        self.n = 0
        self.size = 0  # used length of seq / owner
        self.seq = np.empty(0, np.int64)  # every record's term ids, each record followed by _SEP
        self.owner = np.empty(0, np.int32)  # record index of each position of seq
        self.lengths = np.empty(0, np.float64)  # terms per record
        self._indexed = 0  # records covered by the postings
        self._indexed_size = 0
        self._terms = np.empty(0, np.int64)
        self._ptr = np.zeros(1, np.int64)
        self._docs = np.empty(0, np.int32)
        self._tf = np.empty(0, np.float64)
        self._at = np.empty(0, np.int32)  # positions in seq, by term then position (a phrase's)
        self._at_ptr = np.zeros(1, np.int64)

    def append(self, blobs: Sequence[bytes]) -> None:
        parts = [np.frombuffer(b, dtype=np.int64) for b in blobs]
        total = sum(len(p) + 1 for p in parts)
        if self.size + total > len(self.seq):
            cap = max(2 * len(self.seq), self.size + total, 1024)
            for name, dtype in (("seq", np.int64), ("owner", np.int32)):
                new = np.empty(cap, dtype)
                new[: self.size] = getattr(self, name)[: self.size]
                setattr(self, name, new)
        lengths = np.empty(len(parts), np.float64)
        pos = self.size
        for i, p in enumerate(parts):
            end = pos + len(p)
            self.seq[pos:end] = p
            self.seq[end] = _SEP
            self.owner[pos : end + 1] = self.n + i
            lengths[i] = np.count_nonzero(p)
            pos = end + 1
        self.size = pos
        self.lengths = np.concatenate([self.lengths[: self.n], lengths])
        self.n += len(parts)

    def _reindex(self) -> None:
        """Postings of every record, sorted by term then record."""
        seg, own = self.seq[: self.size], self.owner[: self.size]
        keep = seg != _SEP
        t, d = seg[keep], own[keep]
        order = np.argsort(t, kind="stable")  # records (and positions) stay ascending within a term
        t, d = t[order], d[order]
        self._at = np.flatnonzero(keep)[order].astype(np.int32 if self.size < 2**31 else np.int64)
        if t.size == 0:
            self._terms, self._ptr = np.empty(0, np.int64), np.zeros(1, np.int64)
            self._docs, self._tf = np.empty(0, np.int32), np.empty(0, np.float64)
            self._at_ptr = np.zeros(1, np.int64)
        else:
            first = np.ones(t.size, bool)
            first[1:] = (t[1:] != t[:-1]) | (d[1:] != d[:-1])
            at = np.flatnonzero(first)
            pt, self._docs = t[at], d[at]
            self._tf = np.diff(np.append(at, t.size)).astype(np.float64)
            new_term = np.ones(pt.size, bool)
            new_term[1:] = pt[1:] != pt[:-1]
            starts = np.flatnonzero(new_term)
            self._terms, self._ptr = pt[starts], np.append(starts, pt.size)
            self._at_ptr = np.append(np.searchsorted(t, self._terms), t.size)
        self._indexed, self._indexed_size = self.n, self.size

    def _term_at(self, term: int) -> int:
        """``term``'s index in the postings (their size if absent), the postings first rebuilt when the records
        appended since outgrow an eighth of them."""
        if self.size - self._indexed_size > max(16_384, self._indexed_size // 8):
            self._reindex()
        i = int(np.searchsorted(self._terms, term))
        return i if i < self._terms.size and self._terms[i] == term else self._terms.size

    def _indexed_count(self, term: int) -> int:
        """How often ``term`` occurs in the indexed records (the newer ones, at most an eighth more, are not counted)."""
        i = self._term_at(term)
        return int(self._at_ptr[i + 1] - self._at_ptr[i]) if i < self._terms.size else 0

    def _newer(self, term: int) -> np.ndarray:
        """Where ``term`` occurs in the records appended since the postings were built (a scan), ascending."""
        return np.flatnonzero(self.seq[self._indexed_size : self.size] == term) + self._indexed_size

    def _positions(self, term: int) -> np.ndarray:
        """Where ``term`` occurs in ``seq``, ascending (positional postings, then a scan of newer records)."""
        i = self._term_at(term)
        at = self._at[self._at_ptr[i] : self._at_ptr[i + 1]] if i < self._terms.size else self._at[:0]
        return np.concatenate([at, self._newer(term)]) if self._indexed_size < self.size else at

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """Records holding ``term`` and its count in each (postings, then a scan of newer records)."""
        i = self._term_at(term)
        if i < self._terms.size:
            docs, tf = self._docs[self._ptr[i] : self._ptr[i + 1]], self._tf[self._ptr[i] : self._ptr[i + 1]]
        else:
            docs, tf = self._docs[:0], self._tf[:0]
        if self._indexed_size < self.size:
            hit = self._newer(term)
            if hit.size:
                recent, counts = np.unique(self.owner[hit], return_counts=True)
                docs = np.concatenate([docs, recent])
                tf = np.concatenate([tf, counts.astype(np.float64)])
        return docs, tf

    def _phrase_counts(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Records where the terms ``ids`` occur contiguously (in one field), with the count in each."""
        if ids.size == 1:
            return self._postings(int(ids[0]))
        rare = min(range(ids.size), key=lambda j: self._indexed_count(int(ids[j])))  # read from its rarest term
        pos = self._positions(int(ids[rare])) - rare
        pos = pos[(pos >= 0) & (pos <= self.size - ids.size)]
        for j in range(ids.size):
            if j != rare:
                pos = pos[self.seq[pos + j] == ids[j]]
        docs, counts = np.unique(self.owner[pos], return_counts=True)
        return docs, counts.astype(np.float64)

    def bm25(self, phrases: Sequence[np.ndarray], live: np.ndarray, variant: Variant = OKAPI) -> np.ndarray:
        """BM25 (``variant``; the store's by default) of every record for the query ``phrases`` (each an array
        of term ids; one-term phrases are plain terms), with N, the average length and document frequencies
        taken over the ``live`` records. Records matching nothing score 0 (with a ``delta``: the sum of the
        deltas of the query terms found)."""
        scores = np.zeros(self.n)
        n_live = int(np.count_nonzero(live))
        if n_live == 0 or not phrases:
            return scores
        k1, b, delta = variant.k1, variant.b, variant.delta
        lengths = self.lengths[: self.n]
        avgdl = max(float(lengths @ live) / n_live, 1e-9)  # whole counts: the sum is exact, as the mean's
        for ids in phrases:
            docs, tf = self._phrase_counts(ids)
            df = int(np.count_nonzero(live[docs])) if docs.size else 0
            if df == 0:
                continue
            idf = variant.idf(n_live, df)
            norm = k1 * (1.0 - b + b * lengths[docs] / avgdl)  # the length norm of the records found alone
            if delta:  # as rank_bm25 computes it, operation for operation
                rest = live.copy()
                rest[docs] = False
                scores[rest] += idf * delta
                scores[docs] += idf * (delta + tf * (k1 + 1.0) / (tf + norm))
            else:
                scores[docs] += idf * tf * (k1 + 1.0) / (tf + norm)
        return scores
