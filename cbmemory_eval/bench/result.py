"""The whole bench result (``bench.json``) as typed records: the configuration, the machine, the per-size rows
(keyed by the size as text, as in the JSON), the peers against our recipes, storage, the tenant-neighbour and
users rows, goals and scaling. ``BenchResult.to_json()`` is what ``bench.json`` holds; ``BenchResult.from_json`` reads it back
(``bench.report.format_table`` takes either the record or its JSON object)."""

from __future__ import annotations

import os
import platform
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from .long_session import LongSessionRow
from .rows import (
    JSON,
    EmbedIngest,
    GoalCheck,
    NeighbourRow,
    PeerResult,
    SearchCell,
    SearchMemory,
    StoreIngest,
    Timing,
    UsersRow,
    float_or_none,
)
from .sparse import SPARSE_MAX_SIZE, SparseSize

T = TypeVar("T")
MAIN_RECIPES = ("default", "vector", "bm25", "hybrid", "vector_bm25_rerank_50")
NEIGHBOUR_RECIPES = ("default", "bm25")
MAIN_PEERS = ("langchain_ensemble", "llamaindex_fusion")


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
    long_session: int = 20_000  # turns of the long-session row's one session; 0 is off
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
    sparse_max_size: int = SPARSE_MAX_SIZE  # recipes with the sparse signal: sizes up to this (bench.sparse)
    extra: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {**asdict(self), "out": str(self.out)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BenchConfig:
        """The JSON's lists back as tuples; keys this version does not know are left out."""
        names = {f.name for f in fields(cls)} - {"out"}
        given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items() if k in names}
        return cls(out=Path(d["out"]), **given)


@dataclass(frozen=True, slots=True)
class BenchMachine:
    """The machine the bench ran on, read when it started."""

    cores: int
    usable_cores: int
    cpu: str
    platform: str
    python: str
    numpy: str
    sqlite: str
    load_average_at_start: tuple[float, float, float] | None

    @classmethod
    def now(cls) -> BenchMachine:
        cpu = ""
        try:
            with open("/proc/cpuinfo") as f:
                cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
        except OSError:
            pass
        cores = os.cpu_count() or 0
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
        la = os.getloadavg() if hasattr(os, "getloadavg") else None
        load = None if la is None else (round(la[0], 2), round(la[1], 2), round(la[2], 2))
        return cls(cores, usable, cpu, platform.platform(), platform.python_version(), np.__version__,
                   sqlite3.sqlite_version, load)

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BenchMachine:
        la = d.get("load_average_at_start")
        return cls(int(d["cores"]), int(d.get("usable_cores", d["cores"])), str(d.get("cpu", "")),
                   str(d.get("platform", "")), str(d.get("python", "")), str(d.get("numpy", "")),
                   str(d.get("sqlite", "")), None if la is None else (float(la[0]), float(la[1]), float(la[2])))


def _ratio(theirs: float | None, ours: float | None) -> float | None:
    return round(theirs / ours, 1) if theirs and ours else None


@dataclass(frozen=True, slots=True)
class PeerCell:
    """A peer at one size in ``bench.json``: its result, or why it was skipped (over its cap, an error),
    and its p50 and p95 over those of our recipe ``vs``. JSON: the result's keys flat (p50/p95/p99 null
    when skipped), ``skipped`` (only when skipped), ``vs``, ``ratio_p50``, ``ratio_p95``."""

    vs: str
    result: PeerResult | None
    skipped: str | None
    ratio_p50: float | None
    ratio_p95: float | None

    @classmethod
    def of(cls, vs: str, ours: Timing, result: PeerResult | None, skipped: str | None = None) -> PeerCell:
        if skipped or result is None:
            return cls(vs, None, skipped or "no result", None, None)
        t = result.timing
        return cls(vs, result, None, _ratio(t.p50_ms, ours.p50_ms), _ratio(t.p95_ms, ours.p95_ms))

    @property
    def timing(self) -> Timing | None:
        return self.result.timing if self.result else None

    def to_json(self) -> JSON:
        measured: JSON = (self.result.to_json() if self.result
                          else {"p50_ms": None, "p95_ms": None, "p99_ms": None})
        skipped: JSON = {"skipped": self.skipped} if self.skipped else {}
        return {**measured, **skipped, "vs": self.vs, "ratio_p50": self.ratio_p50, "ratio_p95": self.ratio_p95}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PeerCell:
        skipped = d.get("skipped")
        return cls(str(d["vs"]), None if skipped else PeerResult.from_json(d), skipped or None,
                   float_or_none(d.get("ratio_p50")), float_or_none(d.get("ratio_p95")))


