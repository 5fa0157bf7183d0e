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
    score, cand = rescore(fused, union, u, alpha, lam, agg)
    return score, cand, best


def rescore(fused: np.ndarray, union: np.ndarray, u: User, alpha: float, lam: float, agg: str = "max"
            ) -> tuple[np.ndarray, np.ndarray]:
    """The neighbour and session terms over ``fused`` (read as 0 outside ``union``): each record's score,
    and the candidates (the union and, with ``alpha``, its neighbours)."""
    mask = np.zeros(fused.size, bool)
    mask[union] = True
    f = np.where(mask, fused, 0.0)
    score = f.copy()
    if alpha:
        prev_s = np.where(u.prev >= 0, f[np.maximum(u.prev, 0)], 0.0)
        next_s = np.where(u.next >= 0, f[np.maximum(u.next, 0)], 0.0)
        score += alpha * np.maximum(prev_s, next_s)
    if lam:
        ss = session_scores(f, union, u, agg)
        if ss.max() > 0:
            score += lam * ss[u.sess] / ss.max()
    cand = union
    if alpha:
        nb = np.concatenate([u.prev[union], u.next[union]])
        cand = np.unique(np.concatenate([union, nb[nb >= 0]]))
    return score, cand


def make_v2(pool: int = 50, alpha: float = 0.5, lam: float = 1.0, agg: str = "max", w_vec: float = 1.0) -> Ranker:
    def rank(q: Question, u: User) -> list[int]:
        score, cand, best = v2_scores(q, u, pool=pool, alpha=alpha, lam=lam, agg=agg, w_vec=w_vec)
        return order(cand, score, best, u)
    return rank


def diversify(score: np.ndarray, ranked: list[int], u: User, penalty: float, k: int = 10) -> list[int]:
    """Greedy re-pick of the first k: each pick's session costs ``penalty`` per earlier pick from it."""
    if penalty <= 0:
        return ranked
    rest = list(ranked[: 4 * k])
    picked: list[int] = []
    count: dict[int, int] = {}
    while rest and len(picked) < k:
        j = max(range(len(rest)), key=lambda t: (score[rest[t]] - penalty * count.get(int(u.sess[rest[t]]), 0), -t))
        i = rest.pop(j)
        picked.append(i)
        count[int(u.sess[i])] = count.get(int(u.sess[i]), 0) + 1
    return picked + rest + list(ranked[4 * k:])


_LIST = re.compile(r"^(what|which|how many)\b.*\b(has|have|did|does|do)\b", re.I)
_PLURAL_ASK = re.compile(r"^(what|which)\s+(\w+\s+){0,3}?(\w+s)\b", re.I)


def is_list_question(question: str) -> bool:
    """Rule (written before any fold was scored): the question asks for several things (how many, both,
    what/which + a plural noun, 'X and Y')."""
    q = question.strip()
    if re.search(r"\b(both|how many|in common|what are|what were|which .* and)\b", q, re.I):
        return True
    m = _PLURAL_ASK.match(q)
    return bool(m and not m.group(3).lower().endswith(("ss", "is", "us", "does", "has", "was")))


def make_v2_routed(penalty: float, pool: int = 100, alpha: float = 0.5, lam: float = 0.5,
                   route: Callable[[str], bool] = is_list_question) -> Ranker:
    def rank(q: Question, u: User) -> list[int]:
        score, cand, best = v2_scores(q, u, pool=pool, alpha=alpha, lam=lam)
        ranked = order(cand, score, best, u)
        return diversify(score, ranked, u, penalty) if route(q.question) else ranked
    return rank


