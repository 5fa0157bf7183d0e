"""Running a recipe's ``RetrievalConfig`` against a store: signals, fusion, speaker and date boosts,
neighbour and session terms, re-rank, ordering, window, budget; each stage runs only when the config asks
for it. Each signal's search is one entry of ``SEARCHES``."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType

import numpy as np

from ..context import fit
from ..dates.questions import question_span
from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError
from ..models import Hit, MemoryRecord, SearchFilters, frozen_mapping
from ..store.base import MemoryStore
from ..text import words
from .config import DATE, NEIGHBOUR, SESSION, SPEAKER, Fusion, Order, Rerank, RetrievalConfig, Signal, scale_k
from .entities import extract_entities
from .fusion import rrf, weighted
from .recipes import Recipe
from .rerank import bm25_rerank

QueryEmbedder = Callable[[str], np.ndarray]
SparseQueryEncoder = Callable[[str], SparseVector]


def _with_future_filter(filters: SearchFilters, reference: datetime) -> SearchFilters:
    """Keep memories up to the end of the reference day (same-day memories stay)."""
    end_of_day = reference.replace(hour=23, minute=59, second=59, microsecond=999999)
    bound = end_of_day if filters.occurred_before is None else min(filters.occurred_before, end_of_day)
    return replace(filters, occurred_before=bound)


def named_speaker_hits(query: str, ranked: list[Hit]) -> list[Hit]:
    """The hits of ``ranked`` whose speaker the query names (by whole word), in order; none when the query
    names no candidate's speaker, or every candidate's (then naming tells nothing apart)."""
    q = set(words(query))
    named = [h for h in ranked if h.record.speaker and set(words(h.record.speaker)) <= q]
    return [] if len(named) == len(ranked) else named


def fuse(config: RetrievalConfig, lists: dict[str, list[Hit]], extra_weights: dict[str, float] | None = None
         ) -> list[Hit]:
    """One list as it is; several fused the way ``config.fusion`` says, with the signals' weights."""
    if len(lists) == 1:
        return next(iter(lists.values()))
    w = {**{s.name.value: s.weight for s in config.signals}, **(extra_weights or {})}
    if config.fusion.method is Fusion.RRF:
        return rrf(lists, c=config.fusion.rrf_k, weights=w)
    return weighted(lists, weights=w)


def dated_hits(query: str, reference: datetime | None, ranked: list[Hit]) -> list[Hit]:
    """The hits of ``ranked`` dated inside the calendar period the query names (``question_span``, resolved
    against ``reference``), in order; none when it names no period, or every candidate falls inside it (then
    the date tells nothing apart)."""
    span = question_span(query, reference)
    if span is None:
        return []
    inside = [h for h in ranked if span.contains(h.record.occurred_at)]
    return [] if len(inside) == len(ranked) else inside


def boost(config: RetrievalConfig, query: str, reference: datetime | None, lists: dict[str, list[Hit]],
          ranked: list[Hit]) -> list[Hit]:
    """The signal ``lists`` fused again, the way ``config.fusion`` says, now with up to two more lists, each
    the hits of ``ranked`` (their first fusion) that match: ``speaker`` (the query names their speaker;
    weight ``config.boosts.speaker_weight``) and ``date`` (dated inside the period the query names; weight
    ``config.boosts.date_weight``). RRF ranks such a list in fused order; weighted fusion scores each of its hits 1
    there, so a matching hit gains the weight itself. ``ranked`` is returned as it is when neither matches."""
    boosts = config.boosts
    extra: dict[str, list[Hit]] = {}
    if boosts.speaker_weight > 0:
        extra[SPEAKER] = named_speaker_hits(query, ranked)
    if boosts.date_weight > 0:
        extra[DATE] = dated_hits(query, reference, ranked)
    extra = {name: hits for name, hits in extra.items() if hits}
    if not extra:
        return ranked
    if config.fusion.method is Fusion.WEIGHTED:
        extra = {name: [Hit(h.record, 1.0) for h in hits] for name, hits in extra.items()}
    weights = {SPEAKER: boosts.speaker_weight, DATE: boosts.date_weight}
    return fuse(config, {**lists, **extra}, {name: weights[name] for name in extra})


