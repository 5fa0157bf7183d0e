"""A recipe's search: its retrieval stage (``cbmemory.retrieval.retrieve``), then its context stage's token
budget (``cbmemory.context.fit``, ``recipe.context.token_budget``): the hits the recipe's context would show,
best first. ``AgentMemory.search`` and the evaluation read hits this way; ``recall`` runs the two stages
itself, dropping what the prompt already shows in between."""

from __future__ import annotations

from datetime import datetime

from ..context import fit
from ..models import Hit, SearchFilters
from ..retrieval.engine import QueryEmbedder, SparseQueryEncoder, TextsEmbedder, retrieve
from ..store.base import MemoryStore
from .recipe import Recipe


def recipe_hits(store: MemoryStore, embed_query: QueryEmbedder, recipe: Recipe, user_id: str, query: str, *,
                k: int | None = None, filters: SearchFilters | None = None, reference_date: datetime | None = None,
                now: datetime | None = None, encode_sparse: SparseQueryEncoder | None = None,
                current_only: bool = False, as_of: datetime | None = None,
                embed_texts: TextsEmbedder | None = None, embed_queries: TextsEmbedder | None = None) -> list[Hit]:
    """``retrieve`` with ``recipe`` (same arguments), cut to ``recipe.context.token_budget`` tokens."""
    hits = retrieve(store, embed_query, recipe, user_id, query, k=k, filters=filters,
                    reference_date=reference_date, now=now, encode_sparse=encode_sparse,
                    current_only=current_only, as_of=as_of, embed_texts=embed_texts, embed_queries=embed_queries)
    return fit(hits, recipe.context.token_budget, recipe.context)


__all__ = ["recipe_hits"]
