"""One measurement per process, so each reading of peak memory is its own and a peer over its time cap can
be stopped. Run as ``python -m cbmemory.bench.worker TASK JSON``; the last stdout line is the JSON result.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .synthetic import SyntheticConfig, SyntheticQuery, make_queries, make_user
from .timing import current_rss_mb, peak_rss_mb, time_calls

BATCH_SESSIONS = 50  # sessions per write (1,000 turns): one transaction each


def _cfg(spec: dict) -> SyntheticConfig:
    return SyntheticConfig(seed=int(spec.get("seed", 0)))


def _file_bytes(db: str) -> int:
    return sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))


def save_queries(path: Path, queries: list[SyntheticQuery]) -> None:
    rows = [{"user_id": q.user_id, "text": q.text, "needle": q.needle, "vector": q.vector.tolist()} for q in queries]
    path.write_text(json.dumps(rows))


def load_queries(path: str) -> list[SyntheticQuery]:
    return [SyntheticQuery(r["user_id"], r["text"], np.asarray(r["vector"], dtype=np.float32), r["needle"])
            for r in json.loads(Path(path).read_text())]


def write_user(store: Any, user: Any) -> float:
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


def task_ingest(spec: dict) -> dict:
    """Store-only ingest of one user with ``n`` records (precomputed vectors); saves the query set."""
    from ..store.sqlite import SQLiteStore

    cfg = _cfg(spec)
    user = make_user(spec["user"], spec["n"], cfg)
    save_queries(Path(spec["queries_file"]), make_queries(user, spec["queries"], cfg))
    store = SQLiteStore(spec["db"])
    store.bind_embedder(spec.get("embedder", "all-MiniLM-L6-v2-int8-onnx"), cfg.dimension)
    took = write_user(store, user)
    store.close()
    n = len(user.records)
    return {"turns": n, "seconds": round(took, 3), "turns_per_s": round(n / took, 1),
            "file_bytes": _file_bytes(spec["db"]), "peak_rss_mb": peak_rss_mb()}


def task_embed_ingest(spec: dict) -> dict:
    """Ingest through ``AgentMemory`` with the offline MiniLM embedder: validation, records, embedding, write."""
    from ..embedding.onnx import MiniLMEmbedder
    from ..memory import AgentMemory

    cfg = _cfg(spec)
    user = make_user("embed-user", spec["n"], cfg)
    texts: dict[str, list[dict]] = {}
    for r in user.records:
        texts.setdefault(r.session_id, []).append(
            {"role": r.role, "content": r.text, "speaker": r.speaker, "turn_id": r.turn_id})
    embedder = MiniLMEmbedder()
    embedder.embed(["warm-up: load the model before timing"])
    memory = AgentMemory.open(spec["db"], embedder=embedder)
    took = 0.0
    sessions = list(user.sessions)
    for b in range(0, len(sessions), BATCH_SESSIONS):
        part = [(s.session_id, texts[s.session_id], s.occurred_at) for s in sessions[b: b + BATCH_SESSIONS]]
        t0 = time.perf_counter()
        memory.add_sessions(user.user_id, part)
        took += time.perf_counter() - t0
    memory.close()
    n = len(user.records)
    return {"turns": n, "seconds": round(took, 3), "turns_per_s": round(n / took, 1)}


def _our_search(store: Any, recipe: str, k: int, embed: Callable[[str], np.ndarray], user_id: str):
    from ..retrieval.engine import retrieve
    from ..retrieval.recipes import get_recipe

    cfg = get_recipe(recipe)

    def search(q: SyntheticQuery) -> list[str]:
        return [h.record.record_id for h in retrieve(store, embed, cfg, user_id, q.text, k=k)]
    return search


def _hit_rate(search: Callable[[SyntheticQuery], list[str]], queries: list[SyntheticQuery]) -> float:
    return round(sum(q.needle in search(q) for q in queries) / len(queries), 4)


def task_search(spec: dict) -> dict:
    """Latency of each recipe on an ingested file: query embedding excluded (precomputed vectors), then
    included (the offline embedder, uncached). Peak memory is read before the embedder is loaded."""
    from ..store.sqlite import SQLiteStore

    queries = load_queries(spec["queries_file"])
    vectors = {q.text: q.vector for q in queries}
    store = SQLiteStore(spec["db"])
    base = current_rss_mb()
    k, reps, warm = spec["k"], spec["repeats"], spec["warmup"]
    out: dict[str, Any] = {"recipes": {}}
    for recipe in spec["recipes"]:
        search = _our_search(store, recipe, k, vectors.__getitem__, queries[0].user_id)
        res = time_calls(search, queries, repeats=reps, warmup=warm)
        res["needle_hit_rate"] = _hit_rate(search, queries)
        out["recipes"][recipe] = {"excluded": res}
    peak = peak_rss_mb()
    out["memory"] = {"baseline_rss_mb": base, "peak_rss_mb": peak, "search_rss_mb": round(peak - base, 1)}
    if spec.get("included", True):
        from ..embedding.onnx import MiniLMEmbedder

        embedder = MiniLMEmbedder()
        embedder.embed_query("warm-up")
        out["query_embedding"] = time_calls(lambda q: embedder.embed_query(q.text), queries, repeats=reps,
                                            warmup=warm)
        for recipe in spec["recipes"]:
            search = _our_search(store, recipe, k, embedder.embed_query, queries[0].user_id)
            out["recipes"][recipe]["included"] = time_calls(search, queries, repeats=reps, warmup=warm)
    store.close()
    return out


class _Precomputed:
    """Document and query vectors looked up, not computed: the peers get exactly our vectors."""

    def __init__(self, texts: dict[str, np.ndarray]):
        self.texts = texts

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.texts[t] for t in texts]) if texts else np.empty((0, 384), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.texts[text]


def task_peer(spec: dict) -> dict:
    """Build one peer over the same records and vectors, then time its searches (query vectors
    precomputed) until done or the time cap; ``build_s`` and memory are reported too."""
    from ..eval.peers import build_peer

    deadline = time.perf_counter() + spec["cap_s"]
    cfg = _cfg(spec)
    user = make_user(spec["user"], spec["n"], cfg)
    queries = load_queries(spec["queries_file"])
    docs = _Precomputed({r.index_text: v for r, v in zip(user.records, user.vectors, strict=True)})
    qvecs = _Precomputed({q.text: q.vector for q in queries})
    base = current_rss_mb()
    t0 = time.perf_counter()
    peer = build_peer(spec["name"], list(user.records), documents=docs, queries=qvecs)
    build_s = time.perf_counter() - t0
    k = spec["k"]

    def search(q: SyntheticQuery) -> list[str]:
        return peer(q.text, k)
    res = time_calls(search, queries, repeats=spec["repeats"], warmup=spec["warmup"], deadline=deadline)
    if res["queries"] and time.perf_counter() < deadline:
        res["needle_hit_rate"] = _hit_rate(search, queries)
    peak = peak_rss_mb()
    res.update(build_s=round(build_s, 2), index_rss_mb=round(peak - base, 1), peak_rss_mb=peak)
    return res


def task_users(spec: dict) -> dict:
    """One file, growing from 1 to ``max(counts)`` users of ``per_user`` records each; at each count, the
    latency of ``recipe`` for queries spread over all users (each user's first search is warm-up)."""
    from ..retrieval.engine import retrieve
    from ..retrieval.recipes import get_recipe
    from ..store.sqlite import SQLiteStore

    cfg = _cfg(spec)
    recipe = get_recipe(spec["recipe"])
    store = SQLiteStore(spec["db"])
    store.bind_embedder("all-MiniLM-L6-v2-int8-onnx", cfg.dimension)
    rng = np.random.default_rng(cfg.seed)
    pool: list[SyntheticQuery] = []
    vectors: dict[str, np.ndarray] = {}
    first: dict[str, SyntheticQuery] = {}

    def search(q: SyntheticQuery) -> list:
        return retrieve(store, vectors.__getitem__, recipe, q.user_id, q.text, k=spec["k"])

    have, out = 0, {}
    for count in spec["counts"]:
        for u in range(have, count):
            user = make_user(f"user-{u:05d}", spec["per_user"], cfg)
            write_user(store, user)
            made = make_queries(user, 3, cfg)
            pool += made
            first[user.user_id] = made[0]
            vectors.update({q.text: q.vector for q in made})
        have = count
        for q in first.values():  # warm every user's in-memory columns once
            search(q)
        picks = [pool[i] for i in rng.integers(0, len(pool), size=spec["queries"])]
        res = time_calls(search, picks, repeats=spec["repeats"], warmup=0)
        hits = [search(q) for q in picks]
        res["needle_hit_rate"] = round(sum(q.needle in {h.record.record_id for h in hs}
                                           for q, hs in zip(picks, hits, strict=True)) / len(picks), 4)
        res["leaked_hits"] = sum(h.record.user_id != q.user_id for q, hs in zip(picks, hits, strict=True) for h in hs)
        res.update(records=count * spec["per_user"], file_bytes=_file_bytes(spec["db"]))
        out[str(count)] = res
    store.close()
    return out


TASKS = {"ingest": task_ingest, "embed_ingest": task_embed_ingest, "search": task_search, "peer": task_peer,
         "users": task_users}


def main(argv: list[str]) -> int:
    task, spec = argv[0], json.loads(argv[1])
    result = TASKS[task](spec)
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