def context_boost(config: RetrievalConfig, store: MemoryStore, user_id: str, ranked: list[Hit],
                  filters: SearchFilters, now: datetime | None, depth: int) -> list[Hit]:
    """``ranked`` (fused and boosted) rescored by the evidence around each candidate, best first:

    score + ``neighbour_weight`` x the larger score of its two adjacent turns in its session (same kind; 0
    for a turn that is no candidate) + ``session_weight`` x its session's best candidate score / the best
    score of all. With ``neighbour_weight``, the candidates' adjacent turns join the candidates (read from
    the store under the same ``filters``, scored by those terms alone). Only the adjacent turns of candidates
    that could reach the first ``depth`` are read (``store.neighbours``, by position), and only the first
    ``depth`` are returned: exactly those of reading every candidate's session. Ties: the better rank in any
    signal list, then the record id. Each hit's ``signals`` gain ``neighbour`` and ``session`` (the two terms
    before weighting)."""
    if not ranked:
        return ranked
    nw, sw = config.context_boost.neighbour_weight, config.context_boost.session_weight
    best = max(h.score for h in ranked)
    session: dict[str, float] = {}
    if sw > 0 and best > 0:
        for h in ranked:
            sid = h.record.session_id
            session[sid] = max(session.get(sid, h.score), h.score)

    def session_term(h: Hit) -> float:
        return session.get(h.record.session_id, 0.0) / best if session else 0.0

    adjacent: dict[str, float] = {}
    by_id = {h.record.record_id: h for h in ranked}
    if nw > 0:
        at = {(h.record.session_id, h.record.kind, h.record.position): h for h in ranked}
        for h in ranked:  # candidates next to candidates
            r = h.record
            for step in (-1, 1):
                near = at.get((r.session_id, r.kind, r.position + step))
                if near is not None:
                    rid = near.record.record_id
                    adjacent[rid] = max(adjacent.get(rid, 0.0), h.score)
        own = sorted((h.score + nw * adjacent.get(rid, 0.0) + sw * session_term(h)
                      for rid, h in by_id.items()), reverse=True)
        bar = own[depth - 1] if len(own) >= depth else -math.inf
        # a turn that is no candidate scores at most nw * its best neighbour + the session term
        reach = [h for h in ranked if nw * h.score + sw * session_term(h) >= bar]
        if reach:  # the turns next to them, read by position (never their whole sessions)
            records = store.neighbours(user_id, [(h.record.session_id, h.record.kind, h.record.position)
                                                 for h in reach], 1, filters, now)
            where = {(r.session_id, r.kind, r.position): r for r in records}
            for h in reach:
                r = h.record
                for step in (-1, 1):
                    n = where.get((r.session_id, r.kind, r.position + step))
                    if n is None or n.record_id in by_id:
                        continue
                    by_id[n.record_id] = Hit(n, 0.0)
                    sides = (at.get((n.session_id, n.kind, n.position + d)) for d in (-1, 1))
                    adjacent[n.record_id] = max([0.0, *(x.score for x in sides if x is not None)])
    final = {rid: h.score + nw * adjacent.get(rid, 0.0) + sw * session_term(h) for rid, h in by_id.items()}
    first = sorted(final, key=lambda rid: (-final[rid], min(by_id[rid].ranks.values(), default=math.inf), rid))
    out = []
    for rid in first[:depth]:  # what comes after the first depth is never returned
        h = by_id[rid]
        signals = frozen_mapping({**h.signals, NEIGHBOUR: adjacent.get(rid, 0.0), SESSION: session_term(h)})
        out.append(Hit(h.record, final[rid], signals, h.ranks))
    return out


def with_window(store: MemoryStore, user_id: str, hits: list[Hit], window: int, filters: SearchFilters,
                now: datetime | None) -> list[Hit]:
    """``hits`` with their ``context``: the turns up to ``window`` positions before and after each, in its
    session and of its kind, read from the store under the same ``filters`` (so a context turn is one the
    search could have returned), in session order. One read of the hits' windows (``store.neighbours``: by
    position, whatever the length of their sessions); ``window`` 0: as is."""
    if window <= 0 or not hits:
        return hits
    records = store.neighbours(user_id, [(h.record.session_id, h.record.kind, h.record.position) for h in hits],
                               window, filters, now)
    at = {(r.session_id, r.kind, r.position): r for r in records}
    out = []
    for h in hits:
        r = h.record
        near = (at.get((r.session_id, r.kind, r.position + step)) for step in range(-window, window + 1) if step)
        out.append(replace(h, context=tuple(n for n in near if n is not None)))
    return out


def resolve_k(config: RetrievalConfig, store: MemoryStore, user_id: str, k: int | None) -> int:
    if k is not None:
        return k
    if config.k is not None:
        return config.k
    return scale_k(len(store.list_sessions(user_id)))


def candidates(config: RetrievalConfig, k: int, pool: int) -> int:
    """How many hits a signal with this ``pool`` fetches: its pool where candidates past k can change the
    result (fusion of several signals, a boost or a context term), enough for the re-rank or the recency
    order, and never fewer than k. One signal alone with none of those returns its own top k whatever its
    pool, so it fetches just k (reading more records would cost time and change nothing)."""
    rescored = config.boosts.active or config.context_boost.active
    pooled = pool if len(config.signals) > 1 or rescored else 0
    return max(k, pooled, config.rerank.depth, config.order.depth)


@dataclass(frozen=True)
class SignalQuery:
    """What a signal's search reads: the store, the user, the question and its filters, the query encoders,
    and the lists of the signals that ran before it (in ``Signal`` order)."""

    store: MemoryStore
    user_id: str
    text: str
    filters: SearchFilters
    now: datetime | None
    embed: QueryEmbedder
    encode_sparse: SparseQueryEncoder | None
    earlier: Mapping[str, list[Hit]]