# ------------------------------------------------------------------ pseudo-relevance feedback (RM3-style)
class PRF:
    """Expansion terms from the first ``m`` hits of default_v2, weighted by tf/len x idf x the hit's score;
    the full-text scores become orig + beta x (expansion BM25 scaled to orig's maximum)."""

    def __init__(self, corpus) -> None:
        from cbmemory.store.lexical import term_id
        from cbmemory.text import STOPWORDS

        self.corpus = corpus
        self.stop = {term_id(w) for w in STOPWORDS}
        self.df: dict[str, dict[int, int]] = {}
        self.cache: dict[tuple[str, int, int], np.ndarray] = {}

    def _df(self, user_id: str) -> dict[int, int]:
        if user_id not in self.df:
            df: dict[int, int] = {}
            for terms in self.corpus.record_terms(user_id):
                for t in set(terms.tolist()):
                    df[t] = df.get(t, 0) + 1
            self.df[user_id] = df
        return self.df[user_id]

    def expansion(self, q: Question, u: User, m: int, n_terms: int) -> np.ndarray:
        key = (q.qid, m, n_terms)
        if key in self.cache:
            return self.cache[key]
        from cbmemory.store import lexical
        from cbmemory.text import content_words

        score, cand, best = v2_scores(q, u, pool=100, alpha=0.5, lam=0.5)
        fb = order(cand, score, best, u)[:m]
        terms_of = self.corpus.record_terms(q.user_id)
        df, n = self._df(q.user_id), len(u.record_ids)
        qterms = set(lexical.query_terms(content_words(q.question)).tolist())
        weight: dict[int, float] = {}
        for i in fb:
            ts = terms_of[i]
            if ts.size == 0:
                continue
            vals, counts = np.unique(ts, return_counts=True)
            for t, cnt in zip(vals.tolist(), counts.tolist(), strict=True):
                if t in self.stop or t in qterms:
                    continue
                idf = np.log((n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
                if idf <= 0:
                    continue
                weight[t] = weight.get(t, 0.0) + cnt / ts.size * idf * float(score[i])
        chosen = sorted(weight, key=lambda t: -weight[t])[:n_terms]
        exp = self.corpus.bm25_terms(q.user_id, chosen, [weight[t] for t in chosen]) if chosen else np.zeros(n)
        self.cache[key] = exp
        return exp


def make_prf(prf: PRF, m: int, n_terms: int, beta: float) -> Ranker:
    def rank(q: Question, u: User) -> list[int]:
        bm25 = q.bm25
        if beta > 0:
            exp = prf.expansion(q, u, m, n_terms)
            if exp.max() > 0 and bm25.max() > 0:
                bm25 = bm25 + beta * exp * (bm25.max() / exp.max())
        score, cand, best = v2_scores(q, u, pool=100, alpha=0.5, lam=0.5, bm25=bm25)
        return order(cand, score, best, u)
    return rank


# ------------------------------------------------------------------ decomposition without an LLM
_NAMES_AND = re.compile(r"\b(?:both\s+)?([A-Z][a-z]+)\s+and\s+([A-Z][a-z]+)\b")
_CLAUSE_AND = re.compile(r"\s+and\s+(?=(?:what|when|where|which|who|how|did|does|do|is|was|has|have)\b)", re.I)


def decompose(question: str) -> list[str]:
    """Sub-questions of a conjunction or comparison, by rule (none when the rules do not apply):
    'A and B' between two capitalised names -> one question per name ('both' dropped); two clauses joined by
    'and' + a question word -> the clauses; 'which ... more/better, X or Y' -> one question per option."""
    q = question.strip()
    m = _NAMES_AND.search(q)
    if m:
        head, tail = q[: m.start()], q[m.end():]
        head = re.sub(r"\bboth\s+$", "", head)
        tail = re.sub(r"\s+both\b", "", tail)
        return [f"{head}{name}{tail}" for name in (m.group(1), m.group(2))]
    parts = _CLAUSE_AND.split(q)
    if len(parts) > 1:
        return parts
    m = re.search(r"\b(more|better|less|most|first)\b.*?,?\s*([\w' ]+?)\s+or\s+([\w' ]+?)\??$", q, re.I)
    if m and q.lower().startswith(("which", "who", "what")):
        stem = q[: m.start(2)].rstrip(", ")
        return [f"{stem} {m.group(2)}", f"{stem} {m.group(3)}"]
    return []


def make_decomposed(corpus, gamma: float, alpha: float = 0.5, lam: float = 0.5, pool: int = 100) -> Ranker:
    """Full question's fused score + gamma x the mean of the sub-questions' fused scores, then the
    neighbour and session terms."""
    def rank(q: Question, u: User) -> list[int]:
        subs = decompose(q.question) if gamma > 0 else []
        fused, union, best = fused_scores(q, u, pool=pool)
        if subs:
            fused = fused.copy()
            cands = [union]
            for s in subs:
                vec = corpus.vec_scores(q.user_id, corpus.embed(s))
                bm = corpus.bm25_text(q.user_id, s)
                f_s, u_s, b_s = fused_scores(q, u, pool=pool, vec=vec, bm25=bm)
                fused += gamma * f_s / len(subs)
                cands.append(u_s)
                for i, r in b_s.items():
                    best[i] = min(best.get(i, r), r)
            union = np.unique(np.concatenate(cands))
        return _v2_order(fused, union, best, u, alpha, lam)
    return rank


def _v2_order(fused: np.ndarray, union: np.ndarray, best: dict[int, int], u: User, alpha: float,
              lam: float) -> list[int]:
    score, cand = rescore(fused, union, u, alpha, lam)
    return order(cand, score, best, u)
