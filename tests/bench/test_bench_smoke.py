"""Unit layer (bench): a tiny ``cbmemory bench`` run (200 records per user) writes bench.json with every key
the report promises and sane numbers, and prints the table. No timed assertions: the machine is shared."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cbmemory.bench.report import format_table
from cbmemory.bench.runner import scaling, user_counts
from cbmemory.bench.synthetic import SyntheticConfig, make_queries, make_user, vocabulary
from cbmemory.bench.timing import median_of_runs, percentiles, time_calls
from cbmemory.cli import main
from cbmemory.eval.peers import missing_packages


def test_synthetic_data_is_deterministic_and_realistic():
    a, b = make_user("u", 45), make_user("u", 45)
    assert [r.record_id for r in a.records] == [r.record_id for r in b.records]
    assert np.array_equal(a.vectors, b.vectors) and a.vectors.dtype == np.float32
    assert len(a.records) == 45 and len(a.sessions) == 3  # 20 turns per session, the last one shorter
    assert np.allclose(np.linalg.norm(a.vectors, axis=1), 1, atol=1e-5)
    assert a.records[1].index_text.startswith("[Sunday, 1 January 2023] (Alex: ")  # the default recipe's ingest
    assert {r.speaker for r in a.records} == {"Alex", "Sam"}
    assert make_user("v", 45).records[0].text != a.records[0].text
    same = [float(a.vectors[i] @ a.vectors[j]) for i in range(20) for j in range(20) if i < j]
    assert 0.3 < np.mean(same) < 0.7  # one session, one topic
    queries = make_queries(a, 10)
    ids = {r.record_id: i for i, r in enumerate(a.records)}
    for q in queries:
        assert q.needle in ids and float(q.vector @ a.vectors[ids[q.needle]]) > 0.75
    assert vocabulary()[:3] == ("the", "of", "and") and len(vocabulary()) > 20_000
    assert SyntheticConfig().dimension == 384


def test_timing_statistics_are_medians_of_runs_with_warmup_excluded():
    assert percentiles([1, 2, 3, 4, 100])["p50_ms"] == 3
    assert median_of_runs([{"p95_ms": 1.0}, {"p95_ms": 9.0}, {"p95_ms": 2.0}]) == {"p95_ms": 2.0}
    calls = []
    res = time_calls(calls.append, list(range(10)), repeats=3, warmup=4)
    assert len(calls) == 4 + 30 and res["runs"] == 3 and res["queries"] == 10 and not res["partial"]
    cut = time_calls(lambda x: None, [1, 2], repeats=2, warmup=0, deadline=0.0)
    assert cut["partial"] and cut["runs"] == 0 and cut["p95_ms"] is None
    assert user_counts(1000) == [1, 10, 100, 1000] and user_counts(3) == [1, 3] and user_counts(1) == [1]


def test_bench_smoke_run_writes_bench_json_and_prints_the_table(tmp_path, capsys):
    out = tmp_path / "bench"
    rc = main(["bench", "--out", str(out), "--sizes", "200", "--users", "3", "--user-records", "40",
               "--queries", "8", "--repeats", "2", "--warmup", "2", "--embed-turns", "20",
               "--recipes", "default,vector,bm25", "--peer-cap", "120", "--quiet"])
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
    users = bench["users"]["by_users"]
    assert list(users) == ["1", "3"] and users["3"]["records"] == 120
    assert all(u["leaked_hits"] == 0 and u["p95_ms"] > 0 for u in users.values())
    assert bench["scaling"]["users"]["from"] == 1 and not list((out / "work").glob("*.db"))
    printed = capsys.readouterr().out
    assert "| cbmemory `default` |" in printed and "langchain_ensemble" in printed and "Users in one file" in printed
    assert printed.strip() == (out / "bench.md").read_text().strip()


def test_report_marks_skipped_peers_and_ratios():
    bench = {"machine": {"cores": 2}, "config": {"sizes": [1000], "k": 10, "repeats": 3, "queries": 100},
             "search": {"default": {"1000": {"p50_ms": 1.0, "p95_ms": 2.0, "p99_ms": 3.0}}},
             "peers": {"langchain_ensemble": {"1000": {"p50_ms": 20.0, "p95_ms": 30.0, "p99_ms": 40.0,
                                                        "ratio_p95": 15.0, "vs": "default"}},
                       "llamaindex_fusion": {"1000": {"skipped": "over cap: peer ran past 300 s",
                                                       "p95_ms": None}}},
             "ingest": {}, "storage": {}}
    text = format_table(bench)
    assert "1.00 / 2.00 / 3.00" in text and "(x15 vs `default`)" in text and "skipped: over cap" in text
    assert scaling({"search": {"default": {"1000": {"p95_ms": 2.0}, "10000": {"p95_ms": 3.0}}}})["records"][
        "default"]["p95_growth"] == 1.5


def test_bench_cli_refuses_bad_sizes(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--out", "x", "--sizes", "ten"])
    assert "comma-separated integers" in capsys.readouterr().err