def _vector(q: SignalQuery, n: int) -> list[Hit]:
    return q.store.vector_search(q.user_id, q.embed(q.text), n, q.filters, q.now)


def _bm25(q: SignalQuery, n: int) -> list[Hit]:
    return q.store.text_search(q.user_id, q.text, n, q.filters, q.now)


def _entity(q: SignalQuery, n: int) -> list[Hit]:
    # Participants' names are in nearly every turn of their own conversation: not discriminative.
    speakers = {h.record.speaker.lower() for hits in q.earlier.values() for h in hits if h.record.speaker}
    phrases = [p for p in extract_entities(q.text) if p.lower() not in speakers]
    return q.store.phrase_search(q.user_id, phrases, n, q.filters, q.now) if phrases else []


def _sparse(q: SignalQuery, n: int) -> list[Hit]:
    if q.encode_sparse is None:
        raise InvalidInputError("the sparse signal needs a sparse query encoder")
    return q.store.sparse_search(q.user_id, q.encode_sparse(q.text), n, q.filters, q.now)


# Each signal's search: its ``n`` best candidates for the query. A new signal adds its entry here.
SEARCHES: Mapping[Signal, Callable[[SignalQuery, int], list[Hit]]] = MappingProxyType({
    Signal.VECTOR: _vector, Signal.BM25: _bm25, Signal.ENTITY: _entity, Signal.SPARSE: _sparse,
})


def is_echo(record: MemoryRecord) -> bool:
    """A turn stored restating memories its agent step was shown (``FilterConfig.echoes``)."""
    return record.kind == "turn" and bool(record.source_ids)


def without_echoes(hits: list[Hit]) -> list[Hit]:
    return [h for h in hits if not is_echo(h.record)]


def retrieve(
    store: MemoryStore,
    embed_query: QueryEmbedder,
    recipe: Recipe,
    user_id: str,
    query: str,
    *,
    k: int | None = None,
    filters: SearchFilters | None = None,
    reference_date: datetime | None = None,
    now: datetime | None = None,
    encode_sparse: SparseQueryEncoder | None = None,
) -> list[Hit]:
    """``recipe``'s top hits for ``query`` within ``user_id``'s memory, each stamped with the recipe name.
    ``encode_sparse``: the query's sparse vector, for recipes with the ``sparse`` signal (required by them).

    Each signal fetches its candidates (``candidates``, by ``SEARCHES``); several signals are fused; then,
    each only when the config asks for it: the speaker and date boosts (the question's period resolved
    against ``reference_date``, else ``now``), the neighbour and session terms (``context_boost``), the BM25
    re-rank of the first ``rerank.pool``, the recency order of the first ``order.pool``; the cut to k; each
    hit's adjacent turns (``window``); the token budget."""
    config = recipe.retrieval
    if config.uses(Signal.SPARSE) and encode_sparse is None:
        raise InvalidInputError(f"recipe {recipe.name!r} searches sparse vectors: give a sparse query encoder")
    k = resolve_k(config, store, user_id, k)
    f = filters or SearchFilters()
    if config.filters.kinds is not None and f.kinds is None:
        f = replace(f, kinds=config.filters.kinds)
    if config.filters.drop_future and reference_date is not None:
        f = _with_future_filter(f, reference_date)

    keep = (lambda hits: hits) if config.filters.echoes else without_echoes
    lists: dict[str, list[Hit]] = {}
    for spec in config.signals:  # in Signal order: a signal sees the lists before it (entity: their speakers)
        q = SignalQuery(store, user_id, query, f, now, embed_query, encode_sparse, dict(lists))
        lists[spec.name.value] = keep(SEARCHES[spec.name](q, candidates(config, k, spec.pool)))

    ranked = fuse(config, lists)
    if config.boosts.active:  # the question's period: reference_date, else now
        ranked = boost(config, query, reference_date if reference_date is not None else now, lists, ranked)
    if config.context_boost.active:
        depth = max(k, config.rerank.depth, config.order.depth)
        ranked = keep(context_boost(config, store, user_id, ranked, f, now, depth))  # neighbours joined
    if config.rerank.method is Rerank.BM25:
        ranked = bm25_rerank(query, ranked[: config.rerank.pool], k)
    if config.order.by is Order.RECENCY:
        pool = ranked[: config.order.pool]
        ranked = sorted(pool, key=lambda h: (h.record.occurred_at, h.record.position), reverse=True)
    ranked = with_window(store, user_id, ranked[:k], config.window, f, now)

    ranked = fit(ranked, config.token_budget, recipe.context)  # the context stage's one budget rule
    return [replace(h, recipe=recipe.name) for h in ranked]


def explain(hits: list[Hit]) -> list[dict[str, object]]:
    """Per-hit table of each signal's rank and score (``None`` where that signal did not find it)."""
    signals = sorted({s for h in hits for s in h.ranks})
    return [
        {"turn_id": h.record.turn_id, "session_id": h.record.session_id, "score": h.score,
         **{f"{s}_rank": h.ranks.get(s) for s in signals}, **{f"{s}_score": h.signals.get(s) for s in signals}}
        for h in hits
    ]