@dataclass(frozen=True, slots=True)
class StorageRow:
    """File size and memory at one size, also per 10k records."""

    records: int
    file_bytes: int
    file_mb_per_10k: float
    search_process_peak_rss_mb: float
    search_rss_mb_per_10k: float
    ingest_process_peak_rss_mb: float

    @classmethod
    def of(cls, records: int, ingest: StoreIngest, memory: SearchMemory) -> StorageRow:
        return cls(records, ingest.file_bytes, round(ingest.file_bytes / records * 10_000 / 2**20, 2),
                   memory.peak_rss_mb, round(memory.search_rss_mb / records * 10_000, 2), ingest.peak_rss_mb)

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StorageRow:
        return cls(int(d["records"]), int(d["file_bytes"]), float(d["file_mb_per_10k"]),
                   float(d["search_process_peak_rss_mb"]), float(d["search_rss_mb_per_10k"]),
                   float(d["ingest_process_peak_rss_mb"]))


@dataclass(frozen=True, slots=True)
class IngestSummary:
    """Store-only ingest per size and ingest through the offline embedder (None when off). JSON: also the
    overall rates (``store_only_turns_per_s``, ``with_embedding_turns_per_s``), derived from these."""

    by_size: dict[str, StoreIngest]
    with_embedding: EmbedIngest | None

    @property
    def store_only_turns_per_s(self) -> float | None:
        seconds = sum(i.seconds for i in self.by_size.values())
        return round(sum(i.turns for i in self.by_size.values()) / seconds, 1) if seconds else None

    @property
    def with_embedding_turns_per_s(self) -> float | None:
        return self.with_embedding.turns_per_s if self.with_embedding else None

    def to_json(self) -> JSON:
        out: JSON = {"by_size": {s: i.to_json() for s, i in self.by_size.items()},
                     "store_only_turns_per_s": self.store_only_turns_per_s}
        if self.with_embedding:
            out["with_embedding"] = self.with_embedding.to_json()
        out["with_embedding_turns_per_s"] = self.with_embedding_turns_per_s
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> IngestSummary:
        emb = d.get("with_embedding")
        return cls({s: StoreIngest.from_json(i) for s, i in d.get("by_size", {}).items()},
                   EmbedIngest.from_json(emb) if emb else None)


@dataclass(frozen=True, slots=True)
class Growth:
    """p95 at ``to`` over p95 at ``from_`` (records or users); JSON key ``from``."""

    from_: int
    to: int
    p95_growth: float | None

    @classmethod
    def of(cls, lo: int, hi: int, lo_p95: float | None, hi_p95: float | None) -> Growth:
        return cls(lo, hi, round(hi_p95 / lo_p95, 2) if lo_p95 and hi_p95 is not None else None)

    def to_json(self) -> JSON:
        return {"from": self.from_, "to": self.to, "p95_growth": self.p95_growth}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Growth:
        g = d.get("p95_growth")
        return cls(int(d["from"]), int(d["to"]), None if g is None else float(g))


