"""Running a ``RetrievalConfig`` against a store: signals, fusion, re-rank, ordering, budget."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from ..models import Hit, SearchFilters, frozen_mapping
from ..store.base import MemoryStore
from ..text import words
from . import context
from .config import RetrievalConfig, scale_k
from .entities import extract_entities
from .fusion import rrf, weighted
from .rerank import bm25_rerank

QueryEmbedder = Callable[[str], "object"]


def _with_future_filter(filters: SearchFilters, reference: datetime) -> SearchFilters:
    """Keep memories up to the end of the reference day (same-day memories stay)."""
    end_of_day = reference.replace(hour=23, minute=59, second=59, microsecond=999999)
    bound = end_of_day if filters.occurred_before is None else min(filters.occurred_before, end_of_day)
    return replace(filters, occurred_before=bound)


def boost_named_speakers(query: str, ranked: list[Hit], weight: float, c: int) -> list[Hit]:
    """Fuse ``ranked`` with the sub-list of its hits whose speaker the query names (by whole word)."""
    q = set(words(query))
    named = [h for h in ranked if h.record.speaker and set(words(h.record.speaker)) <= q]
    if not named or len(named) == len(ranked):
        return ranked
    bonus = {h.record.record_id: (rank, weight / (c + rank)) for rank, h in enumerate(named, 1)}
    base = {h.record.record_id: 1.0 / (c + i) for i, h in enumerate(ranked, 1)}
    order = sorted(range(len(ranked)), key=lambda i: -(base[ranked[i].record.record_id]
                                                      + bonus.get(ranked[i].record.record_id, (0, 0.0))[1]))
    out = []
    for i in order:
        h = ranked[i]
        extra = bonus.get(h.record.record_id)
        score = base[h.record.record_id] + (extra[1] if extra else 0.0)
        ranks = {**h.ranks, "speaker": extra[0]} if extra else dict(h.ranks)
        out.append(Hit(h.record, score, frozen_mapping(dict(h.signals)), frozen_mapping(ranks)))
    return out


def resolve_k(config: RetrievalConfig, store: MemoryStore, user_id: str, k: int | None) -> int:
    if k is not None:
        return k
    if config.k is not None:
        return config.k
    return scale_k(len(store.list_sessions(user_id)))


def retrieve(
    store: MemoryStore,
    embed_query: QueryEmbedder,
    config: RetrievalConfig,
    user_id: str,
    query: str,
    *,
    k: int | None = None,
    filters: SearchFilters | None = None,
    reference_date: datetime | None = None,
    now: datetime | None = None,
    count_tokens: Callable[[Hit], int] | None = None,
) -> list[Hit]:
    """The recipe's top hits for ``query`` within ``user_id``'s memory, each stamped with the recipe name."""
    k = resolve_k(config, store, user_id, k)
    f = filters or SearchFilters()
    if config.kinds is not None and f.kinds is None:
        f = replace(f, kinds=config.kinds)
    if config.future_filter and reference_date is not None:
        f = _with_future_filter(f, reference_date)

    want = max(k, config.rerank_pool if config.rerank else 0, config.recency_pool if config.order == "recency" else 0)
    lists: dict[str, list[Hit]] = {}
    if "vector" in config.signals:
        lists["vector"] = store.vector_search(user_id, embed_query(query), max(want, config.vector_pool)
                                              if len(config.signals) > 1 else want, f, now)
    if "bm25" in config.signals:
        lists["bm25"] = store.text_search(user_id, query, max(want, config.text_pool)
                                          if len(config.signals) > 1 else want, f, now)
    if "entity" in config.signals:
        # Participants' names are in nearly every turn of their own conversation: not discriminative.
        speakers = {h.record.speaker.lower() for hits in lists.values() for h in hits if h.record.speaker}
        phrases = [p for p in extract_entities(query) if p.lower() not in speakers]
        lists["entity"] = store.phrase_search(user_id, phrases, max(k, config.entity_pool), f, now) if phrases else []

    if len(lists) == 1:
        ranked = next(iter(lists.values()))
    elif config.fusion == "rrf":
        ranked = rrf(lists, c=config.rrf_k, weights=dict(config.weights))
    else:
        ranked = weighted(lists, weights=dict(config.weights))

    if config.speaker_weight > 0:
        ranked = boost_named_speakers(query, ranked, config.speaker_weight, config.rrf_k)
    if config.rerank == "bm25":
        ranked = bm25_rerank(query, ranked[: config.rerank_pool], k)
    if config.order == "recency":
        pool = ranked[: config.recency_pool]
        ranked = sorted(pool, key=lambda h: (h.record.occurred_at, h.record.position), reverse=True)
    ranked = ranked[:k]

    if config.token_budget is not None:
        count_tokens = count_tokens or (lambda h: context.count_tokens(context.format_hit(h)) + 1)
        kept, used = [], 0
        for h in ranked:
            cost = count_tokens(h)
            if used + cost > config.token_budget:
                break
            kept.append(h)
            used += cost
        ranked = kept
    return [Hit(h.record, h.score, h.signals, h.ranks, config.name) for h in ranked]


def explain(hits: list[Hit]) -> list[dict[str, object]]:
    """Per-hit table of each signal's rank and score (``None`` where that signal did not find it)."""
    signals = sorted({s for h in hits for s in h.ranks})
    return [
        {"turn_id": h.record.turn_id, "session_id": h.record.session_id, "score": h.score,
         **{f"{s}_rank": h.ranks.get(s) for s in signals}, **{f"{s}_score": h.signals.get(s) for s in signals}}
        for h in hits
    ]


