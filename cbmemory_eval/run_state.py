"""The state of one evaluation run and the evaluation of one row on one question: the stores it opens
(one SQLite memory per haystack, ingest setting and embedder, named by their fingerprint), the retrieval
metrics at every cut-off, and the JSON record written for each (row, question)."""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cbmemory import Hit, IngestResult, MemoryRecord
from cbmemory.context import DEFAULT_CONTEXT, ContextConfig, context_tokens, fit, format_context
from cbmemory.dates import utcnow
from cbmemory.ingest import DEFAULT_INGEST, IngestConfig
from cbmemory.recipes import recipe_hits
from cbmemory.retrieval import Signal
from cbmemory.store import SCHEMA_VERSION

from .baselines import baseline_hits
from .metrics import recall, recall_all, retrieval_metrics, session_units
from .questions import EvalQuestion, EvalSet, Haystack
from .rows import Row

TEXT_CHARS = 300
# Token budgets of what the reader gets (issue 25): rows compared at equal tokens, not equal k. 2,048 is the
# default's reader budget (``READER_BUDGET``); 512 and 1,024 its half and quarter.
TOKEN_BUDGETS = (512, 1024, 2048)
# The equal-token list's depth, apart from ``--ks``: a search first asks for this many hits (or the largest
# cut-off, if more), and twice as many while all it asked for fit the largest budget with room (LoCoMo turns
# without a window are ~45 tokens, so 2,048 tokens hold ~45 of them; 50 hits fell short on a third to a half
# of the questions), up to ``BUDGET_DEPTH_MAX``.
BUDGET_DEPTH = 100
BUDGET_DEPTH_MAX = 800


def haystack_fingerprint(eval_set: EvalSet) -> str:
    """sha256 over every haystack's sessions and turns: stores are keyed by it, so a changed file or a
    different scale never reuses a stale store."""
    h = hashlib.sha256(eval_set.dataset.encode())
    for user_id in sorted(eval_set.haystacks):
        h.update(b"\x1eU" + user_id.encode())
        hash_sessions(h, eval_set.haystacks[user_id])
    return h.hexdigest()


def hash_sessions(h: Any, haystack: Haystack) -> Any:
    """``h`` (a hashlib object) updated with every session and turn of ``haystack``, and returned."""
    for s in haystack.sessions:
        h.update(f"\x1eS{s.session_id}\x1f{s.date.isoformat()}".encode())
        for m in s.messages:
            ann = json.dumps(dict(m.annotations), sort_keys=True)
            h.update(f"\x1eM{m.role}\x1f{m.speaker}\x1f{m.turn_id}\x1f{ann}\x1f{m.content}".encode())
    return h


def store_file_name(fingerprint: str, ingest: IngestConfig, embedder: str) -> str:
    """The store file of one (haystack, ingest setting, embedder): a new store layout gets new files, not a
    refusal."""
    key = f"{fingerprint}|{ingest.key}|{embedder}|schema={SCHEMA_VERSION}"
    return hashlib.sha256(key.encode()).hexdigest()[:16] + ".db"


def turn_ids(r: MemoryRecord) -> tuple[str, ...]:
    """The turns a record stands for: a derived record's (round, summary, event) sources, a turn itself (its
    ``source_ids`` name what it restates, which it does not stand for), a passage its message's turn."""
    if r.kind == "passage":
        return (r.turn_id or (r.source_ids or (r.record_id,))[0],)
    return (r.source_ids if r.kind != "turn" else ()) or (r.turn_id or r.record_id,)


def _units(hits: Sequence[Hit], *, context: bool = True) -> tuple[list[frozenset[str]], list[str]]:
    """Each hit as the turns the reader gets from it: its own and (``context``) its window's."""
    turns = [frozenset(t for r in (h.record, *(h.context if context else ())) for t in turn_ids(r))
             for h in hits]
    return turns, [h.record.session_id for h in hits]


