"""``cbmemory bench``: ingest throughput, search latency per recipe and size, the same searches through the
LangChain and LlamaIndex peers, storage and memory per 10k records, latency as users grow in one file, and
latency of one user while another tenant of the same file grows (the tenant-neighbour row).

Each measurement runs in its own process (``cbmemory_eval.bench.worker``) so peak memory readings are its own and a
peer over its time cap can be stopped and recorded as skipped. A worker prints its typed row
(``bench.rows``) as JSON and ``run_worker`` (``bench.process``) reads it back; ``run_bench`` returns the whole run as a
``bench.result.BenchResult``, whose ``to_json()`` is ``bench.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .long_session import run_long_session
from .process import Spec, WorkerTimeout, run_worker
from .report import format_table
from .result import (
    MAIN_PEERS,
    MAIN_RECIPES,
    NEIGHBOUR_RECIPES,
    BenchConfig,
    BenchMachine,
    BenchResult,
    IngestSummary,
    PeerCell,
    Scaling,
    StorageRow,
)
from .rows import (
    EmbedIngest,
    NeighbourIngest,
    NeighbourRow,
    NeighbourSearch,
    PeerResult,
    SearchCell,
    SearchResult,
    StoreIngest,
    Timing,
    UsersSweep,
    neighbour_goals,
    users_goals,
)
from .sparse import SparseSize, run_sparse
from .sparse_encoding import sparse_encoder_of
from .synthetic import DESCRIPTION, SyntheticConfig, whole_sessions

NEIGHBOUR_USER, NEIGHBOUR_TENANT = "bench-user", "neighbour-tenant"
# which recipe of ours each peer is compared with: the fusion peers with our fusion default, the vector ones
# with our vector recipe
PEER_VS = {"langchain_ensemble": "default", "llamaindex_fusion": "default", "langchain_vector": "vector",
           "llamaindex_vector": "vector"}
METHOD = ("Latency is wall time per search call: cbmemory.retrieval.retrieve on a SQLiteStore "
          "(store + recipe engine) and each peer's retriever, k results. 'excluded' uses the query's "
          "precomputed vector; 'included' embeds each query with the offline MiniLM embedder (no "
          "cache). Each statistic is the median over `repeats` runs of all queries; warm-up queries "
          "are excluded. Peers get the same records, index texts, vectors and k. A recipe with the sparse "
          "signal (sizes up to sparse_max_size) searches a copy of the size's file whose records the real "
          "SPLADE-tiny encoder gave sparse vectors from their synthetic index texts, and encodes each query's "
          "sparse vector with the real encoder inside every timed call, over the user's word pieces as "
          "AgentMemory.search does, in both columns (bench.sparse).")


def user_counts(users: int) -> list[int]:
    """1, 10, 100, ... up to ``users`` (``users`` itself always last)."""
    counts, c = [], 1
    while c < users:
        counts.append(c)
        c *= 10
    return counts + [users] if users >= 1 else []


def sweep_counts(users: int | tuple[int, ...]) -> list[int]:
    """The users sweep's counts: ``user_counts(N)`` for an int, else the given counts in order."""
    if isinstance(users, int):
        return user_counts(users)
    return sorted({u for u in users if u >= 1})


