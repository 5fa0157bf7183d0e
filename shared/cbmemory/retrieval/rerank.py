"""BM25 re-rank of a small candidate pool with ``rank_bm25``.

The variant is BM25+ (Lv & Zhai, CIKM 2011), chosen on purpose: in rank_bm25's ``BM25Okapi`` the idf
log((N - n + 0.5) / (n + 0.5)) is zero or negative for a term found in half or more of the pool, and the
library then replaces it with a small epsilon floor, so in a 10-document pool the query's main words often
score nothing and the re-rank keeps an arbitrary order. ``BM25Plus`` uses idf = log((N + 1) / n), positive
for every term present, plus a lower bound delta on term frequency normalisation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from rank_bm25 import BM25Plus

from ..models import Hit, frozen_mapping
from ..text import content_words, words


def bm25_scores(query: str, documents: Sequence[str]) -> np.ndarray:
    """BM25+ scores of ``documents`` for ``query`` (stopwords dropped from both)."""
    terms = content_words(query)
    if not documents or not terms:
        return np.zeros(len(documents))
    corpus = [[w for w in words(d)] or [""] for d in documents]
    return np.asarray(BM25Plus(corpus).get_scores(terms), dtype=float)


def bm25_rerank(query: str, hits: Sequence[Hit], k: int) -> list[Hit]:
    """Re-order ``hits`` by BM25+ over their indexed text; ties keep the incoming order."""
    scores = bm25_scores(query, [h.record.index_text for h in hits])
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))[:k]
    out = []
    for new_rank, i in enumerate(order, 1):
        h = hits[i]
        out.append(Hit(h.record, float(scores[i]), frozen_mapping({**h.signals, "rerank": float(scores[i])}),
                       frozen_mapping({**h.ranks, "rerank": new_rank})))
    return out
