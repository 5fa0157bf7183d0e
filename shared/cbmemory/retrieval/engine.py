"""Running a recipe's ``RetrievalConfig`` against a store: signals, fusion, speaker and date boosts,
neighbour and session terms (``neighbourhood``), re-rank, ordering, window; each stage runs only when the config
asks for it.
Each signal's search is one entry of ``SEARCHES``. The token budget is the context stage's
(``cbmemory.recipes.recipe_hits`` runs both)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta, timezone
from types import MappingProxyType
from typing import Protocol

import numpy as np

from ..dates.questions import question_span
from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError
from ..models import Hit, MemoryRecord, SearchFilters, passage_place, place_kind
from ..store.base import MemoryStore
from ..store.candidates import Candidates
from ..text import words
from .config import DATE, SPEAKER, Order, Rerank, RetrievalConfig, Signal, scale_k
from .current import DEEPER, Superseded
from .current_value import with_current
from .entities import extract_entities
from .neighbourhood import context_boost
from .pool import Pool, fused, unite, with_list
from .ranking import Ranking, apart
from .rerank import bm25_rerank
from .updates import with_updates

QueryEmbedder = Callable[[str], np.ndarray]
TextsEmbedder = Callable[[Sequence[str]], np.ndarray]  # many texts at once (the current-value stage)
SparseQueryEncoder = Callable[[str], SparseVector]


class Searched(Protocol):
    """What a search needs of a recipe (``cbmemory.recipes.Recipe``, which sits above this package): its
    name, stamped on each hit, and its retrieval settings."""

    @property
    def name(self) -> str: ...

    @property
    def retrieval(self) -> RetrievalConfig: ...


def _with_future_filter(filters: SearchFilters, reference: datetime) -> SearchFilters:
    """Keep memories up to the end of the reference day (same-day memories stay)."""
    end_of_day = reference.replace(hour=23, minute=59, second=59, microsecond=999999)
    bound = end_of_day if filters.occurred_before is None else min(filters.occurred_before, end_of_day)
    return replace(filters, occurred_before=bound)


def speaker_rows(query: str, speakers: np.ndarray) -> np.ndarray:
    """Which candidates' speaker the query names (by whole word); none when it names no candidate's
    speaker, or every candidate's (then naming tells nothing apart)."""
    q = set(words(query))
    names, inverse = np.unique(np.array([s or "" for s in speakers], dtype=object), return_inverse=True)
    named = np.array([bool(n) and set(words(n)) <= q for n in names], dtype=bool)[inverse.reshape(-1)]
    return np.zeros(len(speakers), bool) if named.all() else named


def date_rows(query: str, reference: datetime | None, occurred: np.ndarray) -> np.ndarray:
    """Which candidates (``occurred``: epoch seconds) are dated inside the calendar period the query names
    (``question_span``, resolved against ``reference``; a date counts by its UTC day); none when it names
    no period, or every candidate falls inside it (then the date tells nothing apart)."""
    span = question_span(query, reference)
    if span is None:
        return np.zeros(len(occurred), bool)
    first = datetime.combine(span.start, time(), timezone.utc).timestamp()
    after = datetime.combine(span.end + timedelta(days=1), time(), timezone.utc).timestamp()
    inside = (occurred >= first) & (occurred < after)
    return np.zeros(len(occurred), bool) if inside.all() else inside


def fuse(config: RetrievalConfig, lists: Mapping[str, Candidates]) -> Pool:
    """The lists united (``pool.unite``) and fused the way ``config.fusion`` says, with the signals'
    weights; one list keeps its own scores."""
    w = {s.name.value: s.weight for s in config.signals}
    return fused(unite(lists), w, config.fusion.method, config.fusion.rrf_k)


def boost(config: RetrievalConfig, query: str, reference: datetime | None, pool: Pool) -> Pool:
    """``pool`` (fused) fused again, the way ``config.fusion`` says, with up to two more lists, each the
    candidates that match, in fused order: ``speaker`` (the query names their speaker; weight
    ``config.boosts.speaker_weight``) and ``date`` (dated inside the period the query names; weight
    ``config.boosts.date_weight``). RRF ranks such a list in fused order; weighted fusion scores each of its
    rows 1 there, so a matching candidate gains the weight itself. ``pool`` is returned as it is when
    neither matches."""
    boosts = config.boosts
    extra: dict[str, np.ndarray] = {}
    if boosts.speaker_weight > 0:
        extra[SPEAKER] = np.flatnonzero(speaker_rows(query, pool.columns.speakers))
    if boosts.date_weight > 0:
        extra[DATE] = np.flatnonzero(date_rows(query, reference, pool.columns.occurred))
    extra = {name: rows for name, rows in extra.items() if rows.size}
    if not extra:
        return pool
    for name, rows in extra.items():
        pool = with_list(pool, name, rows, config.fusion.method)
    w = {**{s.name.value: s.weight for s in config.signals}, SPEAKER: boosts.speaker_weight,
         DATE: boosts.date_weight}
    return fused(pool, w, config.fusion.method, config.fusion.rrf_k)


