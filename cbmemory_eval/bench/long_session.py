"""The long-session row of the bench: search latency for a user whose memory is one long session (one
long-running agent thread of ``turns`` turns), for ``default`` (each hit shown with the turns before and after
it) and ``default_no_window`` (the same hits alone). Their difference is the cost of reading a hit's
neighbours, which must not grow with the length of its session (issue 22, break 7).

The session is made like every synthetic user (``bench.synthetic``), all of it one session; a fresh process
(``bench.worker`` task ``long_session``) writes it, then times each recipe on its needle queries (query
vectors precomputed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .rows import JSON, Latency, MachineFacts

LONG_SESSION_USER = "long-session-user"
LONG_SESSION_RECIPES = ("default", "default_no_window")


@dataclass(frozen=True, slots=True)
class LongSessionRow:
    """One recipe's latency (query embedding excluded) for a user whose ``session_turns`` turns are one
    session; needle hit rate and other users' hits (must be 0) as in the other rows."""

    recipe: str
    session_turns: int
    latency: Latency
    needle_hit_rate: float
    leaked_hits: int
    file_bytes: int
    machine: MachineFacts

    def to_json(self) -> JSON:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LongSessionRow:
        return cls(str(d["recipe"]), int(d["session_turns"]), Latency.from_json(d["latency"]),
                   float(d["needle_hit_rate"]), int(d["leaked_hits"]), int(d["file_bytes"]),
                   MachineFacts.from_json(d["machine"]))


@dataclass(frozen=True, slots=True)
class LongSessionResult:
    """The ``long_session`` worker's result: one row per recipe."""

    rows: tuple[LongSessionRow, ...]

    def to_json(self) -> JSON:
        return {"rows": [r.to_json() for r in self.rows]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> LongSessionResult:
        return cls(tuple(LongSessionRow.from_json(r) for r in d["rows"]))


def task_long_session(spec: Mapping[str, Any]) -> LongSessionResult:
    """Write one user's ``turns`` turns as one session to a new file, then time each of ``recipes`` on
    ``queries`` needle queries of that user."""
    from cbmemory.store import SQLiteStore

    from .measure import file_bytes, measure_searches, searcher, write_user
    from .synthetic import SyntheticConfig, make_queries, make_user

    turns = int(spec["turns"])
    cfg = SyntheticConfig(seed=int(spec.get("seed", 0)), turns_per_session=turns)
    user = make_user(LONG_SESSION_USER, turns, cfg)
    queries = make_queries(user, int(spec["queries"]), cfg)
    vectors = {q.text: q.vector for q in queries}
    store = SQLiteStore(spec["db"])
    store.bind_embedder("all-MiniLM-L6-v2-int8-onnx", cfg.dimension)
    write_user(store, user)
    rows = []
    for recipe in spec["recipes"]:
        m = measure_searches(searcher(store, recipe, vectors, int(spec["k"])), queries, int(spec["repeats"]),
                             int(spec["warmup"]))
        rows.append(LongSessionRow(recipe, turns, m.latency, m.needle_hit_rate, m.leaked_hits,
                                   file_bytes(spec["db"]), m.machine))
    store.close()
    return LongSessionResult(tuple(rows))


def run_long_session(turns: int, work: Path, common: Mapping[str, object], queries: int,
                     log: Callable[[str], None]) -> tuple[LongSessionRow, ...]:
    """The long-session row in its own process; its file is deleted afterwards."""
    from .process import run_worker

    db = work / "long-session.db"
    log(f"[bench] long session: one session of {turns:,} turns, recipes {', '.join(LONG_SESSION_RECIPES)}")
    try:
        res = run_worker("long_session", {**common, "db": str(db), "turns": turns, "queries": queries,
                                          "recipes": list(LONG_SESSION_RECIPES)}, LongSessionResult)
    finally:
        for f in work.glob("long-session.db*"):
            f.unlink(missing_ok=True)
    for r in res.rows:
        log(f"[bench] long session: `{r.recipe}` p50 {r.latency.p50_ms} ms, p95 {r.latency.p95_ms} ms")
    return res.rows


__all__ = ["LONG_SESSION_RECIPES", "LongSessionResult", "LongSessionRow", "run_long_session", "task_long_session"]
