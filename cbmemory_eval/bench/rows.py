"""Typed rows of the bench: what each measurement process returns and the rows ``bench.json`` holds.

A worker (``bench.worker``, one process per measurement) prints its row's ``to_json()``; the runner reads it
back with ``from_json``. The rows measured under load (tenant neighbour, users sweep) carry the machine facts
they were taken under (``os.cpu_count()`` and the load average read just before their timed runs).
``from_json`` takes a parsed JSON object (``Mapping[str, Any]``: ``json.loads`` gives ``Any``) and converts
each field; ``to_json`` gives a JSON-ready object. Where a row nests another (a ``Timing`` in a
``SearchCell``) but ``bench.json`` has always held it flat, ``to_json`` flattens it and ``from_json`` reads it
back from the flat object.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol, TypeVar

R = TypeVar("R", bound="Row")
JSON = dict[str, object]  # a row as a JSON-ready object


class Row(Protocol):
    """A typed row that writes itself as a JSON object and reads itself back."""

    def to_json(self) -> JSON: ...

    @classmethod
    def from_json(cls: type[R], d: Mapping[str, Any]) -> R: ...


NEIGHBOUR_GOAL = 1.5  # p95 with the largest neighbour within 1.5x of p95 with none
USERS_GOAL = 2.0  # p95 with the most users within 2x of p95 with the fewest


def float_or_none(x: Any) -> float | None:
    """A JSON number, or None."""
    return None if x is None else float(x)


def _opt(row: Row | None) -> JSON | None:
    return None if row is None else row.to_json()


@dataclass(frozen=True, slots=True)
class Timing:
    """A ``bench.timing.time_calls`` result in ms: each statistic the median over ``runs`` runs of ``queries``
    calls, warm-up excluded; ``partial`` when a deadline cut a run short. The statistics are None when
    nothing was timed (a peer past its cap)."""

    p50_ms: float | None
    p95_ms: float | None
    p99_ms: float | None
    mean_ms: float | None
    runs: int
    queries: int
    partial: bool

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Timing:
        return cls(float_or_none(d.get("p50_ms")), float_or_none(d.get("p95_ms")), float_or_none(d.get("p99_ms")),
                   float_or_none(d.get("mean_ms")), int(d["runs"]), int(d["queries"]), bool(d.get("partial", False)))


@dataclass(frozen=True, slots=True)
class Latency:
    """Search latency in ms, query embedding excluded: each statistic the median over ``runs`` runs of
    ``queries`` queries (a ``Timing`` where something was timed)."""

    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    runs: int
    queries: int

    @classmethod
    def of(cls, t: Timing) -> Latency:
        if t.p50_ms is None or t.p95_ms is None or t.p99_ms is None or t.mean_ms is None:
            raise ValueError("no latency: nothing was timed")
        return cls(t.p50_ms, t.p95_ms, t.p99_ms, t.mean_ms, t.runs, t.queries)

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Latency:
        return cls(float(d["p50_ms"]), float(d["p95_ms"]), float(d["p99_ms"]), float(d["mean_ms"]),
                   int(d["runs"]), int(d["queries"]))


@dataclass(frozen=True, slots=True)
class MachineFacts:
    cores: int
    load_average: tuple[float, float, float]  # 1, 5 and 15 minutes, at the start of the row

    @classmethod
    def now(cls) -> MachineFacts:
        load = os.getloadavg() if hasattr(os, "getloadavg") else (-1.0, -1.0, -1.0)
        return cls(os.cpu_count() or 0, (round(load[0], 2), round(load[1], 2), round(load[2], 2)))

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MachineFacts:
        la = d["load_average"]
        return cls(int(d["cores"]), (float(la[0]), float(la[1]), float(la[2])))


# --- the per-size rows: store-only ingest, search per recipe, peers, ingest with the embedder ----------------

@dataclass(frozen=True, slots=True)
class StoreIngest:
    """Store-only ingest of one user (precomputed vectors, ``store.write`` in batches): ``turns`` records in
    ``seconds`` spent in ``store.write``; the file's size and the process's peak memory after it."""

    turns: int
    seconds: float
    turns_per_s: float
    file_bytes: int
    peak_rss_mb: float

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> StoreIngest:
        return cls(int(d["turns"]), float(d["seconds"]), float(d["turns_per_s"]), int(d["file_bytes"]),
                   float(d["peak_rss_mb"]))


@dataclass(frozen=True, slots=True)
class EmbedIngest:
    """Ingest through ``AgentMemory.add_sessions`` with the offline embedder: ``turns`` in ``seconds``."""

    turns: int
    seconds: float
    turns_per_s: float

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> EmbedIngest:
        return cls(int(d["turns"]), float(d["seconds"]), float(d["turns_per_s"]))


@dataclass(frozen=True, slots=True)
class SearchCell:
    """One recipe at one size, query embedding excluded: its timing and the share of queries whose needle
    was in the top k. JSON: the timing's keys and ``needle_hit_rate``, flat."""

    timing: Timing
    needle_hit_rate: float

    def to_json(self) -> JSON:
        return {**self.timing.to_json(), "needle_hit_rate": self.needle_hit_rate}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SearchCell:
        return cls(Timing.from_json(d), float(d["needle_hit_rate"]))