def above_floor(ranking: Ranking, floor: float, vector: Candidates, cut: bool) -> Ranking:
    """``ranking`` less the candidates whose cosine with the question is below ``floor``
    (``FilterConfig.floor``). One the vector list did not rank is at most its last score when the list
    was ``cut`` at its pool (kept while that is at or above the floor), and below every ranked one when
    it was not (every record was scored: dropped). A candidate the full-text signal found passes whatever its
    cosine: the floor may shorten the prompt, never hide what a user said from a query of their own words (a
    fact deep in a long message has a low cosine with a short question)."""
    unranked = float(vector.scores[-1]) if cut and len(vector) else -math.inf
    words = ranking.pool.ranks.get(Signal.BM25.value)
    return ranking.above(floor, ranking.pool.signals[Signal.VECTOR.value], unranked,
                         None if words is None else words > 0)


def with_window(store: MemoryStore, user_id: str, hits: list[Hit], window: int, filters: SearchFilters,
                now: datetime | None) -> list[Hit]:
    """``hits`` with their ``context``: the turns up to ``window`` positions before and after each, in its
    session and of its kind, read from the store under the same ``filters`` (so a context turn is one the
    search could have returned), in session order. One read of the hits' windows (``store.neighbours``: by
    position, whatever the length of their sessions); ``window`` 0: as is. A passage of a long message
    (``cbmemory.ingest.passages``) is placed as its message: its context is the message's adjacent turns."""
    if window <= 0 or not hits:
        return hits
    places = [_place(h.record) for h in hits]
    records = store.neighbours(user_id, places, window, filters, now)
    at = {(r.session_id, r.kind, r.position): r for r in records}
    out = []
    for h, (session, kind, position) in zip(hits, places, strict=True):
        near = (at.get((session, kind, position + step)) for step in range(-window, window + 1) if step)
        out.append(replace(h, context=tuple(n for n in near if n is not None)))
    return out


def _place(record: MemoryRecord) -> tuple[str, str, int]:
    """Where a hit's window is: its session, kind and position (a passage's: its message's kind)."""
    place = passage_place(record)
    return record.session_id, record.kind if place is None else place[0], record.position


def shown_once(ranked: list[Hit], k: int, window: int) -> list[Hit]:
    """The first ``k`` of ``ranked`` leaving out each hit inside the window of an earlier one kept
    (``ranking.apart``)."""
    places = ((h.record.session_id, place_kind(h.record.kind, h.record.record_id), h.record.position) for h in ranked)
    return [ranked[i] for i in apart(places, k, window)]


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
    earlier: Mapping[str, Candidates]


def _vector(q: SignalQuery, n: int) -> Candidates:
    return q.store.search_candidates(Signal.VECTOR, q.user_id, q.embed(q.text), n, q.filters, q.now)


def _bm25(q: SignalQuery, n: int) -> Candidates:
    return q.store.search_candidates(Signal.BM25, q.user_id, q.text, n, q.filters, q.now)


def _entity(q: SignalQuery, n: int) -> Candidates:
    # Participants' names are in nearly every turn of their own conversation: not discriminative.
    speakers = {s.lower() for found in q.earlier.values() for s in found.speakers if s}
    phrases = [p for p in extract_entities(q.text) if p.lower() not in speakers]
    if not phrases:
        return Candidates.empty(q.user_id)
    return q.store.search_candidates(Signal.ENTITY, q.user_id, phrases, n, q.filters, q.now)


def _sparse(q: SignalQuery, n: int) -> Candidates:
    if q.encode_sparse is None:
        raise InvalidInputError("the sparse signal needs a sparse query encoder")
    return q.store.search_candidates(Signal.SPARSE, q.user_id, q.encode_sparse(q.text), n, q.filters, q.now)