def budget_metrics(evidence: Sequence[str], hits: Sequence[Hit], shown: ContextConfig = DEFAULT_CONTEXT,
                   budgets: Sequence[int] = TOKEN_BUDGETS, *, depth: int | None = None) -> dict[str, float | None]:
    """Evidence recall at equal tokens: for each budget B, the hits in rank order, each with its window,
    kept while their context fits B tokens (``cbmemory.context.fit``, the context stage's rule, the one
    ``tokens@k`` counts with: a hit that does not fit what is left is kept without its window or skipped,
    and the later ones are still tried). ``recall@Bt`` and
    ``recall_all@Bt`` over the evidence turns covered by what fits (``None`` without evidence); ``hits@Bt``,
    how many hits fit; ``deep_enough@Bt``, 0 when all of a search asked for ``depth`` hits fit with room to
    spare (a deeper search would have shown more), else 1 (a hit was left out, or the search returned fewer
    than ``depth``: the recipe's own budget or the memory ended it; always 1 without a ``depth``)."""
    m: dict[str, float | None] = {}
    for b in budgets:
        kept = fit(hits, b, shown)
        n, turns = len(kept), _units(kept)[0]
        m[f"recall@{b}t"] = recall(evidence, turns, n)
        m[f"recall_all@{b}t"] = recall_all(evidence, turns, n)
        m[f"hits@{b}t"] = n
        m[f"deep_enough@{b}t"] = 0.0 if depth is not None and n == len(hits) >= depth else 1.0
    return m


def budget_list(search: Callable[[int], Sequence[Hit]], depth: int, shown: ContextConfig = DEFAULT_CONTEXT, *,
                budget: int = max(TOKEN_BUDGETS), cap: int = BUDGET_DEPTH_MAX) -> tuple[list[Hit], int]:
    """A ranked list deep enough to fill ``budget`` tokens: ``search(n)`` (the row's n best hits) at
    ``depth``, asked again for twice as many while it returned all it was asked for and all of it fits
    ``budget`` with room (a deeper search would show more), up to ``cap``. Returns the hits and the depth
    asked for last (``budget_metrics``'s ``depth``)."""
    hits = list(search(depth))
    while depth < cap and len(hits) >= depth and len(fit(hits, budget, shown)) == len(hits):
        depth = min(2 * depth, cap)
        hits = list(search(depth))
    return hits, depth


def _embedders(mem: Any, q: EvalQuestion, qvec: Any) -> tuple[Callable[[str], Any], dict[str, Any]]:
    """What a recipe embeds with, for one question: the question's own vector, made (and timed) before the search,
    for the question; the memory's embedder for any other text, one or many at once (the current-value stage's
    descriptions and the statements it reads), as ``AgentMemory.search`` passes them."""
    def embed(text: str) -> Any:
        return qvec if text == q.question else mem.embedder.embed_query(text, user_id=q.user_id)
    return embed, {"embed_texts": functools.partial(mem.embedder.embed, user_id=q.user_id),
                   "embed_queries": functools.partial(mem.embedder.embed_queries, user_id=q.user_id)}


def _hit_json(rank: int, h: Hit) -> dict[str, Any]:
    r = h.record
    return {"rank": rank, "turn_ids": list(turn_ids(r)), "session_id": r.session_id,
            **({"context_turn_ids": [t for c in h.context for t in turn_ids(c)]} if h.context else {}),
            "score": round(float(h.score), 6), "signals": {k: round(float(v), 6) for k, v in h.signals.items()},
            "date": r.occurred_at.date().isoformat(), "speaker": r.speaker or r.role, "text": r.text[:TEXT_CHARS]}