@dataclass(frozen=True, slots=True)
class SearchMemory:
    """Resident memory of the search process (MiB): before the searches, its peak after them, and the
    difference."""

    baseline_rss_mb: float
    peak_rss_mb: float
    search_rss_mb: float

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SearchMemory:
        return cls(float(d["baseline_rss_mb"]), float(d["peak_rss_mb"]), float(d["search_rss_mb"]))


@dataclass(frozen=True, slots=True)
class RecipeSearch:
    """One recipe on one file: query embedding excluded, and included (None when not run)."""

    excluded: SearchCell
    included: Timing | None

    def to_json(self) -> JSON:
        return {"excluded": self.excluded.to_json(), "included": _opt(self.included)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> RecipeSearch:
        inc = d.get("included")
        return cls(SearchCell.from_json(d["excluded"]), None if inc is None else Timing.from_json(inc))


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The search worker's result for one size: each recipe, the process's memory, and the query embedding
    alone (None when the included runs were off)."""

    recipes: dict[str, RecipeSearch]
    memory: SearchMemory
    query_embedding: Timing | None

    def to_json(self) -> JSON:
        return {"recipes": {r: v.to_json() for r, v in self.recipes.items()}, "memory": self.memory.to_json(),
                "query_embedding": _opt(self.query_embedding)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SearchResult:
        qe = d.get("query_embedding")
        return cls({r: RecipeSearch.from_json(v) for r, v in d["recipes"].items()},
                   SearchMemory.from_json(d["memory"]), None if qe is None else Timing.from_json(qe))


@dataclass(frozen=True, slots=True)
class PeerResult:
    """One peer at one size: its search timing (query vectors precomputed; cut short at its cap), the needle
    hit rate (None when the cap came first), build time and memory. JSON: flat."""

    timing: Timing
    needle_hit_rate: float | None
    build_s: float
    index_rss_mb: float
    peak_rss_mb: float

    def to_json(self) -> JSON:
        return {**self.timing.to_json(), "needle_hit_rate": self.needle_hit_rate, "build_s": self.build_s,
                "index_rss_mb": self.index_rss_mb, "peak_rss_mb": self.peak_rss_mb}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PeerResult:
        return cls(Timing.from_json(d), float_or_none(d.get("needle_hit_rate")), float(d["build_s"]),
                   float(d["index_rss_mb"]), float(d["peak_rss_mb"]))


# --- the tenant-neighbour row and the users sweep ----------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Measured:
    """One recipe over a query set (``bench.worker._measure``): its latency, the machine facts read just
    before, the share of needles found and the hits of other users (must be 0)."""

    latency: Latency
    needle_hit_rate: float
    leaked_hits: int
    machine: MachineFacts

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Measured:
        return cls(Latency.from_json(d["latency"]), float(d["needle_hit_rate"]), int(d["leaked_hits"]),
                   MachineFacts.from_json(d["machine"]))


@dataclass(frozen=True, slots=True)
class NeighbourIngest:
    """The neighbour tenant grown to ``neighbour_records`` (``added`` of them by this process, at
    ``turns_per_s`` in ``store.write``); per query, the neighbour's records holding one of its words."""

    neighbour_records: int
    added: int
    turns_per_s: float | None
    matches: tuple[int, ...]
    pool_words: int
    file_bytes: int
    peak_rss_mb: float

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NeighbourIngest:
        return cls(int(d["neighbour_records"]), int(d["added"]), float_or_none(d.get("turns_per_s")),
                   tuple(int(m) for m in d["matches"]), int(d["pool_words"]), int(d["file_bytes"]),
                   float(d["peak_rss_mb"]))


@dataclass(frozen=True, slots=True)
class NeighbourSearch:
    """Each recipe measured for the user of a tenant-neighbour file, and the search process's peak memory."""

    recipes: dict[str, Measured]
    peak_rss_mb: float

    def to_json(self) -> JSON:
        return {"recipes": {r: m.to_json() for r, m in self.recipes.items()}, "peak_rss_mb": self.peak_rss_mb}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NeighbourSearch:
        return cls({r: Measured.from_json(m) for r, m in d["recipes"].items()}, float(d["peak_rss_mb"]))


@dataclass(frozen=True, slots=True)
class NeighbourRow:
    """One recipe's latency for the measured user while another tenant of the same file holds
    ``neighbour_records`` records, each with some of the measured user's query words."""

    recipe: str
    user_records: int
    neighbour_records: int
    neighbour_matches_per_query: float  # mean number of the neighbour's records holding a word of a query
    latency: Latency
    needle_hit_rate: float
    leaked_hits: int  # hits of the neighbour returned to the measured user (must be 0)
    file_bytes: int
    neighbour_ingest_turns_per_s: float | None  # store.write throughput for the records added for this row
    search_peak_rss_mb: float
    machine: MachineFacts

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NeighbourRow:
        return cls(**{**d, "latency": Latency.from_json(d["latency"]), "machine": MachineFacts.from_json(d["machine"])})


@dataclass(frozen=True, slots=True)
class UsersRow:
    """Latency of ``recipe`` for queries of random users when one file holds ``users`` users of
    ``per_user_records`` records each."""

    recipe: str
    users: int
    per_user_records: int
    records: int
    latency: Latency
    needle_hit_rate: float
    leaked_hits: int  # other users' records returned (must be 0)
    file_bytes: int
    ingest_turns_per_s: float | None  # store.write throughput for the users added for this row
    peak_rss_mb: float  # the sweep process so far (the store's per-user caches included)
    machine: MachineFacts

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UsersRow:
        return cls(**{**d, "latency": Latency.from_json(d["latency"]), "machine": MachineFacts.from_json(d["machine"])})


@dataclass(frozen=True, slots=True)
class UsersSweep:
    """The users-sweep worker's result: one row per count of users."""

    rows: tuple[UsersRow, ...]

    def to_json(self) -> JSON:
        return {"rows": [r.to_json() for r in self.rows]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UsersSweep:
        return cls(tuple(UsersRow.from_json(r) for r in d["rows"]))


@dataclass(frozen=True, slots=True)
class GoalCheck:
    """p95 at ``to`` over p95 at ``base`` against ``limit``."""

    row: str  # "neighbour" or "users"
    recipe: str
    base: int  # neighbour records, or users
    to: int
    base_p95_ms: float
    to_p95_ms: float
    ratio: float
    limit: float
    met: bool

    @classmethod
    def of(cls, row: str, recipe: str, base: int, to: int, base_p95: float, to_p95: float, limit: float) -> GoalCheck:
        ratio = round(to_p95 / base_p95, 2) if base_p95 > 0 else float("inf")
        return cls(row, recipe, base, to, base_p95, to_p95, ratio, limit, ratio <= limit)

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> GoalCheck:
        return cls(**d)


def neighbour_goals(rows: Sequence[NeighbourRow], limit: float = NEIGHBOUR_GOAL) -> list[GoalCheck]:
    """Per recipe: p95 with the largest neighbour against p95 with the smallest (none, where measured)."""
    out = []
    for recipe in dict.fromkeys(r.recipe for r in rows):
        mine = sorted((r for r in rows if r.recipe == recipe), key=lambda r: r.neighbour_records)
        if len(mine) > 1:
            lo, hi = mine[0], mine[-1]
            out.append(GoalCheck.of("neighbour", recipe, lo.neighbour_records, hi.neighbour_records,
                                    lo.latency.p95_ms, hi.latency.p95_ms, limit))
    return out


def users_goals(rows: Sequence[UsersRow], limit: float = USERS_GOAL) -> list[GoalCheck]:
    """Per recipe: p95 with the most users against p95 with the fewest."""
    out = []
    for recipe in dict.fromkeys(r.recipe for r in rows):
        mine = sorted((r for r in rows if r.recipe == recipe), key=lambda r: r.users)
        if len(mine) > 1:
            lo, hi = mine[0], mine[-1]
            out.append(GoalCheck.of("users", recipe, lo.users, hi.users, lo.latency.p95_ms, hi.latency.p95_ms,
                                    limit))
    return out


def rows_of(cls: type[R], items: Iterable[Any]) -> list[R]:
    """Typed rows from ``items`` that are rows already or their JSON objects (a loaded ``bench.json``)."""
    return [x if isinstance(x, cls) else cls.from_json(x) for x in items]


__all__ = ["JSON", "NEIGHBOUR_GOAL", "USERS_GOAL", "EmbedIngest", "GoalCheck", "Latency", "MachineFacts", "Measured",
           "NeighbourIngest", "NeighbourRow", "NeighbourSearch", "PeerResult", "RecipeSearch", "Row", "SearchCell",
           "SearchMemory", "SearchResult", "StoreIngest", "Timing", "UsersRow", "UsersSweep", "float_or_none",
           "neighbour_goals", "rows_of", "users_goals"]