def run_bench(cfg: BenchConfig, log: Callable[[str], None] = lambda s: None) -> BenchResult:
    """Every measurement ``cfg`` asks for; writes ``OUT/bench.json`` (the result's JSON) and ``OUT/bench.md``."""
    out = Path(cfg.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    for old in work.glob("*.db*"):
        old.unlink()
    common = {"seed": cfg.seed, "k": cfg.k, "repeats": cfg.repeats, "warmup": cfg.warmup}
    started = time.time()
    machine = BenchMachine.now()
    sizes = _run_sizes(cfg, work, common, log)
    emb = None
    if cfg.embed_turns > 0:
        log(f"[bench] ingest with the offline embedder: {cfg.embed_turns} turns")
        emb = run_worker("embed_ingest", {**common, "db": str(work / "embed.db"), "n": cfg.embed_turns}, EmbedIngest)
    neighbour = run_neighbour(cfg, work, common, log) if cfg.neighbour else None
    users = None
    counts = sweep_counts(cfg.users)
    if counts:
        log(f"[bench] users sweep {counts} x {cfg.user_records} records")
        users = run_worker("users", {**common, "db": str(work / "users.db"), "counts": counts,
                                     "per_user": cfg.user_records, "queries": cfg.queries, "recipe": "default"},
                           UsersSweep, progress=log).rows
    long_session = (run_long_session(cfg.long_session, work, common, cfg.queries, log) if cfg.long_session > 0
                    else None)
    result = BenchResult(
        machine=machine, config=cfg, data=DESCRIPTION, method=METHOD,
        ingest=IngestSummary(sizes.ingest, emb), search=sizes.search, search_included=sizes.search_included,
        query_embedding=sizes.query_embedding, peers=sizes.peers, storage=sizes.storage, neighbour=neighbour,
        sparse=sizes.sparse or None,
        users=users, goals=(*neighbour_goals(neighbour or ()), *users_goals(users or ())),
        scaling=Scaling.of(sizes.search, users or ()), elapsed_s=round(time.time() - started, 1),
        long_session=long_session)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(result.to_json(), indent=2))
    (out / "bench.md").write_text(format_table(result))
    if not cfg.keep:
        for f in work.glob("*.db*"):  # the store files are large and were only needed for timing
            f.unlink()
    return result


class _Sizes:
    """The per-size rows as they are measured: ``{size: row}`` and ``{recipe or peer: {size: cell}}``."""

    def __init__(self, cfg: BenchConfig):
        self.ingest: dict[str, StoreIngest] = {}
        self.search: dict[str, dict[str, SearchCell]] = {r: {} for r in cfg.recipes}
        self.search_included: dict[str, dict[str, Timing]] = {r: {} for r in cfg.recipes}
        self.query_embedding: dict[str, Timing] | None = None
        self.peers: dict[str, dict[str, PeerCell]] = {p: {} for p in cfg.peers}
        self.storage: dict[str, StorageRow] = {}
        self.sparse: dict[str, SparseSize] = {}


def _run_sizes(cfg: BenchConfig, work: Path, common: Spec, log: Callable[[str], None]) -> _Sizes:
    """For each size: store-only ingest, each recipe's searches (query embedding excluded, then included), and
    each peer over the same records (skipped past its cap or on an error); the recipes with the sparse signal
    on a copy of the file with sparse vectors, up to ``cfg.sparse_max_size`` (bench.sparse)."""
    from cbmemory.recipes import get_recipe
    from cbmemory.retrieval import Signal

    got = _Sizes(cfg)
    encoder = sparse_encoder_of([get_recipe(r) for r in cfg.recipes])
    sparse = [r for r in cfg.recipes if get_recipe(r).retrieval.uses(Signal.SPARSE)]
    dense = [r for r in cfg.recipes if r not in sparse]
    for n in cfg.sizes:
        key = str(n)
        db, qfile = work / f"size-{n}.db", work / f"queries-{n}.json"
        log(f"[bench] {n} records: store-only ingest")
        ing = run_worker("ingest", {**common, "db": str(db), "user": "bench-user", "n": n,
                                    "queries": cfg.queries, "queries_file": str(qfile)}, StoreIngest)
        got.ingest[key] = ing
        log(f"[bench] {n} records: {ing.turns_per_s:.0f} turns/s; searching {len(cfg.recipes)} recipes")
        res = run_worker("search", {**common, "db": str(db), "queries_file": str(qfile),
                                    "recipes": dense, "included": cfg.included}, SearchResult)
        found = dict(res.recipes)
        if sparse and encoder is not None and n <= cfg.sparse_max_size:
            log(f"[bench] {n} records: sparse recipes {', '.join(sparse)} on a copy with {encoder} vectors")
            sp = run_sparse(db, qfile, encoder, sparse, common, cfg.included, log)
            got.sparse[key] = sp.size
            found.update(sp.search.recipes)
        for r, v in found.items():
            got.search[r][key] = v.excluded
            if v.included is not None:
                got.search_included[r][key] = v.included
        if res.query_embedding is not None:
            got.query_embedding = {**(got.query_embedding or {}), key: res.query_embedding}
        got.storage[key] = StorageRow.of(n, ing, res.memory)
        default = got.search.get("default", {}).get(key)
        log(f"[bench] {n} records: default p95 {default.timing.p95_ms if default else None} ms")
        for peer in cfg.peers if any(key in got.search[r] for r in cfg.recipes) else ():
            log(f"[bench] {n} records: peer {peer}")
            measured = [r for r in cfg.recipes if key in got.search[r]]  # a sparse one may not be, at this size
            vs = PEER_VS.get(peer, measured[0])
            vs = vs if vs in measured else measured[0]
            got.peers[peer][key] = _run_peer(cfg, peer, vs, got.search[vs][key].timing,
                                             {**common, "name": peer, "user": "bench-user", "n": n,
                                              "queries_file": str(qfile), "cap_s": cfg.peer_cap_s})
    return got


