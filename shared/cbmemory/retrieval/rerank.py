"""BM25 re-rank of a small candidate pool, with the store's BM25 and tokenizer (``cbmemory.store.lexical``).

The variant is BM25+ (``lexical.PLUS``; Lv & Zhai, CIKM 2011), chosen on purpose: with the Okapi idf
log((N - df + 0.5) / (df + 0.5)) a term found in half or more of the pool scores nothing (zero, negative or
a small floor), so in a 10-document pool the query's main words often score nothing and the re-rank keeps
an arbitrary order. BM25+ uses idf = log((N + 1) / df), positive for every term present, plus a lower bound
delta on term frequency normalisation. The pool's documents are the hits' indexed texts, one field each,
in the store's terms (folded, Porter-stemmed words); the query is its content words (stopwords dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..models import Hit, frozen_mapping
from ..store import lexical
from ..text import content_words


def bm25_scores(query: str, documents: Sequence[str]) -> np.ndarray:
    """BM25+ scores of ``documents`` for ``query`` (its stopwords dropped), over the documents alone."""
    terms = lexical.query_terms(content_words(query))
    if not documents or not terms.size:
        return np.zeros(len(documents))
    index = lexical.LexicalIndex()
    index.append([lexical.encode_one(d) for d in documents])
    return index.bm25([terms[i : i + 1] for i in range(terms.size)], np.ones(len(documents), bool), lexical.PLUS)


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
