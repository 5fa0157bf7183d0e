"""Integration layer (bench): a tiny ``cbmemory bench`` run (200 records per user, a 2,000-record tenant
neighbour, 1 and 20 users, one session of 400 turns) writes bench.json with every key the report promises
and sane numbers, and prints the table. No timed assertions: the machine is shared. The bench's pure parts: tests/unit/bench/test_bench.py."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from cbmemory.cli import main
from cbmemory_eval.bench.long_session import LongSessionRow
from cbmemory_eval.bench.report import format_table
from cbmemory_eval.bench.result import BenchResult
from cbmemory_eval.bench.rows import GoalCheck, Latency, MachineFacts, NeighbourRow, UsersRow, rows_of
from cbmemory_eval.peers import missing_packages


@pytest.mark.process
def test_bench_smoke_run_writes_bench_json_and_prints_the_table(tmp_path, capsys):
    out = tmp_path / "bench"
    rc = main(["bench", "--out", str(out), "--sizes", "200", "--users", "1,20", "--user-records", "40",
               "--neighbour", "0,2000", "--queries", "8", "--repeats", "2", "--warmup", "2", "--embed-turns", "20",
               "--recipes", "default,vector,bm25", "--peer-cap", "120", "--long-session", "400", "--quiet"])
    assert rc == 0
    bench = json.loads((out / "bench.json").read_text())
    assert bench["machine"]["cores"] >= 1 and bench["data"] and bench["config"]["sizes"] == [200]
    for recipe in ("default", "vector", "bm25"):
        cell = bench["search"][recipe]["200"]
        assert 0 < cell["p50_ms"] <= cell["p95_ms"] <= cell["p99_ms"] < 10_000
        assert cell["runs"] == 2 and cell["queries"] == 8 and cell["needle_hit_rate"] >= 0.75
        inc = bench["search_included"][recipe]["200"]
        assert 0 < inc["p50_ms"] < 10_000
    assert bench["query_embedding"]["200"]["p50_ms"] > 0
    for peer in ("langchain_ensemble", "llamaindex_fusion"):
        cell = bench["peers"][peer]["200"]
        assert "p95_ms" in cell and cell["vs"] == "default"
        if missing_packages(peer):
            assert cell["p95_ms"] is None and cell["skipped"]
        else:
            assert cell["p95_ms"] > 0 and cell["ratio_p95"] > 0 and cell["needle_hit_rate"] >= 0.75
    ing = bench["ingest"]
    assert ing["store_only_turns_per_s"] > 0 and ing["with_embedding_turns_per_s"] > 0
    assert ing["by_size"]["200"]["turns"] == 200 and ing["with_embedding"]["turns"] == 20
    st = bench["storage"]["200"]
    assert st["file_bytes"] > 200 * 384 * 4 and st["file_mb_per_10k"] > 0 and st["search_process_peak_rss_mb"] > 0

    neighbour = rows_of(NeighbourRow, bench["neighbour"])  # 2 sizes x the 2 default recipes
    assert [(r.recipe, r.neighbour_records) for r in neighbour] == [
        ("default", 0), ("bm25", 0), ("default", 2000), ("bm25", 2000)]
    for r in neighbour:
        _sane(r.latency, r.machine)
        assert r.user_records == 1000 and r.leaked_hits == 0 and r.needle_hit_rate >= 0.75
        assert r.file_bytes > 1000 * 384 * 4 and r.search_peak_rss_mb > 0
    big = [r for r in neighbour if r.neighbour_records == 2000]
    assert all(r.neighbour_matches_per_query > 100 and r.neighbour_ingest_turns_per_s > 0 for r in big)
    assert all(r.file_bytes > 3000 * 384 * 4 for r in big)

    users = rows_of(UsersRow, bench["users"])
    assert [(u.users, u.records) for u in users] == [(1, 40), (20, 800)]
    for u in users:
        _sane(u.latency, u.machine)
        assert u.leaked_hits == 0 and u.recipe == "default" and u.per_user_records == 40 and u.peak_rss_mb > 0
        assert u.ingest_turns_per_s > 0 and u.file_bytes > u.records * 384 * 4
    long_session = rows_of(LongSessionRow, bench["long_session"])  # one session of 400 turns, with and without
    assert [(r.recipe, r.session_turns) for r in long_session] == [("default", 400), ("default_no_window", 400)]
    for r in long_session:
        _sane(r.latency, r.machine)
        assert r.leaked_hits == 0 and r.needle_hit_rate >= 0.75 and r.file_bytes > 400 * 384 * 4
    goals = rows_of(GoalCheck, bench["goals"])
    assert [(g.row, g.recipe, g.base, g.to) for g in goals] == [
        ("neighbour", "default", 0, 2000), ("neighbour", "bm25", 0, 2000), ("users", "default", 1, 20)]
    assert all(g.ratio > 0 and g.met == (g.ratio <= g.limit) for g in goals)
    assert bench["scaling"]["users"] == {"from": 1, "to": 20, "p95_growth": goals[-1].ratio}
    assert not list((out / "work").glob("*.db*"))
    printed = capsys.readouterr().out
    assert "| cbmemory `default` |" in printed and "langchain_ensemble" in printed and "Users in one file" in printed
    assert "Tenant neighbour: one user with 1,000 records" in printed and "| `bm25` | 2,000 |" in printed
    assert "| 20 | 800 |" in printed and "neighbour `default`: p95" in printed and "goal <= x2" in printed
    assert "One long session: a user whose 400 turns are one session" in printed
    assert "| `default_no_window` | 400 |" in printed
    assert printed.strip() == (out / "bench.md").read_text().strip()
    typed = BenchResult.from_json(bench)  # bench.json reads back into the typed records, unchanged
    assert json.loads(json.dumps(typed.to_json())) == bench and format_table(typed).strip() == printed.strip()
    assert typed.search["default"]["200"].timing.runs == 2 and typed.ingest.by_size["200"].turns == 200


def _sane(lat: Latency, machine: MachineFacts) -> None:
    assert 0 < lat.p50_ms <= lat.p95_ms <= lat.p99_ms < 10_000 and lat.runs == 2 and lat.queries == 8
    assert machine.cores == os.cpu_count() and len(machine.load_average) == 3
    assert all(x >= 0 for x in machine.load_average)


@pytest.mark.process
def test_bench_rows_alone_with_keep(tmp_path, capsys):
    """The per-size rows off (``--sizes 0``): only the neighbour row; ``--keep`` leaves its file."""
    out = tmp_path / "bench"
    rc = main(["bench", "--out", str(out), "--sizes", "0", "--users", "0", "--neighbour", "0",
               "--neighbour-user-records", "60", "--neighbour-recipes", "bm25", "--queries", "4", "--repeats", "1",
               "--warmup", "0", "--embed-turns", "0", "--long-session", "off", "--keep", "--quiet"])
    assert rc == 0
    bench = json.loads((out / "bench.json").read_text())
    rows = rows_of(NeighbourRow, bench["neighbour"])
    assert len(rows) == 1 and rows[0].neighbour_records == 0 and rows[0].user_records == 60
    assert "users" not in bench and "long_session" not in bench and bench["goals"] == [] and not bench["peers"]
    assert (out / "work" / "neighbour.db").exists()
    printed = capsys.readouterr().out
    assert "Tenant neighbour" in printed and "Search latency" not in printed and "Users in one file" not in printed
    with pytest.raises(dataclasses.FrozenInstanceError):
        rows[0].recipe = "default"  # type: ignore[misc]


@pytest.mark.process
def test_bench_measures_a_sparse_recipe_up_to_its_size_cap(tmp_path, capsys):
    """``default_sparse`` at the sizes: a copy of the 100-record file given real SPLADE-tiny vectors, its searches
    encoding each query with the real encoder; at 200 records (over ``--sparse-max-size``) not measured. The
    peer compared with ``default``, the sparse copy deleted with the other files."""
    out = tmp_path / "bench"
    rc = main(["bench", "--out", str(out), "--sizes", "100,200", "--sparse-max-size", "100", "--users", "0",
               "--neighbour", "off", "--long-session", "0", "--peers", "langchain_ensemble",
               "--recipes", "default_sparse,default", "--queries", "6", "--repeats", "2", "--warmup", "1",
               "--embed-turns", "0", "--peer-cap", "120", "--quiet"])
    assert rc == 0
    bench = json.loads((out / "bench.json").read_text())
    cell = bench["search"]["default_sparse"]["100"]
    assert 0 < cell["p50_ms"] <= cell["p95_ms"] < 10_000 and cell["queries"] == 6 and cell["needle_hit_rate"] >= 0.5
    assert bench["search_included"]["default_sparse"]["100"]["p50_ms"] > 0
    assert set(bench["search"]["default_sparse"]) == {"100"} and set(bench["search"]["default"]) == {"100", "200"}
    sparse = bench["sparse"]
    assert set(sparse) == {"100"} and sparse["100"]["encoder"] == "splade-tiny-f16-top128"
    assert sparse["100"]["records"] == 100 and sparse["100"]["records_per_s"] > 0 and sparse["100"]["terms"] > 100
    assert 0 < sparse["100"]["query_encoding"]["p50_ms"] < 10_000
    assert sparse["100"]["query_encoding_all_terms"]["queries"] == 6
    assert bench["peers"]["langchain_ensemble"]["200"]["vs"] == "default"
    assert bench["ingest"]["by_size"]["100"]["file_bytes"] < sparse["100"]["file_bytes"]  # the copy, with vectors
    assert not list((out / "work").glob("*.db*"))
    printed = capsys.readouterr().out
    assert "| cbmemory `default_sparse` |" in printed and "not measured at 200 (over sparse_max_size 100)" in printed
    assert "| 100 | 100 at " in printed and "SPLADE-tiny" in bench["method"] and "Sparse vectors" in bench["data"]
