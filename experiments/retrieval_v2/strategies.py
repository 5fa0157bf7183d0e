"""Ranking strategies over the harness's cached signal scores (pure numpy; see ``harness.py``).

Each ``make_*`` returns a ranker ``(Question, User) -> record indices best first``. ``default_ranker``
reproduces the ``default`` recipe (vector top 50 + BM25 top 50, min-max weighted fusion, ties by best
rank then record id) so the harness can be checked against the evaluation's own figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from .harness import Question, User

Ranker = Callable[[Question, User], list[int]]


def top(scores: np.ndarray, n: int, *, positive: bool = False) -> np.ndarray:
    """Indices of the ``n`` best scores (ties: lower index first, as the store's rowid tie-break)."""
    idx = np.flatnonzero(scores > 0) if positive else np.arange(scores.size)
    if idx.size > n:
        part = np.argpartition(-scores[idx], n - 1)[:n]
        idx = idx[part]
    order = np.lexsort((idx, -scores[idx]))
    return idx[order]


def fused_scores(q: Question, u: User, *, pool: int = 50, w_vec: float = 1.0, w_bm25: float = 1.0,
                 vec: np.ndarray | None = None, bm25: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    """The default's weighted fusion: (fused score per record, 0 outside the union; union indices; best
    rank per candidate)."""
    vec = q.vec if vec is None else vec
    bm25 = q.bm25 if bm25 is None else bm25
    fused = np.zeros(vec.size)
    best: dict[int, int] = {}
    cands = []
    for scores, w, positive in ((vec, w_vec, False), (bm25, w_bm25, True)):
        idx = top(scores, pool, positive=positive)
        if idx.size == 0:
            continue
        vals = scores[idx].astype(np.float64)
        lo, hi = vals.min(), vals.max()
        norm = (vals - lo) / (hi - lo) if hi > lo else np.ones_like(vals)
        fused[idx] += w * norm
        for r, i in enumerate(idx.tolist(), 1):
            best[i] = min(best.get(i, r), r)
        cands.append(idx)
    union = np.unique(np.concatenate(cands)) if cands else np.empty(0, int)
    return fused, union, best


def order(union: np.ndarray, score: np.ndarray, best: dict[int, int], u: User) -> list[int]:
    return sorted(union.tolist(), key=lambda i: (-score[i], best.get(i, 10**9), u.record_ids[i]))


def default_ranker(q: Question, u: User) -> list[int]:
    fused, union, best = fused_scores(q, u)
    return order(union, fused, best, u)


def make_fusion(pool: int = 50, w_vec: float = 1.0, w_bm25: float = 1.0) -> Ranker:
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool, w_vec=w_vec, w_bm25=w_bm25)
        return order(union, fused, best, u)
    return rank


# ------------------------------------------------------------------ session-level evidence
def session_scores(score: np.ndarray, union: np.ndarray, u: User, agg: str = "max", m: int = 2) -> np.ndarray:
    """Per session, an aggregate of its candidates' scores (sessions without candidates: 0)."""
    out = np.zeros(u.n_sessions)
    by: dict[int, list[float]] = {}
    for i in union.tolist():
        by.setdefault(int(u.sess[i]), []).append(float(score[i]))
    for s, vals in by.items():
        vals.sort(reverse=True)
        if agg == "max":
            out[s] = vals[0]
        elif agg == "topm":
            out[s] = sum(vals[:m]) / m
        elif agg == "sum":
            out[s] = sum(vals)
        else:
            raise ValueError(agg)
    return out


def make_session_boost(lam: float, agg: str = "max", m: int = 2, pool: int = 50) -> Ranker:
    """Turn score + lam * its session's aggregate score (normalised to the best session)."""
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool)
        ss = session_scores(fused, union, u, agg, m)
        if ss.max() > 0:
            ss = ss / ss.max()
        score = fused + lam * ss[u.sess]
        return order(union, score, best, u)
    return rank


def make_session_diverse(penalty: float, pool: int = 50, k: int = 10) -> Ranker:
    """Greedy: each pick's session is penalised for the next picks (score - penalty * picks so far in that
    session), so a second session's best turn can pass a first session's third."""
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool)
        base = order(union, fused, best, u)
        picked: list[int] = []
        count: dict[int, int] = {}
        rest = list(base)
        while rest and len(picked) < k:
            j = max(range(len(rest)), key=lambda t: (fused[rest[t]] - penalty * count.get(int(u.sess[rest[t]]), 0),
                                                     -t))
            i = rest.pop(j)
            picked.append(i)
            count[int(u.sess[i])] = count.get(int(u.sess[i]), 0) + 1
        return picked + rest
    return rank