def _run_peer(cfg: BenchConfig, peer: str, vs: str, ours: Timing, spec: Spec) -> PeerCell:
    pr: PeerResult | None = None
    try:
        pr = run_worker("peer", spec, PeerResult, timeout=cfg.peer_cap_s + 60)
        skipped = (None if pr.timing.queries
                   else f"over cap: {cfg.peer_cap_s:.0f} s spent before the first timed query")
    except WorkerTimeout as exc:
        skipped = f"over cap: {exc}"
    except RuntimeError as exc:
        skipped = f"error: {str(exc).strip().splitlines()[-1]}"
    return PeerCell.of(vs, ours, pr, skipped)


def run_neighbour(cfg: BenchConfig, work: Path, common: Spec,
                  log: Callable[[str], None]) -> tuple[NeighbourRow, ...]:
    """The tenant-neighbour row: one file, the measured user's ``neighbour_user_records`` records written
    first, then the neighbour tenant grown through ``cfg.neighbour`` (whole sessions); at each size a fresh
    process times ``neighbour_recipes`` for the measured user. The file is deleted afterwards unless
    ``cfg.keep``."""
    db, qfile = work / "neighbour.db", work / "neighbour-queries.json"
    sizes = sorted({whole_sessions(n, SyntheticConfig()) for n in cfg.neighbour if n >= 0})
    rows: list[NeighbourRow] = []
    have, matches = 0, None
    try:
        for size in sizes:
            log(f"[bench] neighbour row: another tenant with {size:,} records, measured user {cfg.neighbour_user_records:,}")
            ing = run_worker("neighbour_ingest", {**common, "db": str(db), "queries_file": str(qfile),
                                                  "user": NEIGHBOUR_USER, "user_records": cfg.neighbour_user_records,
                                                  "queries": cfg.queries, "neighbour": NEIGHBOUR_TENANT,
                                                  "per_record": cfg.neighbour_words, "have": have, "want": size,
                                                  "matches": matches}, NeighbourIngest, progress=log)
            have, matches = size, list(ing.matches)
            res = run_worker("neighbour_search", {**common, "db": str(db), "queries_file": str(qfile),
                                                  "recipes": list(cfg.neighbour_recipes)}, NeighbourSearch)
            for recipe, m in res.recipes.items():
                rows.append(NeighbourRow(
                    recipe=recipe, user_records=cfg.neighbour_user_records, neighbour_records=ing.neighbour_records,
                    neighbour_matches_per_query=round(float(np.mean(matches)), 1) if matches else 0.0,
                    latency=m.latency, needle_hit_rate=m.needle_hit_rate, leaked_hits=m.leaked_hits,
                    file_bytes=ing.file_bytes, neighbour_ingest_turns_per_s=ing.turns_per_s,
                    search_peak_rss_mb=res.peak_rss_mb, machine=m.machine))
                log(f"[bench] neighbour {size:,}: `{recipe}` p50 {m.latency.p50_ms} ms, p95 {m.latency.p95_ms} ms")
    finally:
        if not cfg.keep:  # several GB at a million records
            for f in [*work.glob("neighbour.db*"), qfile]:
                f.unlink(missing_ok=True)
    return tuple(rows)


__all__ = ["MAIN_PEERS", "MAIN_RECIPES", "NEIGHBOUR_RECIPES", "BenchConfig", "BenchResult", "run_bench",
           "run_neighbour", "run_worker", "sweep_counts", "user_counts"]
