"""What the bench's worker tasks share (``bench.worker``, ``bench.long_session``, ``bench.sparse``): a synthetic
user written in batches, a size's query set on disk, a recipe's search as the bench times it (``recipe_hits`` on
the store, the sparse query encoded inside the call), and the latency, needle hit rate and leaked hits of a
set of searches. ``task_search`` is the search measurement itself, which the sparse task runs on its copy.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .rows import (
    Latency,
    MachineFacts,
    Measured,
    RecipeSearch,
    SearchCell,
    SearchMemory,
    SearchResult,
    Timing,
)
from .sparse_encoding import sparse_query_encoder
from .synthetic import SyntheticQuery, SyntheticUser
from .timing import current_rss_mb, peak_rss_mb, time_calls

if TYPE_CHECKING:
    from cbmemory import Hit
    from cbmemory.store import MemoryStore

Spec = dict[str, Any]  # a task's argument: the JSON object the runner passed; each task reads its own keys

BATCH_SESSIONS = 50  # sessions per write (1,000 turns): one transaction each


def file_bytes(db: str) -> int:
    return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))


def save_queries(path: Path, queries: list[SyntheticQuery]) -> None:
    rows = [{"user_id": q.user_id, "text": q.text, "needle": q.needle, "vector": q.vector.tolist()} for q in queries]
    path.write_text(json.dumps(rows))


def load_queries(path: str) -> list[SyntheticQuery]:
    return [SyntheticQuery(r["user_id"], r["text"], np.asarray(r["vector"], dtype=np.float32), r["needle"])
            for r in json.loads(Path(path).read_text())]


def write_user(store: MemoryStore, user: SyntheticUser) -> float:
    """Write a synthetic user in batches of ``BATCH_SESSIONS`` sessions; seconds spent in ``store.write``."""
    by_session: dict[str, list[int]] = {}
    for i, r in enumerate(user.records):
        by_session.setdefault(r.session_id, []).append(i)
    took = 0.0
    for b in range(0, len(user.sessions), BATCH_SESSIONS):
        sessions = user.sessions[b: b + BATCH_SESSIONS]
        idx = [i for s in sessions for i in by_session[s.session_id]]
        records = [user.records[i] for i in idx]
        t0 = time.perf_counter()
        store.write(sessions, records, user.vectors[idx])
        took += time.perf_counter() - t0
    return took


def progress(text: str) -> None:
    """A progress line on stderr (the runner passes ``[bench]`` lines on to its log as they come)."""
    sys.stderr.write(f"[bench] {text}\n")
    sys.stderr.flush()


def recipe_search(store: MemoryStore, recipe: str, k: int, embed: Callable[[str], np.ndarray],
                user_id: str) -> Callable[[SyntheticQuery], list[str]]:
    from cbmemory.recipes import get_recipe, recipe_hits

    chosen = get_recipe(recipe)
    encode_sparse = sparse_query_encoder(store, chosen, user_id)  # the real encoder, in every call (bench.sparse)

    def search(q: SyntheticQuery) -> list[str]:
        return [h.record.record_id for h in recipe_hits(store, embed, chosen, user_id, q.text, k=k,
                                                        encode_sparse=encode_sparse)]
    return search


def hit_rate(search: Callable[[SyntheticQuery], list[str]], queries: list[SyntheticQuery]) -> float:
    return round(sum(q.needle in search(q) for q in queries) / len(queries), 4)


def task_search(spec: Spec) -> SearchResult:
    """Latency of each recipe on an ingested file: query embedding excluded (precomputed vectors), then
    included (the offline embedder, uncached). Peak memory is read before the embedder is loaded."""
    from cbmemory.store import SQLiteStore

    queries = load_queries(spec["queries_file"])
    vectors = {q.text: q.vector for q in queries}
    store = SQLiteStore(spec["db"])
    base = current_rss_mb()
    k, reps, warm = spec["k"], spec["repeats"], spec["warmup"]
    excluded: dict[str, SearchCell] = {}
    for recipe in spec["recipes"]:
        search = recipe_search(store, recipe, k, vectors.__getitem__, queries[0].user_id)
        timing = time_calls(search, queries, repeats=reps, warmup=warm)
        excluded[recipe] = SearchCell(timing, hit_rate(search, queries))
    peak = peak_rss_mb()
    memory = SearchMemory(base, peak, round(peak - base, 1))
    included: dict[str, Timing] = {}
    query_embedding = None
    if spec.get("included", True):
        from cbmemory.embedding import MiniLMEmbedder

        embedder = MiniLMEmbedder()
        embedder.embed_query("warm-up")
        query_embedding = time_calls(lambda q: embedder.embed_query(q.text), queries, repeats=reps, warmup=warm)
        for recipe in spec["recipes"]:
            search = recipe_search(store, recipe, k, embedder.embed_query, queries[0].user_id)
            included[recipe] = time_calls(search, queries, repeats=reps, warmup=warm)
    store.close()
    return SearchResult({r: RecipeSearch(cell, included.get(r)) for r, cell in excluded.items()}, memory,
                        query_embedding)


def searcher(store: MemoryStore, recipe_name: str, vectors: dict[str, np.ndarray],
              k: int) -> Callable[[SyntheticQuery], list[Hit]]:
    """``recipe_hits`` with ``recipe_name``, each query searched as its own user, its vector precomputed."""
    from cbmemory.recipes import get_recipe, recipe_hits

    recipe = get_recipe(recipe_name)

    def search(q: SyntheticQuery) -> list[Hit]:
        return recipe_hits(store, vectors.__getitem__, recipe, q.user_id, q.text, k=k)
    return search


def leaks(search: Callable[[SyntheticQuery], list[Hit]], queries: list[SyntheticQuery]) -> tuple[int, int]:
    """Needles found and hits of other users, over one search of each query."""
    found = leaked = 0
    for q in queries:
        hits = search(q)
        found += q.needle in {h.record.record_id for h in hits}
        leaked += sum(h.record.user_id != q.user_id for h in hits)
    return found, leaked


def measure_searches(search: Callable[[SyntheticQuery], list[Hit]], queries: list[SyntheticQuery], repeats: int,
             warmup: int) -> Measured:
    """``time_calls`` statistics, the machine facts read just before them, needle hit rate, leaked hits."""
    facts = MachineFacts.now()
    latency = Latency.of(time_calls(search, queries, repeats=repeats, warmup=warmup))
    found, leaked = leaks(search, queries)
    return Measured(latency, round(found / len(queries), 4), leaked, facts)


__all__ = ["BATCH_SESSIONS", "Spec", "file_bytes", "hit_rate", "leaks", "load_queries", "measure_searches",
           "progress", "recipe_search", "save_queries", "searcher", "task_search", "write_user"]
