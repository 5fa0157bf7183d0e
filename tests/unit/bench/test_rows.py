"""Unit layer (bench): every typed bench row goes through JSON and back unchanged, the rows that ``bench.json``
has always held flat keep their keys, and every row type of ``bench.rows``, ``bench.result`` and ``bench.sparse``
is covered."""

from __future__ import annotations

import dataclasses
import inspect
import json

import pytest

from cbmemory_eval.bench import result, rows, sparse
from cbmemory_eval.bench.result import BenchConfig, BenchResult, PeerCell
from cbmemory_eval.bench.rows import SearchCell, Timing
from tests.unit.bench.samples import CELL, PEER, TIMING, bench_result, samples


def _row_types() -> set[type]:
    return {c for m in (rows, result, sparse) for _, c in inspect.getmembers(m, inspect.isclass)
            if c.__module__ == m.__name__ and dataclasses.is_dataclass(c) and hasattr(c, "from_json")}


@pytest.mark.parametrize("row", samples(), ids=lambda r: type(r).__name__)
def test_row_goes_through_json_and_back(row):
    text = json.dumps(row.to_json())  # plain JSON: no default= needed
    assert type(row).from_json(json.loads(text)) == row


def test_every_row_type_has_a_sample():
    assert _row_types() - {type(r) for r in samples()} == set()
    assert all(dataclasses.fields(c) and c.__dataclass_params__.frozen for c in _row_types())


def test_bench_json_keys_stay_flat_where_they_always_were():
    assert CELL.to_json() == {"p50_ms": 1.25, "p95_ms": 2.5, "p99_ms": 3.75, "mean_ms": 1.5, "runs": 3, "queries": 100,
                              "partial": False, "needle_hit_rate": 1.0}
    skipped = PeerCell.of("default", TIMING, None, "over cap: x").to_json()
    assert skipped == {"p50_ms": None, "p95_ms": None, "p99_ms": None, "skipped": "over cap: x", "vs": "default",
                       "ratio_p50": None, "ratio_p95": None}
    cell = PeerCell.of("default", TIMING, PEER)
    assert cell.to_json()["p95_ms"] == 30.0 and cell.to_json()["build_s"] == 1.5 and cell.ratio_p95 == 12.0
    assert "skipped" not in cell.to_json()
    bench = json.loads(json.dumps(bench_result().to_json()))
    assert set(bench) == {"machine", "config", "data", "method", "ingest", "search", "search_included", "peers",
                          "storage", "goals", "query_embedding", "neighbour", "users", "scaling", "elapsed_s"}
    assert bench["ingest"]["store_only_turns_per_s"] == 8000.0 and bench["ingest"]["with_embedding_turns_per_s"] == 950
    assert bench["search"]["default"]["1000"]["needle_hit_rate"] == 1.0
    assert bench["storage"]["1000"]["file_mb_per_10k"] == 38.15
    assert bench["config"]["out"] == "out" and bench["config"]["sizes"] == [1000]
    off = bench_result(sizes=()).to_json()
    assert "users" not in off and "query_embedding" not in off and "neighbour" in off


def test_rows_read_old_and_partial_json():
    """A timing over no queries was written without ``mean_ms``; an unknown config key is left out."""
    assert Timing.from_json({"runs": 0, "queries": 0, "partial": True, "p50_ms": None, "p95_ms": None,
                             "p99_ms": None}) == Timing(None, None, None, None, 0, 0, True)
    cfg = BenchConfig.from_json({**BenchConfig(out=bench_result().config.out).to_json(), "gone": 1})
    assert cfg == BenchConfig(out=bench_result().config.out)
    assert SearchCell.from_json({**CELL.to_json(), "extra": 1}) == CELL
    old = bench_result().to_json()
    del old["query_embedding"], old["users"]
    assert BenchResult.from_json(old).users is None


def test_rows_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CELL.needle_hit_rate = 0.5  # type: ignore[misc]
