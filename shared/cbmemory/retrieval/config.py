"""Retrieval configuration as frozen data. Copy with ``cfg.with_(k=20)``; never mutate."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..errors import InvalidInputError
from ..ingest import DEFAULT_INGEST, IngestConfig

SIGNALS = ("vector", "bm25", "entity")


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Everything that decides what a search returns.

    - ``signals``: which ranked lists run: ``vector`` (cosine), ``bm25`` (full text over the user's whole
      corpus), ``entity`` (exact phrases extracted from the query, through the full-text index).
    - ``vector_pool`` / ``text_pool`` / ``entity_pool``: candidates taken from each signal (at least k).
    - ``fusion``: ``rrf`` (reciprocal-rank fusion, constant ``rrf_k``) or ``weighted`` (min-max normalised
      scores); ``weights`` per signal apply to both. Fusion runs over the union of all candidates.
    - ``rerank``: ``None`` or ``bm25`` (BM25+ over the first ``rerank_pool`` results, cut to k).
    - ``order``: ``relevance`` or ``recency`` (take ``recency_pool`` most relevant, return the newest k).
    - ``future_filter``: drop memories dated after the question's reference date (kept on that day).
    - ``k``: hits returned; ``None`` picks k from the haystack size (``scale_k``).
    - ``token_budget``: stop adding hits once the formatted context would pass this many tokens.
    - ``ingest``: the ingest settings the recipe's records were made with; ``kinds``: record kinds searched.
    - ``speaker_weight``: when the query names a speaker of some candidates, a reciprocal-rank list of those
      candidates (in fused order) joins the fusion with this weight; 0 turns it off.
    """

    name: str = "custom"
    description: str = ""
    signals: tuple[str, ...] = ("vector",)
    vector_pool: int = 50
    text_pool: int = 50
    entity_pool: int = 30
    fusion: str = "rrf"
    rrf_k: int = 60
    weights: tuple[tuple[str, float], ...] = ()
    rerank: str | None = None
    rerank_pool: int = 10
    order: str = "relevance"
    recency_pool: int = 30
    future_filter: bool = False
    k: int | None = 10
    token_budget: int | None = None
    ingest: IngestConfig = DEFAULT_INGEST
    kinds: tuple[str, ...] | None = None
    speaker_weight: float = 0.0

    def __post_init__(self) -> None:
        bad = set(self.signals) - set(SIGNALS)
        if not self.signals or bad:
            raise InvalidInputError(f"signals must be a non-empty subset of {SIGNALS}, got {self.signals}")
        if self.fusion not in ("rrf", "weighted"):
            raise InvalidInputError(f"fusion must be 'rrf' or 'weighted', got {self.fusion!r}")
        if self.rerank not in (None, "bm25"):
            raise InvalidInputError(f"rerank must be None or 'bm25', got {self.rerank!r}")
        if self.order not in ("relevance", "recency"):
            raise InvalidInputError(f"order must be 'relevance' or 'recency', got {self.order!r}")
        if self.k is not None and self.k < 1:
            raise InvalidInputError("k must be positive or None")

    def with_(self, **changes: object) -> RetrievalConfig:
        """A copy with some fields changed (the original is untouched)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def weight(self, signal: str) -> float:
        return dict(self.weights).get(signal, 1.0)


def scale_k(n_sessions: int, *, base_k: int = 10, base_sessions: int = 50, lo: int = 5, hi: int = 50) -> int:
    """k from the haystack size, through the study's two points: ~10 at ~50 sessions, ~20 at ~500.

    k = base_k * (sessions / base_sessions) ** log10(2), so every tenfold growth doubles k; clamped to
    [lo, hi].
    """
    if n_sessions <= 0:
        return lo
    k = base_k * (n_sessions / base_sessions) ** math.log10(2)
    return max(lo, min(hi, round(k)))