@dataclass(frozen=True, slots=True)
class Scaling:
    """How p95 grows: per recipe from the smallest to the largest size, and from the fewest users to the
    most (None without a users sweep of two counts or more)."""

    records: dict[str, Growth]
    users: Growth | None

    @classmethod
    def of(cls, search: Mapping[str, Mapping[str, SearchCell]], users: Sequence[UsersRow]) -> Scaling:
        records = {}
        for recipe, by_size in search.items():
            sizes = sorted(by_size, key=int)
            if len(sizes) > 1:
                records[recipe] = Growth.of(int(sizes[0]), int(sizes[-1]), by_size[sizes[0]].timing.p95_ms,
                                            by_size[sizes[-1]].timing.p95_ms)
        rows = sorted(users, key=lambda r: r.users)
        grew = (Growth.of(rows[0].users, rows[-1].users, rows[0].latency.p95_ms, rows[-1].latency.p95_ms)
                if len(rows) > 1 else None)
        return cls(records, grew)

    def to_json(self) -> JSON:
        return {"records": {r: g.to_json() for r, g in self.records.items()},
                "users": None if self.users is None else self.users.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Scaling:
        u = d.get("users")
        return cls({r: Growth.from_json(g) for r, g in d.get("records", {}).items()},
                   None if u is None else Growth.from_json(u))


def _by_size(d: Mapping[str, Any], read: Callable[[Mapping[str, Any]], T]) -> dict[str, dict[str, T]]:
    """``{name: {size: read(cell)}}`` from the JSON's two-level mappings."""
    return {name: {s: read(c) for s, c in by_size.items()} for name, by_size in d.items()}


@dataclass(frozen=True, slots=True)
class BenchResult:
    """Everything one ``cbmemory bench`` run measured. ``search``, ``search_included``, ``peers`` map a
    recipe or peer to ``{size: cell}``; ``query_embedding``, ``neighbour``, ``users``, ``long_session`` and
    ``sparse`` (by size: the sparse vectors and query encoding of recipes with the sparse signal) are None
    (and absent from the JSON) when their runs were off."""

    machine: BenchMachine
    config: BenchConfig
    data: str
    method: str
    ingest: IngestSummary
    search: dict[str, dict[str, SearchCell]]
    search_included: dict[str, dict[str, Timing]]
    query_embedding: dict[str, Timing] | None
    peers: dict[str, dict[str, PeerCell]]
    storage: dict[str, StorageRow]
    neighbour: tuple[NeighbourRow, ...] | None
    users: tuple[UsersRow, ...] | None
    goals: tuple[GoalCheck, ...]
    scaling: Scaling
    elapsed_s: float
    long_session: tuple[LongSessionRow, ...] | None = None
    sparse: dict[str, SparseSize] | None = None

    def to_json(self) -> JSON:
        out: JSON = {
            "machine": self.machine.to_json(), "config": self.config.to_json(), "data": self.data,
            "method": self.method, "ingest": self.ingest.to_json(),
            "search": {r: {s: c.to_json() for s, c in v.items()} for r, v in self.search.items()},
            "search_included": {r: {s: c.to_json() for s, c in v.items()} for r, v in self.search_included.items()},
            "peers": {p: {s: c.to_json() for s, c in v.items()} for p, v in self.peers.items()},
            "storage": {s: st.to_json() for s, st in self.storage.items()},
            "goals": [g.to_json() for g in self.goals],
        }
        if self.query_embedding is not None:
            out["query_embedding"] = {s: t.to_json() for s, t in self.query_embedding.items()}
        if self.neighbour is not None:
            out["neighbour"] = [r.to_json() for r in self.neighbour]
        if self.users is not None:
            out["users"] = [r.to_json() for r in self.users]
        if self.long_session is not None:
            out["long_session"] = [r.to_json() for r in self.long_session]
        if self.sparse is not None:
            out["sparse"] = {s: v.to_json() for s, v in self.sparse.items()}
        out.update(scaling=self.scaling.to_json(), elapsed_s=self.elapsed_s)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> BenchResult:
        qe, nb, us, ls = d.get("query_embedding"), d.get("neighbour"), d.get("users"), d.get("long_session")
        sp = d.get("sparse")
        return cls(
            BenchMachine.from_json(d["machine"]), BenchConfig.from_json(d["config"]), str(d.get("data", "")),
            str(d.get("method", "")), IngestSummary.from_json(d.get("ingest", {})),
            _by_size(d.get("search", {}), SearchCell.from_json),
            _by_size(d.get("search_included", {}), Timing.from_json),
            None if qe is None else {s: Timing.from_json(t) for s, t in qe.items()},
            _by_size(d.get("peers", {}), PeerCell.from_json),
            {s: StorageRow.from_json(st) for s, st in d.get("storage", {}).items()},
            None if nb is None else tuple(NeighbourRow.from_json(r) for r in nb),
            None if us is None else tuple(UsersRow.from_json(r) for r in us),
            tuple(GoalCheck.from_json(g) for g in d.get("goals", [])),
            Scaling.from_json(d.get("scaling", {})), float(d.get("elapsed_s", 0.0)),
            None if ls is None else tuple(LongSessionRow.from_json(r) for r in ls),
            None if sp is None else {s: SparseSize.from_json(v) for s, v in sp.items()})


__all__ = ["MAIN_PEERS", "MAIN_RECIPES", "NEIGHBOUR_RECIPES", "BenchConfig", "BenchMachine", "BenchResult", "Growth",
           "IngestSummary", "PeerCell", "Scaling", "StorageRow"]