# Each signal's search: its ``n`` best candidates for the query. A new signal adds its entry here.
SEARCHES: Mapping[Signal, Callable[[SignalQuery, int], Candidates]] = MappingProxyType({
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
    recipe: Searched,
    user_id: str,
    query: str,
    *,
    k: int | None = None,
    filters: SearchFilters | None = None,
    reference_date: datetime | None = None,
    now: datetime | None = None,
    encode_sparse: SparseQueryEncoder | None = None,
    current_only: bool = False,
    as_of: datetime | None = None,
    embed_texts: TextsEmbedder | None = None,
    embed_queries: TextsEmbedder | None = None,
) -> list[Hit]:
    """``recipe``'s top hits for ``query`` within ``user_id``'s memory, each stamped with the recipe name.
    ``encode_sparse``: the query's sparse vector, for recipes with the ``sparse`` signal (required by them).

    Each signal fetches its candidates (``candidates``, by ``SEARCHES``); several signals are fused; then,
    each only when the config asks for it: the speaker and date boosts (the question's period resolved
    against ``reference_date``, else ``now``), the neighbour and session terms (``context_boost``), the BM25
    re-rank of the first ``rerank.pool``, the recency order of the first ``order.pool``; the cut to k; each
    hit's adjacent turns (``window``). Not the token budget: that is the context stage's.

    ``as_of``: the state at that instant (``current``): only memories that occurred by then are searched and
    shown, only changes made by then count, and it is the question's date when ``reference_date`` is None.
    ``current_only``: memories a later one changed are neither hits nor shown in a hit's context.
    ``embed_texts``, ``embed_queries``: the embedder for many documents, many queries at once (the current-value
    stage's batches; without them it embeds one text per call)."""
    config = recipe.retrieval
    if config.uses(Signal.SPARSE) and encode_sparse is None:
        raise InvalidInputError(f"recipe {recipe.name!r} searches sparse vectors: give a sparse query encoder")
    k = resolve_k(config, store, user_id, k)
    f = filters or SearchFilters()
    if as_of is not None:
        reference_date = reference_date if reference_date is not None else as_of
        f = replace(f, occurred_before=as_of if f.occurred_before is None else min(f.occurred_before, as_of))
    changed = Superseded(store, user_id, now, as_of) if current_only else None
    reach = k * DEEPER if changed is not None else k  # hidden hits are made up for from further down
    if config.filters.kinds is not None and f.kinds is None:
        f = replace(f, kinds=config.filters.kinds)
    if config.filters.drop_future and reference_date is not None:
        f = _with_future_filter(f, reference_date)

    echoes = config.filters.echoes
    lists: dict[str, Candidates] = {}
    cut: dict[str, bool] = {}  # whether a list was cut at its pool (records past it unscored)
    for spec in config.signals:  # in Signal order: a signal sees the lists before it (entity: their speakers)
        q = SignalQuery(store, user_id, query, f, now, embed_query, encode_sparse, dict(lists))
        wanted = candidates(config, reach, spec.pool)
        found = SEARCHES[spec.name](q, wanted)
        cut[spec.name.value] = len(found) >= wanted
        lists[spec.name.value] = found if echoes else found.take(~found.echoes)

    pool = fuse(config, lists)
    if config.boosts.active:  # the question's period: reference_date, else now
        pool = boost(config, query, reference_date if reference_date is not None else now, pool)
    shown_apart = config.skip_shown and config.window > 0
    # skipping what an earlier hit's window shows needs up to (2 x window + 1) candidates per hit
    depth = max(reach * (2 * config.window + 1) if shown_apart else reach, config.rerank.depth,
                config.order.depth)
    ranking = (context_boost(config, store, user_id, pool, f, now, depth, echoes) if config.context_boost.active
               else Ranking.of(pool))
    if config.filters.floor is not None:
        ranking = above_floor(ranking, config.filters.floor, lists[Signal.VECTOR.value], cut[Signal.VECTOR.value])
    reordered = config.rerank.method is Rerank.BM25 or config.order.by is Order.RECENCY
    if shown_apart and not reordered and changed is None:  # by place: only the k records returned are read
        ranked = ranking.hits(store, apart(ranking.places(), k, config.window))
    else:
        ranked = ranking.hits(store, range(min(depth, len(ranking.order))))
    if changed is not None:  # a changed memory gives its place to what holds now (current.py)
        ranked = changed.instead(ranked, f)
    if config.rerank.method is Rerank.BM25:
        ranked = bm25_rerank(query, ranked[: config.rerank.pool], k)
    if config.order.by is Order.RECENCY:
        ranked = sorted(ranked[: config.order.pool], key=lambda h: (h.record.occurred_at, h.record.position),
                        reverse=True)
    ranked = shown_once(ranked, k, config.window) if shown_apart and (reordered or changed is not None) \
        else ranked[:k]
    ranked = with_window(store, user_id, ranked, config.window, f, now)
    if changed is None:
        if config.current_value:  # the user's newest statements of the fact asked about (current_value.py)
            ranked = with_current(store, embed_query, user_id, query, ranked, f, now, embed_texts, embed_queries)
        ranked = with_updates(store, user_id, ranked, f, now, as_of)  # what changed a shown memory (updates.py)
    else:  # nothing shown was changed: no update to add
        ranked = changed.without_context(ranked)
    return [replace(h, recipe=recipe.name) for h in ranked]


def explain(hits: list[Hit]) -> list[dict[str, object]]:
    """Per-hit table of each signal's rank and score (``None`` where that signal did not find it)."""
    signals = sorted({s for h in hits for s in h.ranks})
    return [
        {"turn_id": h.record.turn_id, "session_id": h.record.session_id, "score": h.score,
         **{f"{s}_rank": h.ranks.get(s) for s in signals}, **{f"{s}_score": h.signals.get(s) for s in signals}}
        for h in hits
    ]


