"""One measurement per process, so each reading of peak memory is its own and a peer over its time cap can
be stopped. Run as ``python -m cbmemory_eval.bench.worker TASK JSON``; the last stdout line is the JSON result.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from .long_session import task_long_session
from .measure import (
    BATCH_SESSIONS,
    Spec,
    file_bytes,
    hit_rate,
    leaks,
    load_queries,
    measure_searches,
    progress,
    save_queries,
    searcher,
    task_search,
    write_user,
)
from .rows import (
    JSON,
    EmbedIngest,
    NeighbourIngest,
    NeighbourSearch,
    PeerResult,
    Row,
    StoreIngest,
    UsersRow,
    UsersSweep,
)
from .sparse import task_sparse
from .synthetic import (
    SyntheticConfig,
    SyntheticQuery,
    SyntheticUser,
    make_neighbour,
    make_queries,
    make_user,
    query_words,
    whole_sessions,
)
from .timing import current_rss_mb, peak_rss_mb, time_calls

if TYPE_CHECKING:
    from cbmemory import MemoryRecord, Session
    from cbmemory.store import MemoryStore

T = TypeVar("T")
BIG_BATCH = 10_000  # records per write for the neighbour tenant and the users sweep (bigger gains nothing)


def _cfg(spec: Spec) -> SyntheticConfig:
    return SyntheticConfig(seed=int(spec.get("seed", 0)))


def task_ingest(spec: Spec) -> StoreIngest:
    """Store-only ingest of one user with ``n`` records (precomputed vectors); saves the query set."""
    from cbmemory.store import SQLiteStore

    cfg = _cfg(spec)
    user = make_user(spec["user"], spec["n"], cfg)
    save_queries(Path(spec["queries_file"]), make_queries(user, spec["queries"], cfg))
    store = SQLiteStore(spec["db"])
    store.bind_embedder(spec.get("embedder", "all-MiniLM-L6-v2-int8-onnx"), cfg.dimension)
    took = write_user(store, user)
    store.close()
    n = len(user.records)
    return StoreIngest(n, round(took, 3), round(n / took, 1), file_bytes(spec["db"]), peak_rss_mb())


def task_embed_ingest(spec: Spec) -> EmbedIngest:
    """Ingest through ``AgentMemory`` with the offline MiniLM embedder: validation, records, embedding, write."""
    from cbmemory import AgentMemory
    from cbmemory.embedding import MiniLMEmbedder

    cfg = _cfg(spec)
    user = make_user("embed-user", spec["n"], cfg)
    texts: dict[str, list[dict[str, str | None]]] = {}
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
    return EmbedIngest(n, round(took, 3), round(n / took, 1))


class _Precomputed:
    """Document and query vectors looked up, not computed: the peers get exactly our vectors."""

    def __init__(self, texts: dict[str, np.ndarray]):
        self.texts = texts

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.texts[t] for t in texts]) if texts else np.empty((0, 384), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.texts[text]


def task_peer(spec: Spec) -> PeerResult:
    """Build one peer over the same records and vectors, then time its searches (query vectors
    precomputed) until done or the time cap; ``build_s`` and memory are reported too."""
    from ..peers import build_peer

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
    timing = time_calls(search, queries, repeats=spec["repeats"], warmup=spec["warmup"], deadline=deadline)
    hits = hit_rate(search, queries) if timing.queries and time.perf_counter() < deadline else None
    peak = peak_rss_mb()
    return PeerResult(timing, hits, round(build_s, 2), round(peak - base, 1), peak)


def _ahead(items: Iterable[T], depth: int = 2) -> Iterator[T]:
    """``items`` made in a thread, ``depth`` ahead of the consumer: making the next batch of records
    (numpy, string joins) overlaps writing this one (SQLite works without the GIL)."""
    q: queue.Queue[tuple[T] | None] = queue.Queue(depth)  # each item boxed; None: the end
    failure: list[BaseException] = []

    def make() -> None:
        try:
            for item in items:
                q.put((item,))
        except BaseException as exc:  # handed to the consumer
            failure.append(exc)
        finally:
            q.put(None)
    threading.Thread(target=make, daemon=True).start()
    while (box := q.get()) is not None:
        yield box[0]
    if failure:
        raise failure[0]


class _Rate:
    """Records written and seconds spent in ``store.write``, with a progress line every ``every`` seconds."""

    def __init__(self, what: str, total: int, every: float = 10.0):
        self.what, self.total, self.every = what, total, every
        self.done, self.seconds = 0, 0.0
        self.started = self.last = time.perf_counter()

    def write(self, store: MemoryStore, sessions: Sequence[Session], records: Sequence[MemoryRecord],
              vectors: np.ndarray) -> None:
        t0 = time.perf_counter()
        store.write(sessions, records, vectors)
        t1 = time.perf_counter()
        self.seconds += t1 - t0
        self.done += len(records)
        if t1 - self.last >= self.every or self.done >= self.total:
            self.last = t1
            wall = t1 - self.started
            eta = wall / self.done * (self.total - self.done) if self.done else 0.0
            progress(f"{self.what}: {self.done:,} / {self.total:,} records, {self.done / wall:,.0f} records/s "
                     f"({self.per_s:,.0f}/s in store.write), {wall:.0f} s, about {eta:.0f} s left")

    @property
    def per_s(self) -> float | None:
        return round(self.done / self.seconds, 1) if self.seconds else None


def task_neighbour_ingest(spec: Spec) -> NeighbourIngest:
    """Grow the tenant-neighbour file: the measured user first (with its query set, on a new file), then the
    neighbour's records from ``have`` to ``want`` in batches of ``BIG_BATCH``, each turn holding
    ``per_record`` of the measured user's query words. Counts, per query, the neighbour records holding one
    of its words."""
    from cbmemory.store import SQLiteStore

    cfg = _cfg(spec)
    store = SQLiteStore(spec["db"])
    store.bind_embedder(spec.get("embedder", "all-MiniLM-L6-v2-int8-onnx"), cfg.dimension)
    qfile = Path(spec["queries_file"])
    if store.count(spec["user"]) == 0:
        user = make_user(spec["user"], spec["user_records"], cfg)
        save_queries(qfile, make_queries(user, spec["queries"], cfg))
        write_user(store, user)
        progress(f"neighbour row: measured user {spec['user']} with {len(user.records):,} records written")
    queries = load_queries(str(qfile))
    per_query = [query_words(q) for q in queries]
    pool = sorted({w for ws in per_query for w in ws})
    index = {w: i for i, w in enumerate(pool)}
    members = [[index[w] for w in ws] for ws in per_query]
    matches: np.ndarray = np.asarray(spec.get("matches") or [0] * len(queries), dtype=np.int64)
    have, want = spec["have"], whole_sessions(spec["want"], cfg)
    rate = _Rate("neighbour tenant", want - have)
    batches = make_neighbour(spec["neighbour"], have, want, pool, cfg, per_record=spec["per_record"],
                             batch=BIG_BATCH)
    for b in _ahead(batches):
        rate.write(store, b.user.sessions, b.user.records, b.user.vectors)
        matches += [int(b.holds[:, m].any(axis=1).sum()) for m in members]
    neighbour = store.count(spec["neighbour"]) if want else 0
    store.close()
    return NeighbourIngest(neighbour, want - have, rate.per_s, tuple(int(m) for m in matches.tolist()), len(pool),
                           file_bytes(spec["db"]), peak_rss_mb())


def task_neighbour_search(spec: Spec) -> NeighbourSearch:
    """Latency of each recipe for the measured user of a tenant-neighbour file (fresh process, query
    vectors precomputed)."""
    from cbmemory.store import SQLiteStore

    queries = load_queries(spec["queries_file"])
    vectors = {q.text: q.vector for q in queries}
    store = SQLiteStore(spec["db"])
    out = {r: measure_searches(searcher(store, r, vectors, spec["k"]), queries, spec["repeats"], spec["warmup"])
           for r in spec["recipes"]}
    store.close()
    return NeighbourSearch(out, peak_rss_mb())


def _users(first: int, last: int, per_user: int,
           cfg: SyntheticConfig) -> Iterator[tuple[SyntheticUser, list[SyntheticQuery]]]:
    for u in range(first, last):
        user = make_user(f"user-{u:05d}", per_user, cfg)
        yield user, make_queries(user, 3, cfg)


def task_users(spec: Spec) -> UsersSweep:
    """One file, growing through ``counts`` users of ``per_user`` records each (several users per write, up
    to ``BIG_BATCH`` records); at each count, the latency of ``recipe`` for ``queries`` queries of random users
    (every user's first search is an untimed warm-up)."""
    from cbmemory.store import SQLiteStore

    cfg = _cfg(spec)
    store = SQLiteStore(spec["db"])
    store.bind_embedder("all-MiniLM-L6-v2-int8-onnx", cfg.dimension)
    rng = np.random.default_rng(cfg.seed)
    pool: list[SyntheticQuery] = []
    vectors: dict[str, np.ndarray] = {}
    first: list[SyntheticQuery] = []
    per_user = spec["per_user"]
    per_write = max(1, BIG_BATCH // per_user)

    search = searcher(store, spec["recipe"], vectors, spec["k"])
    have, rows = 0, []
    for count in sorted(set(spec["counts"])):
        rate = _Rate(f"users sweep to {count:,} users", (count - have) * per_user)
        batch: list[SyntheticUser] = []
        for u, (user, made) in enumerate(_ahead(_users(have, count, per_user, cfg)), have + 1):
            pool += made
            first.append(made[0])
            vectors.update({q.text: q.vector for q in made})
            batch.append(user)
            if len(batch) == per_write or u == count:
                rate.write(store, [s for b in batch for s in b.sessions], [r for b in batch for r in b.records],
                           np.concatenate([b.vectors for b in batch]))
                batch = []
        have = count
        t0 = time.perf_counter()
        _, warm_leaks = leaks(search, first)  # every user's first search: untimed warm-up
        if count > 100:
            progress(f"users sweep at {count:,} users: each user searched once to warm up "
                     f"({time.perf_counter() - t0:.0f} s)")
        picks = [pool[i] for i in rng.integers(0, len(pool), size=int(spec["queries"]))]
        m = measure_searches(search, picks, spec["repeats"], 0)
        rows.append(UsersRow(recipe=spec["recipe"], users=count, per_user_records=per_user, records=count * per_user,
                             latency=m.latency, needle_hit_rate=m.needle_hit_rate,
                             leaked_hits=m.leaked_hits + warm_leaks, file_bytes=file_bytes(spec["db"]),
                             ingest_turns_per_s=rate.per_s, peak_rss_mb=peak_rss_mb(), machine=m.machine))
        progress(f"users sweep at {count:,} users: p95 {m.latency.p95_ms} ms")
    store.close()
    return UsersSweep(tuple(rows))


TASKS: dict[str, Callable[[Spec], Row]] = {
    "ingest": task_ingest, "embed_ingest": task_embed_ingest, "search": task_search, "peer": task_peer,
    "users": task_users, "neighbour_ingest": task_neighbour_ingest, "neighbour_search": task_neighbour_search,
    "long_session": task_long_session, "sparse": task_sparse,
}


def main(argv: list[str]) -> int:
    task, spec = argv[0], json.loads(argv[1])
    result: JSON = TASKS[task](spec).to_json()
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
