"""``cbmemory bench``: ingest throughput, search latency per recipe and size, the same searches through the
LangChain and LlamaIndex peers, storage and memory per 10k records, latency as users grow in one file, and
latency of one user while another tenant of the same file grows (the tenant-neighbour row).

Each measurement runs in its own process (``cbmemory.bench.worker``) so peak memory readings are its own and a
peer over its time cap can be stopped and recorded as skipped.
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .report import format_table
from .rows import (
    Latency,
    MachineFacts,
    NeighbourRow,
    UsersRow,
    neighbour_goals,
    rows_of,
    users_goals,
)
from .synthetic import DESCRIPTION, SyntheticConfig, whole_sessions

MAIN_RECIPES = ("default", "vector", "bm25", "hybrid", "vector_bm25_rerank_50")
NEIGHBOUR_RECIPES = ("default", "bm25")
NEIGHBOUR_USER, NEIGHBOUR_TENANT = "bench-user", "neighbour-tenant"
MAIN_PEERS = ("langchain_ensemble", "llamaindex_fusion")
# which recipe of ours each peer is compared with: the fusion peers with our fusion default, the vector ones
# with our vector recipe
PEER_VS = {"langchain_ensemble": "default", "llamaindex_fusion": "default", "langchain_vector": "vector",
           "llamaindex_vector": "vector"}


@dataclass(frozen=True)
class BenchConfig:
    out: Path
    sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    # users sweep: an int N is 1, 10, 100, ... up to N; a tuple is the exact user counts; 0 or () is off
    users: int | tuple[int, ...] = 1_000
    user_records: int = 100
    # tenant-neighbour row: records of the other tenant (0: none); () is off
    neighbour: tuple[int, ...] = (0, 100_000, 1_000_000)
    neighbour_user_records: int = 1_000
    neighbour_recipes: tuple[str, ...] = NEIGHBOUR_RECIPES
    neighbour_words: int = 3  # query words each neighbour turn holds
    keep: bool = False  # keep the store files under OUT/work
    recipes: tuple[str, ...] = MAIN_RECIPES
    peers: tuple[str, ...] = MAIN_PEERS
    queries: int = 100
    repeats: int = 3
    warmup: int = 5
    k: int = 10
    embed_turns: int = 1_000
    peer_cap_s: float = 300.0
    seed: int = 0
    included: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


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


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cores": os.cpu_count(), "usable_cores": usable, "cpu": cpu, "platform": platform.platform(),
            "python": platform.python_version(), "numpy": np.__version__, "sqlite": sqlite3.sqlite_version,
            "load_average_at_start": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None}


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2])  # the directory holding the cbmemory package
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


class WorkerTimeout(Exception):
    pass


def run_worker(task: str, spec: dict[str, Any], timeout: float | None = None,
               progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run one measurement in a fresh interpreter; its last stdout line is the result. With ``progress``,
    the worker's ``[bench]`` stderr lines are passed to it as they come."""
    argv = [sys.executable, "-m", "cbmemory.bench.worker", task, json.dumps(spec)]
    if progress is None:
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=_env())
        except subprocess.TimeoutExpired as exc:
            raise WorkerTimeout(f"{task} ran past {timeout:.0f} s") from exc
        stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
    else:
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()) as p:
            tail: list[str] = []

            def relay() -> None:
                assert p.stderr is not None
                for line in p.stderr:
                    if line.startswith("[bench]"):
                        progress(line.rstrip("\n"))
                    tail.append(line)
                    del tail[:-200]
            reader = threading.Thread(target=relay, daemon=True)
            reader.start()
            timer = threading.Timer(timeout, p.kill) if timeout else None
            if timer:
                timer.start()
            try:
                assert p.stdout is not None
                stdout = p.stdout.read()
                rc = p.wait()
            finally:
                if timer:
                    timer.cancel()
            reader.join()
            stderr = "".join(tail)
            if timer and rc < 0 and timer.finished.is_set():
                raise WorkerTimeout(f"{task} ran past {timeout:.0f} s")
    if rc != 0:
        raise RuntimeError(f"bench worker {task} failed:\n{stderr[-4000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


def _ratio(theirs: float | None, ours: float | None) -> float | None:
    return round(theirs / ours, 1) if theirs and ours else None


def run_bench(cfg: BenchConfig, log: Callable[[str], None] = lambda s: None) -> dict[str, Any]:
    out = Path(cfg.out)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    for old in work.glob("*.db*"):
        old.unlink()
    common = {"seed": cfg.seed, "k": cfg.k, "repeats": cfg.repeats, "warmup": cfg.warmup}
    started = time.time()
    result: dict[str, Any] = {
        "machine": machine(),
        "config": {**asdict(cfg), "out": str(cfg.out)},
        "data": DESCRIPTION,
        "method": ("Latency is wall time per search call: cbmemory.retrieval.engine.retrieve on a SQLiteStore "
                   "(store + recipe engine) and each peer's retriever, k results. 'excluded' uses the query's "
                   "precomputed vector; 'included' embeds each query with the offline MiniLM embedder (no "
                   "cache). Each statistic is the median over `repeats` runs of all queries; warm-up queries "
                   "are excluded. Peers get the same records, index texts, vectors and k."),
        "ingest": {"by_size": {}},
        "search": {r: {} for r in cfg.recipes},
        "search_included": {r: {} for r in cfg.recipes},
        "peers": {p: {} for p in cfg.peers},
        "storage": {},
        "goals": [],
    }
    store_turns = store_secs = 0.0
    for n in cfg.sizes:
        key = str(n)
        db, qfile = work / f"size-{n}.db", work / f"queries-{n}.json"
        log(f"[bench] {n} records: store-only ingest")
        ing = run_worker("ingest", {**common, "db": str(db), "user": "bench-user", "n": n,
                                    "queries": cfg.queries, "queries_file": str(qfile)})
        result["ingest"]["by_size"][key] = ing
        store_turns += ing["turns"]
        store_secs += ing["seconds"]
        log(f"[bench] {n} records: {ing['turns_per_s']:.0f} turns/s; searching {len(cfg.recipes)} recipes")
        res = run_worker("search", {**common, "db": str(db), "queries_file": str(qfile),
                                    "recipes": list(cfg.recipes), "included": cfg.included})
        for r, v in res["recipes"].items():
            result["search"][r][key] = v["excluded"]
            if "included" in v:
                result["search_included"][r][key] = v["included"]
        if "query_embedding" in res:
            result.setdefault("query_embedding", {})[key] = res["query_embedding"]
        mem = res["memory"]
        result["storage"][key] = {
            "records": n, "file_bytes": ing["file_bytes"],
            "file_mb_per_10k": round(ing["file_bytes"] / n * 10_000 / 2**20, 2),
            "search_process_peak_rss_mb": mem["peak_rss_mb"],
            "search_rss_mb_per_10k": round(mem["search_rss_mb"] / n * 10_000, 2),
            "ingest_process_peak_rss_mb": ing["peak_rss_mb"],
        }
        log(f"[bench] {n} records: default p95 {result['search'].get('default', {}).get(key, {}).get('p95_ms')} ms")
        for peer in cfg.peers:
            log(f"[bench] {n} records: peer {peer}")
            spec = {**common, "name": peer, "user": "bench-user", "n": n, "queries_file": str(qfile),
                    "cap_s": cfg.peer_cap_s}
            try:
                pr = run_worker("peer", spec, timeout=cfg.peer_cap_s + 60)
                if not pr["queries"]:
                    pr = {"skipped": f"over cap: {cfg.peer_cap_s:.0f} s spent before the first timed query",
                          "p50_ms": None, "p95_ms": None, "p99_ms": None}
            except WorkerTimeout as exc:
                pr = {"skipped": f"over cap: {exc}", "p50_ms": None, "p95_ms": None, "p99_ms": None}
            except RuntimeError as exc:
                pr = {"skipped": f"error: {str(exc).strip().splitlines()[-1]}", "p50_ms": None, "p95_ms": None,
                      "p99_ms": None}
            vs = PEER_VS.get(peer, cfg.recipes[0])
            vs = vs if vs in cfg.recipes else cfg.recipes[0]
            ours = result["search"][vs][key]
            pr.update(vs=vs, ratio_p50=_ratio(pr.get("p50_ms"), ours["p50_ms"]),
                      ratio_p95=_ratio(pr.get("p95_ms"), ours["p95_ms"]))
            result["peers"][peer][key] = pr
    result["ingest"]["store_only_turns_per_s"] = round(store_turns / store_secs, 1) if store_secs else None
    if cfg.embed_turns > 0:
        log(f"[bench] ingest with the offline embedder: {cfg.embed_turns} turns")
        emb = run_worker("embed_ingest", {**common, "db": str(work / "embed.db"), "n": cfg.embed_turns})
        result["ingest"]["with_embedding"] = emb
        result["ingest"]["with_embedding_turns_per_s"] = emb["turns_per_s"]
    else:
        result["ingest"]["with_embedding_turns_per_s"] = None
    if cfg.neighbour:
        result["neighbour"] = run_neighbour(cfg, work, common, log)
        result["goals"] += neighbour_goals(result["neighbour"])
    counts = sweep_counts(cfg.users)
    if counts:
        log(f"[bench] users sweep {counts} x {cfg.user_records} records")
        by_users = run_worker("users", {**common, "db": str(work / "users.db"), "counts": counts,
                                        "per_user": cfg.user_records, "queries": cfg.queries, "recipe": "default"},
                              progress=log)
        result["users"] = [users_row(u, cfg.user_records, "default", v) for u, v in by_users.items()]
        result["goals"] += users_goals(result["users"])
    result["scaling"] = scaling(result)
    result["elapsed_s"] = round(time.time() - started, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(result, indent=2, default=_plain))
    (out / "bench.md").write_text(format_table(result))
    if not cfg.keep:
        for f in work.glob("*.db*"):  # the store files are large and were only needed for timing
            f.unlink()
    return result


def _plain(x: Any) -> Any:
    """JSON for the typed rows."""
    if is_dataclass(x) and not isinstance(x, type):
        return asdict(x)
    raise TypeError(f"{type(x).__name__} is not JSON serialisable")


def users_row(users: str | int, per_user: int, recipe: str, v: dict[str, Any]) -> UsersRow:
    return UsersRow(recipe=recipe, users=int(users), per_user_records=per_user, records=int(v["records"]),
                    latency=Latency.from_timing(v), needle_hit_rate=float(v["needle_hit_rate"]),
                    leaked_hits=int(v["leaked_hits"]), file_bytes=int(v["file_bytes"]),
                    ingest_turns_per_s=v.get("turns_per_s"), peak_rss_mb=float(v["peak_rss_mb"]),
                    machine=MachineFacts.from_json(v["machine"]))


def run_neighbour(cfg: BenchConfig, work: Path, common: dict[str, Any],
                  log: Callable[[str], None]) -> list[NeighbourRow]:
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
                                                  "matches": matches}, progress=log)
            have, matches = size, ing["matches"]
            res = run_worker("neighbour_search", {**common, "db": str(db), "queries_file": str(qfile),
                                                  "recipes": list(cfg.neighbour_recipes)})
            for recipe, v in res["recipes"].items():
                rows.append(NeighbourRow(
                    recipe=recipe, user_records=cfg.neighbour_user_records, neighbour_records=ing["neighbour_records"],
                    neighbour_matches_per_query=round(float(np.mean(matches)), 1) if matches else 0.0,
                    latency=Latency.from_timing(v), needle_hit_rate=float(v["needle_hit_rate"]),
                    leaked_hits=int(v["leaked_hits"]), file_bytes=int(ing["file_bytes"]),
                    neighbour_ingest_turns_per_s=ing["turns_per_s"], search_peak_rss_mb=float(res["peak_rss_mb"]),
                    machine=MachineFacts.from_json(v["machine"])))
                log(f"[bench] neighbour {size:,}: `{recipe}` p50 {v['p50_ms']} ms, p95 {v['p95_ms']} ms")
    finally:
        if not cfg.keep:  # several GB at a million records
            for f in [*work.glob("neighbour.db*"), qfile]:
                f.unlink(missing_ok=True)
    return rows


def scaling(result: dict[str, Any]) -> dict[str, Any]:
    """How p95 grows: per recipe from the smallest to the largest size, and from 1 user to the most."""
    out: dict[str, Any] = {"records": {}, "users": None}
    for recipe, by_size in result["search"].items():
        sizes = sorted(by_size, key=int)
        if len(sizes) > 1:
            lo, hi = by_size[sizes[0]]["p95_ms"], by_size[sizes[-1]]["p95_ms"]
            out["records"][recipe] = {"from": int(sizes[0]), "to": int(sizes[-1]),
                                      "p95_growth": round(hi / lo, 2) if lo else None}
    users = sorted(rows_of(UsersRow, result.get("users") or []), key=lambda r: r.users)
    if len(users) > 1:
        lo, hi = users[0].latency.p95_ms, users[-1].latency.p95_ms
        out["users"] = {"from": users[0].users, "to": users[-1].users,
                        "p95_growth": round(hi / lo, 2) if lo else None}
    return out


__all__ = ["MAIN_PEERS", "MAIN_RECIPES", "NEIGHBOUR_RECIPES", "BenchConfig", "run_bench", "run_neighbour", "run_worker",
           "scaling", "sweep_counts", "user_counts", "users_row"]
