"""In-process harness for retrieval experiments on LoCoMo dev (issue 16): every signal's scores per question,
computed once from the evaluation's own cached SQLite store and kept in a pickle, so a ranking strategy is
scored on all 1,586 questions in seconds, with 2-fold cross-validation by conversation built in.

What is cached per haystack scale (``build``):

- per conversation (one user): its turn records in the store's own order (the order of the store's vector
  matrix and full-text index), with session index, position, speaker, date, the token count of the line the
  context stage renders for it, and the indices of the turns before and after it in its session;
- per question: the cosine of every record with the question vector (the ``vector`` signal over all
  records) and the BM25 of every record (the ``bm25`` signal, the store's own scorer), so the top-N of either
  signal at any N is a slice.

Full-text scoring with other queries (pseudo-relevance feedback, decomposed questions) goes through
``Corpus.bm25_terms`` on the store's own index (needs the store open: ``load(..., live=True)``).

The store is found by the evaluation's naming rule (``cbmemory_eval.run_state.store_file_name``) in ``--cache-dir``; build it
once with ``cbmemory eval locomo ... --cache-dir DIR`` (``--scale 10`` for the x10 store).

    nice -n 15 .venv/bin/python -m experiments.retrieval_v2.harness --cache-dir /tmp/rv2_stores --scale 1
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "locomo" / "locomo-dev.json"
CACHE = Path("/tmp/rv2_cache")
EMBEDDER = "all-MiniLM-L6-v2-int8-onnx"
# The fixed split of the issue: conversations sorted by id, alternately assigned.
FOLD_A = ("conv-26", "conv-41", "conv-43", "conv-47")
FOLD_B = ("conv-30", "conv-42", "conv-44", "conv-48")
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")


@dataclass
class User:
    user_id: str
    record_ids: list[str]
    turn_ids: list[str]
    session_ids: list[str]
    sess: np.ndarray  # session index (into session_ids order of first appearance)
    pos: np.ndarray  # position in session
    speaker: list[str]
    occurred: np.ndarray  # unix seconds
    tokens: np.ndarray  # context-stage line tokens of each record
    prev: np.ndarray  # index of the turn before in the same session, -1 if none
    next: np.ndarray  # index of the turn after, -1 if none
    text: list[str]
    n_sessions: int = 0


@dataclass
class Question:
    qid: str
    user_id: str
    question: str
    category: str
    evidence: tuple[str, ...]
    evidence_sessions: tuple[str, ...]
    qdate: float
    vec: np.ndarray  # cosine of every record of the user
    bm25: np.ndarray  # BM25 of every record (0: no query term)
    qvec: np.ndarray | None = None


@dataclass
class Corpus:
    scale: int
    header_tokens: int
    users: dict[str, User]
    questions: list[Question]
    store: Any = None  # the open SQLiteStore (live=True)
    _cols: dict[str, Any] = field(default_factory=dict)
    _embedder: Any = None
    _emb_cache: dict[str, np.ndarray] = field(default_factory=dict)

    # ---------------------------------------------------------------- live scoring
    def columns(self, user_id: str) -> Any:
        if user_id not in self._cols:
            with self.store._db.tx(write=False) as c:
                self._cols[user_id] = self.store._db.refresh(c, user_id)
        return self._cols[user_id]

    def bm25_terms(self, user_id: str, terms: Sequence[int], weights: Sequence[float] | None = None) -> np.ndarray:
        """BM25 of every record of the user for these term ids (the store's scorer), each term's part
        multiplied by its weight (RM3-style weighted queries)."""
        m = self.columns(user_id)
        live = np.ones(m.n, bool)
        if weights is None:
            return m.lexical.bm25([np.array([t], np.int64) for t in terms], live)
        out = np.zeros(m.n)
        for t, w in zip(terms, weights, strict=True):
            out += w * m.lexical.bm25([np.array([t], np.int64)], live)
        return out

    def bm25_text(self, user_id: str, text: str) -> np.ndarray:
        from cbmemory.store import lexical
        from cbmemory.text import content_words

        return self.bm25_terms(user_id, lexical.query_terms(content_words(text)).tolist())

    def record_terms(self, user_id: str) -> list[np.ndarray]:
        """Term ids of each record (both fields), from the store's index."""
        key = "terms:" + user_id
        if key not in self._cols:
            lex = self.columns(user_id).lexical
            seq, owner = lex.seq[: lex.size], lex.owner[: lex.size]
            keep = seq != 0
            seq, owner = seq[keep], owner[keep]
            bounds = np.searchsorted(owner, np.arange(lex.n + 1))
            self._cols[key] = [seq[bounds[i]: bounds[i + 1]] for i in range(lex.n)]
        return self._cols[key]

    def embed(self, text: str) -> np.ndarray:
        if text not in self._emb_cache:
            if self._embedder is None:
                from cbmemory.embedding.onnx import MiniLMEmbedder

                self._embedder = MiniLMEmbedder()
            self._emb_cache[text] = self._embedder.embed_query(text)
        return self._emb_cache[text]

    def vec_scores(self, user_id: str, qv: np.ndarray) -> np.ndarray:
        m = self.columns(user_id)
        return m.vectors[: m.n] @ np.asarray(qv, np.float32)


def _store_path(cache_dir: Path, scale: int, ingest: Any = None) -> tuple[Path, Any]:
    from cbmemory.recipes import RECIPES
    from cbmemory_eval.datasets.locomo import load_locomo
    from cbmemory_eval.questions import from_locomo
    from cbmemory_eval.run_state import haystack_fingerprint, store_file_name
    from cbmemory_eval.scale import scaled_haystacks

    convs = load_locomo(DATA)
    hs = scaled_haystacks(convs, scale, others=convs, seed=0) if scale > 1 else None
    es = from_locomo(convs, haystacks=hs)
    name = store_file_name(haystack_fingerprint(es), ingest or RECIPES["default"].ingest, EMBEDDER)
    return cache_dir / name, es


def open_store(cache_dir: Path, scale: int, ingest: Any = None) -> tuple[Any, Any]:
    from cbmemory.store.sqlite import SQLiteStore

    path, es = _store_path(cache_dir, scale, ingest)
    if not path.exists():
        raise SystemExit(f"no store {path}: run cbmemory eval locomo --scale {scale} --cache-dir {cache_dir}")
    return SQLiteStore(path, create=False, read_only=True), es


def build(cache_dir: Path, scale: int, qvecs: dict[str, np.ndarray] | None = None) -> Corpus:
    from cbmemory.context import DEFAULT_CONTEXT, count_tokens, header, line_tokens
    from cbmemory.models import Hit
    from cbmemory.store import lexical
    from cbmemory.text import content_words

    store, es = open_store(cache_dir, scale)
    corpus = Corpus(scale, count_tokens(header(DEFAULT_CONTEXT)), {}, [], store)
    for user_id in sorted(es.haystacks):
        m = corpus.columns(user_id)
        if m.n != es.haystacks[user_id].turns:  # not (fully) ingested yet: left out
            print(f"{user_id}: {m.n} of {es.haystacks[user_id].turns} records, left out", file=sys.stderr)
            corpus._cols.pop(user_id)
            continue
        with store._db.tx(write=False) as c:
            recs = store._db.records_by_rowid(c, user_id, m, m.rowids[: m.n].tolist())
        records = [recs[int(r)] for r in m.rowids[: m.n]]
        assert all(r.kind == "turn" for r in records)
        sids: dict[str, int] = {}
        sess = np.array([sids.setdefault(r.session_id, len(sids)) for r in records])
        pos = np.array([r.position for r in records])
        where = {(int(s), int(p)): i for i, (s, p) in enumerate(zip(sess, pos, strict=True))}
        prev = np.array([where.get((int(s), int(p) - 1), -1) for s, p in zip(sess, pos, strict=True)])
        nxt = np.array([where.get((int(s), int(p) + 1), -1) for s, p in zip(sess, pos, strict=True)])
        corpus.users[user_id] = User(
            user_id, [r.record_id for r in records], [r.turn_id or r.record_id for r in records], list(sids),
            sess, pos, [r.speaker or r.role for r in records],
            np.array([r.occurred_at.timestamp() for r in records]),
            np.array([line_tokens(Hit(r, 0.0), DEFAULT_CONTEXT) for r in records]), prev, nxt,
            [r.text for r in records], len(sids))
        print(f"{user_id}: {m.n} records, {len(sids)} sessions", file=sys.stderr)
    if qvecs is None:
        from cbmemory.embedding.onnx import MiniLMEmbedder

        emb = MiniLMEmbedder()
        start = time.perf_counter()
        qvecs = {q.question: emb.embed_query(q.question) for q in es.questions}
        print(f"embedded {len(qvecs)} questions in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    for q in es.questions:
        if q.user_id not in corpus.users:
            continue
        qv = qvecs[q.question]
        terms = lexical.query_terms(content_words(q.question)).tolist()
        corpus.questions.append(Question(
            q.question_id, q.user_id, q.question, q.category, tuple(q.evidence), tuple(q.evidence_sessions),
            q.question_date.timestamp(), corpus.vec_scores(q.user_id, qv).astype(np.float32),
            corpus.bm25_terms(q.user_id, terms).astype(np.float32), qv))
    return corpus


def cache_path(scale: int) -> Path:
    return CACHE / f"x{scale}.pkl"


def save(corpus: Corpus) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(cache_path(corpus.scale), "wb") as f:
        pickle.dump((corpus.scale, corpus.header_tokens, corpus.users, corpus.questions), f)


def load(scale: int = 1, *, live: bool = False, cache_dir: Path = Path("/tmp/rv2_stores")) -> Corpus:
    with open(cache_path(scale), "rb") as f:
        s, header_tokens, users, questions = pickle.load(f)
    corpus = Corpus(s, header_tokens, users, questions)
    if live:
        corpus.store, _ = open_store(cache_dir, scale)
    return corpus


# -------------------------------------------------------------------- scoring
Ranker = Callable[[Question, User], list[int]]  # record indices, best first (k of them, or more)


def score_question(q: Question, u: User, ranked: Sequence[int], k: int, header_tokens: int) -> dict[str, float]:
    from cbmemory_eval.metrics import retrieval_metrics

    top = list(ranked)[:k]
    units = [frozenset((u.turn_ids[i],)) for i in top]
    m = retrieval_metrics(q.evidence, units, [k])
    sessions = [frozenset((u.session_ids[u.sess[i]],)) for i in top]
    ms = retrieval_metrics(q.evidence_sessions, sessions, [k], prefix="session_")
    out = {f"recall@{k}": m[f"recall@{k}"], f"recall_all@{k}": m[f"recall_all@{k}"],
           f"session_recall_all@{k}": ms[f"session_recall_all@{k}"],
           f"tokens@{k}": float(header_tokens + sum(int(u.tokens[i]) for i in top)) if top else 0.0}
    return out


def evaluate(corpus: Corpus, ranker: Ranker, *, k: int = 10, users: Sequence[str] | None = None
             ) -> dict[str, dict[str, float]]:
    """Mean metrics per category and overall (questions with evidence), over ``users`` (default all)."""
    chosen = set(users) if users is not None else None
    rows: dict[str, list[dict[str, float]]] = {}
    for q in corpus.questions:
        if chosen is not None and q.user_id not in chosen:
            continue
        if not q.evidence:
            continue
        u = corpus.users[q.user_id]
        m = score_question(q, u, ranker(q, u), k, corpus.header_tokens)
        rows.setdefault(q.category, []).append(m)
        rows.setdefault("overall", []).append(m)
    out: dict[str, dict[str, float]] = {}
    for cat, ms in rows.items():
        keys = ms[0].keys()
        out[cat] = {key: float(np.mean([x[key] for x in ms if x[key] is not None])) for key in keys}
        out[cat]["n"] = len(ms)
    return out


def cv_select(corpus: Corpus, candidates: dict[str, Ranker], *, metric: str = "recall@10",
              category: str = "overall", k: int = 10) -> dict[str, Any]:
    """2-fold CV by conversation: the best candidate on each fold, scored on the other fold."""
    res: dict[str, Any] = {"per_fold": {}}
    scores = {}
    for fold, users in (("A", FOLD_A), ("B", FOLD_B)):
        scores[fold] = {name: evaluate(corpus, r, k=k, users=users) for name, r in candidates.items()}
    for train, test in (("A", "B"), ("B", "A")):
        best = max(candidates, key=lambda n: scores[train][n][category][metric])
        res["per_fold"][test] = {"chosen_on": train, "choice": best, "held_out": scores[test][best]}
    res["scores"] = scores
    return res


def table(rows: dict[str, dict[str, dict[str, float]]], metric: str = "recall@10") -> str:
    cats = ("overall", *CATEGORIES)
    lines = ["| row | " + " | ".join(cats) + " |", "|---" * (len(cats) + 1) + "|"]
    for name, res in rows.items():
        lines.append(f"| {name} | " + " | ".join(f"{res[c][metric]:.3f}" if c in res else "-" for c in cats) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:  # noqa: C901
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache-dir", type=Path, default=Path("/tmp/rv2_stores"))
    p.add_argument("--scale", type=int, default=1)
    args = p.parse_args(argv)
    if __name__ == "__main__":  # pickle the classes under their importable module name
        from experiments.retrieval_v2 import harness

        return harness.main(argv)
    qvecs = None
    if args.scale != 1 and cache_path(1).exists():
        qvecs = {q.question: q.qvec for q in load(1).questions}
    start = time.perf_counter()
    corpus = build(args.cache_dir, args.scale, qvecs)
    save(corpus)
    print(f"x{args.scale}: {len(corpus.questions)} questions, {sum(len(u.record_ids) for u in corpus.users.values())} "
          f"records, {time.perf_counter() - start:.0f} s -> {cache_path(args.scale)}", file=sys.stderr)


if __name__ == "__main__":
    main()
