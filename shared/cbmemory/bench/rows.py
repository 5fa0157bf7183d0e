"""Typed rows of the tenant-neighbour and users-sweep measurements, and the goals they are checked against.

Each row is one measurement and carries the machine facts it was taken under (``os.cpu_count()`` and the
load average read just before its timed runs). ``bench.json`` holds them as plain objects
(``dataclasses.asdict``); ``from_json`` reads them back.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

R = TypeVar("R", bound="_Row")


class _Row(Protocol):
    """A typed row that reads itself back from its JSON object."""

    @classmethod
    def from_json(cls: type[R], d: Mapping[str, Any]) -> R: ...

NEIGHBOUR_GOAL = 1.5  # p95 with the largest neighbour within 1.5x of p95 with none
USERS_GOAL = 2.0  # p95 with the most users within 2x of p95 with the fewest


@dataclass(frozen=True, slots=True)
class MachineFacts:
    cores: int
    load_average: tuple[float, float, float]  # 1, 5 and 15 minutes, at the start of the row

    @classmethod
    def now(cls) -> MachineFacts:
        load = os.getloadavg() if hasattr(os, "getloadavg") else (-1.0, -1.0, -1.0)
        return cls(os.cpu_count() or 0, (round(load[0], 2), round(load[1], 2), round(load[2], 2)))

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MachineFacts:
        la = d["load_average"]
        return cls(int(d["cores"]), (float(la[0]), float(la[1]), float(la[2])))


@dataclass(frozen=True, slots=True)
class Latency:
    """Search latency in ms, query embedding excluded: each statistic the median over ``runs`` runs of
    ``queries`` queries (``bench.timing.time_calls``)."""

    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    runs: int
    queries: int

    @classmethod
    def from_timing(cls, t: Mapping[str, Any]) -> Latency:
        return cls(float(t["p50_ms"]), float(t["p95_ms"]), float(t["p99_ms"]), float(t["mean_ms"]),
                   int(t["runs"]), int(t["queries"]))

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Latency:
        return cls.from_timing(d)


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

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> UsersRow:
        return cls(**{**d, "latency": Latency.from_json(d["latency"]), "machine": MachineFacts.from_json(d["machine"])})


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


__all__ = ["NEIGHBOUR_GOAL", "USERS_GOAL", "GoalCheck", "Latency", "MachineFacts", "NeighbourRow", "UsersRow",
           "neighbour_goals", "rows_of", "users_goals"]
