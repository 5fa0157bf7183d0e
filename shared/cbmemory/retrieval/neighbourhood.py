"""The neighbour and session terms of a search (``ContextBoostConfig``): each candidate rescored by the evidence
around it (the best score of its adjacent turns and of its session), and the adjacent turns that are no candidate
joined, found by position (no record read). ``engine.retrieve`` runs it after fusion and the boosts."""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from ..models import SearchFilters
from ..store.base import MemoryStore
from ..store.candidates import Candidates
from .config import NEIGHBOUR, SESSION, RetrievalConfig
from .pool import Pool, ranked_order
from .ranking import Ranking


def _codes(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct values in first-seen order, and each row's index among them."""
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values.tolist()), np.int64, values.size)
    return list(index), codes


def _groups(c: Candidates) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Each row's session (index into the session ids returned) and its (session, kind) group."""
    names, session = _codes(c.sessions)
    kinds, kind = _codes(c.kinds)
    return names, session, session * len(kinds) + kind


def _adjacent(group: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row, the row of the turn before and after it in its (session, kind) ``group`` when that turn
    is a candidate too, else -1."""
    low = min(int(positions.min()), 0)
    code = group.astype(np.int64) * (int(positions.max()) - low + 3) + (positions - low + 1)
    order = np.argsort(code, kind="stable")
    sorted_code = code[order]

    def find(target: np.ndarray) -> np.ndarray:
        j = np.minimum(np.searchsorted(sorted_code, target), sorted_code.size - 1)
        return np.where(sorted_code[j] == target, order[j], -1)
    return find(code - 1), find(code + 1)


def _joined(store: MemoryStore, user_id: str, c: Candidates, s: np.ndarray, reach: np.ndarray,
            filters: SearchFilters, now: datetime | None, echoes: bool) -> tuple[Candidates, np.ndarray]:
    """The turns next to the candidates at ``reach`` that are no candidates (echoes only with ``echoes``),
    found by position (no record read), each with the larger score of the candidates next to it."""
    anchors = [(c.sessions[i], c.kinds[i], int(c.positions[i])) for i in reach]
    around = store.neighbour_candidates(user_id, anchors, 1, filters, now)
    if not len(around):
        return around, np.empty(0)
    sessions = set(around.sessions.tolist())
    at: dict[tuple[str, str, int], float] = {
        (sess, kind, pos): score for sess, kind, pos, score
        in zip(c.sessions.tolist(), c.kinds.tolist(), c.positions.tolist(), s.tolist(), strict=True)
        if sess in sessions}
    keep: list[int] = []
    near: list[float] = []
    seen: set[str] = set()
    for i, (sess, kind, pos, rid, echo) in enumerate(zip(around.sessions.tolist(), around.kinds.tolist(),
                                                         around.positions.tolist(), around.ids.tolist(),
                                                         around.echoes.tolist(), strict=True)):
        if (sess, kind, pos) in at or rid in seen or (echo and not echoes):
            continue
        sides = (at.get((sess, kind, pos + d)) for d in (-1, 1))
        seen.add(rid)
        keep.append(i)
        near.append(max([0.0, *(x for x in sides if x is not None)]))
    return around.take(np.array(keep, dtype=np.int64)), np.array(near)


def context_boost(config: RetrievalConfig, store: MemoryStore, user_id: str, pool: Pool,
                  filters: SearchFilters, now: datetime | None, depth: int, echoes: bool = True) -> Ranking:
    """``pool`` (fused and boosted) rescored by the evidence around each candidate, best first:

    score + ``neighbour_weight`` x the larger score of its two adjacent turns in its session (same kind; 0
    for a turn that is no candidate) + ``session_weight`` x its session's best candidate score / the best
    score of all. With ``neighbour_weight``, the candidates' adjacent turns join the candidates (read from
    the store under the same ``filters``, scored by those terms alone; echoes only with ``echoes``). Only
    the adjacent turns of candidates that could reach the first ``depth`` are read (``store.neighbours``,
    by position): the first ``depth`` are exactly those of reading every candidate's session. Ties: the
    better rank in any signal list, then the record id. Each hit's ``signals`` gain ``neighbour`` and
    ``session`` (the two terms before weighting). No candidate's record is read here (``Ranking.hits``)."""
    n = len(pool)
    if not n:
        return Ranking.of(pool)
    nw, sw = config.context_boost.neighbour_weight, config.context_boost.session_weight
    c, s = pool.columns, pool.scores
    best = float(s.max())
    names, session, group = _groups(c)
    term = np.zeros(n)
    session_term = np.zeros(len(names))
    if sw > 0 and best > 0:
        top = np.full(len(names), -np.inf)
        np.maximum.at(top, session, s)
        session_term = top / best
        term = session_term[session]
    adjacent = np.zeros(n)
    joined, near = Candidates.empty(user_id), np.empty(0)  # adjacent turns that are no candidate, their term
    if nw > 0:
        for side in _adjacent(group, c.positions):
            adjacent = np.maximum(adjacent, np.where(side >= 0, s[side], 0.0))
        own = np.sort(s + nw * adjacent + sw * term)[::-1]
        bar = own[depth - 1] if own.size >= depth else -math.inf
        reach = np.flatnonzero(nw * s + sw * term >= bar)  # a joined turn scores at most this
        if reach.size:  # the turns next to them, found by position (never their whole sessions)
            joined, near = _joined(store, user_id, c, s, reach, filters, now, echoes)
    final = s + nw * adjacent + sw * term
    of_session = dict(zip(names, session_term.tolist(), strict=True))
    joined_term = np.array([of_session.get(sess, 0.0) for sess in joined.sessions.tolist()])
    everything = np.concatenate([final, nw * near + sw * joined_term])
    rank = np.concatenate([pool.best_rank(), np.full(len(joined), np.inf)])
    order = ranked_order(everything, rank, np.concatenate([c.ids, joined.ids]))
    terms = {NEIGHBOUR: np.concatenate([adjacent, near]), SESSION: np.concatenate([term, joined_term])}
    return Ranking(pool, order, everything, terms, joined)


__all__ = ["context_boost"]
