"""One sample of every bench row type, and a small ``BenchResult`` built from them (helpers of the bench unit
tests; not a test module)."""

from __future__ import annotations

from pathlib import Path

from cbmemory_eval.bench.result import (
    BenchConfig,
    BenchMachine,
    BenchResult,
    Growth,
    IngestSummary,
    PeerCell,
    Scaling,
    StorageRow,
)
from cbmemory_eval.bench.rows import (
    EmbedIngest,
    GoalCheck,
    Latency,
    MachineFacts,
    Measured,
    NeighbourIngest,
    NeighbourRow,
    NeighbourSearch,
    PeerResult,
    RecipeSearch,
    SearchCell,
    SearchMemory,
    SearchResult,
    StoreIngest,
    Timing,
    UsersRow,
    UsersSweep,
)
from cbmemory_eval.bench.sparse import SparseResult, SparseSize

FACTS = MachineFacts(2, (1.5, 1.25, 0.5))
TIMING = Timing(1.25, 2.5, 3.75, 1.5, 3, 100, False)
CUT = Timing(None, None, None, None, 0, 0, True)  # nothing timed: a peer past its cap
LATENCY = Latency.of(TIMING)
MEASURED = Measured(LATENCY, 0.98, 0, FACTS)
INGEST = StoreIngest(1000, 0.125, 8000.0, 4_000_000, 120.5)
EMBED = EmbedIngest(20, 0.021, 950.0)
CELL = SearchCell(TIMING, 1.0)
MEMORY = SearchMemory(80.0, 95.5, 15.5)
PEER = PeerResult(Timing(20.0, 30.0, 40.0, 25.0, 1, 37, True), None, 1.5, 40.0, 300.0)
NEIGHBOUR_ROW = NeighbourRow("bm25", 1000, 2000, 150.5, LATENCY, 1.0, 0, 9_000_000, 5000.0, 100.0, FACTS)
USERS_ROW = UsersRow("default", 20, 40, 800, LATENCY, 0.95, 0, 3_000_000, None, 110.0, FACTS)
GOAL = GoalCheck.of("users", "default", 1, 20, 2.0, 2.5, 2.0)
CONFIG = BenchConfig(out=Path("out"), sizes=(1000,), users=(1, 20), neighbour=(0, 2000), peers=("langchain_ensemble",),
                     extra={"note": "sample"})
MACHINE = BenchMachine(2, 2, "a CPU", "Linux", "3.10.12", "2.0.0", "3.45.0", (0.5, 0.25, 0.125))
SPARSE = SparseSize("splade-tiny-f16-top128", 1000, 11.5, 87.0, 12_345, 6_000_000, TIMING,
                    Timing(2.5, 5.0, 7.5, 3.0, 3, 100, False))


def samples() -> list[object]:
    """An instance of every row type (both forms of those with optional parts)."""
    return [
        TIMING, CUT, LATENCY, FACTS, MEASURED, INGEST, EMBED, CELL, MEMORY, RecipeSearch(CELL, TIMING),
        RecipeSearch(CELL, None), SearchResult({"default": RecipeSearch(CELL, TIMING)}, MEMORY, TIMING),
        SearchResult({"bm25": RecipeSearch(CELL, None)}, MEMORY, None), PEER,
        PeerResult(TIMING, 1.0, 0.5, 12.0, 200.0), PeerResult(CUT, None, 0.5, 12.0, 200.0),
        NeighbourIngest(2000, 2000, 5000.0, (150, 151), 12, 9_000_000, 130.0),
        NeighbourIngest(0, 0, None, (0, 0), 12, 1_000_000, 90.0),
        NeighbourSearch({"default": MEASURED, "bm25": MEASURED}, 100.0), NEIGHBOUR_ROW, USERS_ROW,
        UsersSweep((USERS_ROW, USERS_ROW)), GOAL, PeerCell.of("default", TIMING, PEER),
        PeerCell.of("default", TIMING, None, "over cap: peer ran past 300 s"), StorageRow.of(1000, INGEST, MEMORY),
        IngestSummary({"1000": INGEST}, EMBED), IngestSummary({}, None), Growth(1, 20, 1.25), Growth(1000, 10000, None),
        Scaling({"default": Growth(1000, 10000, 1.5)}, Growth(1, 20, 1.25)), Scaling({}, None), CONFIG, MACHINE,
        BenchConfig(out=Path("o"), users=1000), BenchMachine(1, 1, "", "", "", "", "", None),
        bench_result(), bench_result(sizes=()), SPARSE,
        SparseResult(SPARSE, SearchResult({"default_sparse": RecipeSearch(CELL, TIMING)}, MEMORY, TIMING)),
    ]


def bench_result(sizes: tuple[int, ...] = (1000,)) -> BenchResult:
    """A bench result with every part: per-size rows at ``sizes`` (none: the neighbour and users rows only,
    with the query embedding off)."""
    keys = [str(s) for s in sizes]
    return BenchResult(
        machine=MACHINE, config=BenchConfig(out=Path("out"), sizes=sizes), data="synthetic", method="wall time",
        ingest=IngestSummary({k: INGEST for k in keys}, EMBED), search={"default": {k: CELL for k in keys}},
        search_included={"default": {k: TIMING for k in keys}},
        query_embedding={k: TIMING for k in keys} if keys else None,
        peers={"langchain_ensemble": {k: PeerCell.of("default", TIMING, PEER) for k in keys}},
        storage={k: StorageRow.of(int(k), INGEST, MEMORY) for k in keys}, neighbour=(NEIGHBOUR_ROW,),
        users=(USERS_ROW,) if keys else None, goals=(GOAL,), scaling=Scaling({}, None), elapsed_s=12.5)