class EvalRun:
    """One run's state: its variants, rows and cut-offs, the memories it opened and what it wrote; and the
    evaluation of one row on one question."""

    def __init__(self, variants: Mapping[str, EvalSet], out_dir: Path, rows: list[Row], *, k: int,
                 ks: Sequence[int], qa: Any, embedder: Any, store_dir: Path, progress: bool, workers: int,
                 memory_options: Mapping[str, Any] | None = None, budget_depth: int = BUDGET_DEPTH):
        self.variants, self.out, self.rows, self.k = variants, out_dir, rows, k
        self.ks = sorted(set(ks) | {k})
        self.deep_k = max(self.ks)
        self.budget_depth = max(budget_depth, self.deep_k)  # the equal-token list's first depth
        self.qa, self.embedder, self.store_dir = qa, embedder, store_dir
        self.progress, self.workers = progress, max(1, workers)
        self.memory_options = dict(memory_options or {})
        self.fingerprints = {v: haystack_fingerprint(es) for v, es in variants.items()}
        self._memories: dict[tuple[str, str], Any] = {}
        self._ingested: set[tuple[str, str, str]] = set()
        self.ingest_seconds: dict[str, float] = {}
        self.writes: dict[tuple[str, str, str], IngestResult] = {}  # per (variant, ingest key, user): what was new
        self.failures: list[str] = []

    # -- stores
    def memory(self, variant: str, ingest: IngestConfig):
        key = (variant, ingest.key)
        if key not in self._memories:
            from cbmemory import AgentMemory

            path = self.store_dir / store_file_name(self.fingerprints[variant], ingest, self.embedder.name)
            self._memories[key] = AgentMemory.open(path, embedder=self.embedder, ingest=ingest,
                                                   **self.memory_options)
            index = self.store_dir / "stores.json"
            known = json.loads(index.read_text()) if index.exists() else {}
            known[path.name] = {"dataset": self.variants[variant].dataset, "variant": variant,
                                "ingest": ingest.key, "embedder": self.embedder.name,
                                "haystack_sha256": self.fingerprints[variant]}
            index.write_text(json.dumps(known, indent=1))
        return self._memories[key]

    def ensure_user(self, variant: str, ingest: IngestConfig, user_id: str):
        mem = self.memory(variant, ingest)
        if (variant, ingest.key, user_id) not in self._ingested:
            start = time.perf_counter()
            written = mem.add_sessions(user_id, self.variants[variant].haystacks[user_id].batches())  # idempotent
            self.writes[(variant, ingest.key, user_id)] = written
            took = time.perf_counter() - start
            name = f"{variant}|{ingest.key}"
            self.ingest_seconds[name] = self.ingest_seconds.get(name, 0.0) + took
            self._ingested.add((variant, ingest.key, user_id))
        return mem

    def close(self) -> None:
        for mem in self._memories.values():
            mem.close()

    # -- one question
    @staticmethod
    def _tokens_at(hits: Sequence[Hit], c: int, shown: ContextConfig) -> int:
        """The context stage's size of the first ``c`` hits (its per-line counts are cached)."""
        return context_tokens(hits[:c], shown)

    def _metrics(self, q: EvalQuestion, main: Sequence[Hit], deep: Sequence[Hit] | None,
                 shown: ContextConfig, search: Callable[[int], Sequence[Hit]]) -> dict[str, Any]:
        """Metrics at every cut-off (``main`` up to ``k``, ``deep`` beyond) and at every token budget (a list
        from ``search`` deep enough to fill the largest, ``budget_list``; the deep one when that is)."""
        m: dict[str, Any] = {}
        for c in self.ks:
            src = main if c <= self.k or deep is None else deep
            turns, sessions = _units(src)
            m.update(retrieval_metrics(q.evidence, turns, [c]))
            if any(h.context for h in src[:c]):  # recall of the hits alone, beside that of what is read
                alone = retrieval_metrics(q.evidence, _units(src, context=False)[0], [c], prefix="hit_")
                m[f"hit_recall@{c}"] = alone[f"hit_recall@{c}"]
            m.update(retrieval_metrics(q.evidence_sessions, session_units(sessions), [c], prefix="session_"))
            if c != self.k:
                m[f"tokens@{c}"] = self._tokens_at(src, c, shown)
        have = main if deep is None else deep
        hits, depth = budget_list(lambda n: have if n == self.deep_k else search(n), self.budget_depth, shown)
        m.update(budget_metrics(q.evidence, hits, shown, depth=depth))
        m["budget_depth"] = depth
        return m

    def evaluate(self, row: Row, q: EvalQuestion, qvec: Any, embed_ms: float,
                 peer: Any) -> tuple[dict, str, ContextConfig]:
        """One row's record for one question, the context text its reader gets and how it was rendered
        (a recipe's ``context``; the default for baselines and peers)."""
        rec: dict[str, Any] = {
            "question_id": q.question_id, "row": row.name, "kind": row.kind, "target": row.target,
            "variant": row.variant, "user_id": q.user_id, "category": q.category,
            "category_code": q.category_code, "unanswerable": q.unanswerable, "question": q.question,
            "gold": q.answer, "question_date": q.question_date.isoformat(), "date_source": q.date_source,
            "evidence": list(q.evidence), "evidence_sessions": list(q.evidence_sessions), "k": self.k,
            "recipe": row.stamp(),
        }
        deep: list[Hit] | None = None
        context_hits: list[Hit]
        metrics: dict[str, Any] = {}
        budget = None
        shown = row.recipe.context if row.recipe is not None else DEFAULT_CONTEXT
        if row.kind == "recipe":
            recipe = row.recipe
            assert recipe is not None
            cfg = recipe.retrieval
            mem = self.ensure_user(row.variant, recipe.ingest, q.user_id)
            store = mem.store
            sparse = functools.lru_cache(maxsize=1)(mem.sparse_encoder.encode_query) if mem.sparse_encoder is not None else None
            now = utcnow()
            embed, texts = _embedders(mem, q, qvec)
            start = time.perf_counter()  # the query's sparse vector (if any) is made inside, and timed
            main = recipe_hits(store, embed, recipe, q.user_id, q.question, k=self.k,
                               reference_date=q.question_date, now=now, encode_sparse=sparse, **texts)
            search_ms = (time.perf_counter() - start) * 1000

            def search(n: int) -> list[Hit]:
                return recipe_hits(store, embed, recipe, q.user_id, q.question, k=n,
                                   reference_date=q.question_date, now=now, encode_sparse=sparse, **texts)

            if self.deep_k > self.k:
                deep = search(self.deep_k)
            metrics.update(self._metrics(q, main, deep, shown, search))
            uses_vector = cfg.uses(Signal.VECTOR)
            metrics["latency_ms"] = search_ms
            metrics["latency_total_ms"] = search_ms + (embed_ms if uses_vector else 0.0)
            context_hits, budget = main, recipe.context.token_budget
            if cfg.k is None:  # the recipe picks its own k: also score what it returns then
                own = recipe_hits(store, embed, recipe, q.user_id, q.question, k=None,
                                  reference_date=q.question_date, now=now, encode_sparse=sparse, **texts)
                turns, sessions = _units(own)
                auto = retrieval_metrics(q.evidence, turns, [len(own)])
                metrics.update({name.replace(f"@{len(own)}", "@auto"): v for name, v in auto.items()})
                metrics["k_auto"] = len(own)
                metrics["tokens@auto"] = format_context(own, shown).tokens
                context_hits = own
            rec["hits"] = [_hit_json(i + 1, h) for i, h in enumerate(main)]
        elif row.kind == "peer":
            peer_search, by_id = peer

            def peer_hits(n: int) -> list[Hit]:
                return [Hit(by_id[i], 0.0, recipe=row.name) for i in peer_search(q.question, n)]

            start = time.perf_counter()
            main = peer_hits(self.k)
            total_ms = (time.perf_counter() - start) * 1000
            if self.deep_k > self.k:
                deep = peer_hits(self.deep_k)
            metrics.update(self._metrics(q, main, deep, shown, peer_hits))
            metrics["latency_ms"] = None
            metrics["latency_total_ms"] = total_ms
            context_hits = main
            rec["hits"] = [_hit_json(i + 1, h) for i, h in enumerate(main)]
        else:
            store = self.ensure_user(row.variant, DEFAULT_INGEST, q.user_id).store
            context_hits = baseline_hits(row.target, store, q)
            rec["hits"] = []
            rec["context_turns"] = len(context_hits)
            metrics.update(budget_metrics(q.evidence, context_hits, shown))  # in conversation order
        if deep is not None:
            rec["deep_turn_ids"] = [sorted(u) for u in _units(deep)[0]]
        context = format_context(context_hits, shown, budget=budget)
        at_k = context if row.kind != "recipe" or context_hits is main else format_context(main, shown, budget=budget)
        metrics[f"tokens@{self.k}"] = at_k.tokens
        rec["tokens"] = context.tokens  # what the reader gets
        rec["metrics"] = metrics
        return rec, context.text, shown


__all__ = ["BUDGET_DEPTH", "BUDGET_DEPTH_MAX", "TOKEN_BUDGETS", "EvalRun", "budget_list", "budget_metrics",
           "haystack_fingerprint", "store_file_name"]
