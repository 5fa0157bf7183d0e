"""Unit layer (bench, recipes with the sparse signal): the bench CLI takes a sparse recipe at its sizes and
refuses one for the tenant-neighbour row (whose file holds no sparse vectors) or two sparse encoders at once;
the sparse rows go through bench.json and the report says what is real and what is synthetic. Pure: no store,
no model, no worker process."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from cbmemory.cli import main
from cbmemory.ingest import IngestConfig
from cbmemory.recipes import RECIPES
from cbmemory_eval.bench import runner
from cbmemory_eval.bench.report import format_table
from cbmemory_eval.bench.result import BenchConfig, BenchResult
from cbmemory_eval.bench.sparse import SPARSE_MAX_SIZE
from cbmemory_eval.bench.sparse_encoding import sparse_encoder_of
from tests.unit.bench.samples import CELL, SPARSE, TIMING, bench_result


def test_the_cli_passes_a_sparse_recipe_to_the_run(monkeypatch, capsys):
    got = []
    monkeypatch.setattr(runner, "run_bench", lambda cfg, log: got.append(cfg) or bench_result())  # writes nothing
    assert main(["bench", "--out", "x", "--sizes", "1000,10000", "--recipes", "default,default_sparse",
                 "--sparse-max-size", "5000", "--quiet"]) == 0
    (cfg,) = got
    assert cfg.recipes == ("default", "default_sparse") and cfg.sparse_max_size == 5000
    assert main(["bench", "--out", "x", "--recipes", "default_sparse", "--quiet"]) == 0
    assert got[-1].sparse_max_size == SPARSE_MAX_SIZE == 10_000


def test_the_cli_refuses_sparse_recipes_for_the_tenant_neighbour_row(monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_bench", lambda cfg, log: pytest.fail("ran"))
    assert main(["bench", "--out", "x", "--neighbour-recipes", "default,default_sparse"]) != 0
    assert "the tenant-neighbour row does not run recipes with the sparse signal" in capsys.readouterr().err


def test_one_sparse_encoder_per_run():
    other = RECIPES["default_sparse"].with_(name="other_sparse",
                                           ingest=IngestConfig(with_previous_turn=True, sparse="splade-tiny-f16"))
    assert sparse_encoder_of([RECIPES["default"], RECIPES["bm25"]]) is None
    assert sparse_encoder_of([RECIPES["default"], RECIPES["default_sparse"]]) == "splade-tiny-f16-top128"
    with pytest.raises(ValueError, match="one sparse encoder"):
        sparse_encoder_of([RECIPES["default_sparse"], other])
    unnamed = other.with_(name="unnamed", ingest=IngestConfig())
    with pytest.raises(ValueError, match="must name"):
        sparse_encoder_of([unnamed])


def test_the_sparse_rows_go_through_bench_json_and_the_report():
    base = bench_result(sizes=(1000, 10_000))
    bench = dataclasses.replace(
        base, config=dataclasses.replace(base.config, recipes=("default", "default_sparse")),
        search={**base.search, "default_sparse": {"1000": CELL}},
        search_included={**base.search_included, "default_sparse": {"1000": TIMING}},
        sparse={"1000": SPARSE})
    loaded = json.loads(json.dumps(bench.to_json()))
    assert loaded["sparse"]["1000"]["terms"] == 12_345 and loaded["config"]["sparse_max_size"] == 10_000
    assert BenchResult.from_json(loaded) == bench and format_table(loaded) == format_table(bench)
    text = format_table(bench)
    assert "| cbmemory `default_sparse` | 1.25 / 2.50 / 3.75 | - |" in text  # not measured at 10k
    assert "given `splade-tiny-f16-top128` vectors by the real encoder" in text
    assert "not measured at 10k (over sparse_max_size 10,000)" in text
    assert "| 1k | 1,000 at 87/s | 12,345 | 1.25 / 2.50 / 3.75 | 2.50 / 5.00 / 7.50 |" in text
    assert "sparse" not in base.to_json() and "Recipes with the sparse signal" not in format_table(base)


def test_a_bench_json_of_before_the_sparse_rows_still_reads():
    old = bench_result().to_json()
    del old["config"]["sparse_max_size"]
    assert BenchResult.from_json(old).config.sparse_max_size == SPARSE_MAX_SIZE
    assert BenchConfig.from_json({"out": "x"}) == BenchConfig(out=Path("x"))