def make_session_first(n_sessions: int, lam: float = 0.0, agg: str = "max", pool: int = 50) -> Ranker:
    """Session-first: the top ``n_sessions`` sessions by aggregate, then turns within them by score; the
    other candidates after."""
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool)
        ss = session_scores(fused, union, u, agg)
        keep = set(np.argsort(-ss)[:n_sessions].tolist())
        base = order(union, fused, best, u)
        return [i for i in base if int(u.sess[i]) in keep] + [i for i in base if int(u.sess[i]) not in keep]
    return rank


# ------------------------------------------------------------------ neighbours
def make_neighbour_smooth(alpha: float, pool: int = 50, both: bool = True) -> Ranker:
    """Each candidate's score + alpha * the best of its adjacent turns' scores (turns next to a strong match
    rise; the list still holds k memories)."""
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool)
        nb = np.zeros_like(fused)
        prev_s = np.where(u.prev >= 0, fused[np.maximum(u.prev, 0)], 0.0)
        next_s = np.where(u.next >= 0, fused[np.maximum(u.next, 0)], 0.0)
        nb = np.maximum(prev_s, next_s) if both else next_s
        score = fused + alpha * nb
        cand = np.unique(np.concatenate([union, np.flatnonzero(score > 0)]))
        return order(cand, score, best, u)
    return rank


def make_neighbour_slots(n_hits: int, pool: int = 50, side: str = "next") -> Ranker:
    """The top ``n_hits`` each followed by its neighbour(s) (``next``, ``prev`` or ``both``), duplicates
    skipped, then the rest: the neighbours take slots of the k."""
    def rank(q: Question, u: User) -> list[int]:
        fused, union, best = fused_scores(q, u, pool=pool)
        base = order(union, fused, best, u)
        out: list[int] = []
        seen: set[int] = set()
        for i in base[:n_hits]:
            group = [i]
            if side in ("prev", "both") and u.prev[i] >= 0:
                group.insert(0, int(u.prev[i]))
            if side in ("next", "both") and u.next[i] >= 0:
                group.append(int(u.next[i]))
            for j in group:
                if j not in seen:
                    seen.add(j)
                    out.append(j)
        return out + [i for i in base if i not in seen]
    return rank


# ------------------------------------------------------------------ question types
_TEMPORAL = re.compile(r"\b(when|what (year|month|date|day|time)|how long|since when|before|after|"
                       r"which (year|month))\b", re.I)
_MULTI = re.compile(r"\b(both|and|which .* more|compare|common|in common|what (are|were)|how many|"
                    r"what (activities|books|things|kinds?|types?)|all)\b", re.I)


def qtype(question: str) -> str:
    """A rule-based class of a question: temporal, list (several facts asked), or other."""
    if _TEMPORAL.search(question):
        return "temporal"
    if _MULTI.search(question):
        return "list"
    return "other"


# ------------------------------------------------------------------ combined
def v2_scores(q: Question, u: User, *, pool: int = 50, alpha: float = 0.5, lam: float = 1.0, agg: str = "max",
              w_vec: float = 1.0, vec: np.ndarray | None = None, bm25: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    """Fused score + alpha * the best adjacent turn's fused score + lam * the session's aggregate of fused
    scores (normalised to the best session); candidates: the union and its neighbours."""
    fused, union, best = fused_scores(q, u, pool=pool, w_vec=w_vec, vec=vec, bm25=bm25)
    score = fused.copy()
    if alpha:
        prev_s = np.where(u.prev >= 0, fused[np.maximum(u.prev, 0)], 0.0)
        next_s = np.where(u.next >= 0, fused[np.maximum(u.next, 0)], 0.0)
        score += alpha * np.maximum(prev_s, next_s)
    if lam:
        ss = session_scores(fused, union, u, agg)
        if ss.max() > 0:
            score += lam * ss[u.sess] / ss.max()
    cand = union
    if alpha:
        nb = np.concatenate([u.prev[union], u.next[union]])
        cand = np.unique(np.concatenate([union, nb[nb >= 0]]))
    return score, cand, best


def make_v2(pool: int = 50, alpha: float = 0.5, lam: float = 1.0, agg: str = "max", w_vec: float = 1.0) -> Ranker:
    def rank(q: Question, u: User) -> list[int]:
        score, cand, best = v2_scores(q, u, pool=pool, alpha=alpha, lam=lam, agg=agg, w_vec=w_vec)
        return order(cand, score, best, u)
    return rank
