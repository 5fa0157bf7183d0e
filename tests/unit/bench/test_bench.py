"""Unit layer (bench): synthetic data, timing statistics, the report read back from typed rows and the
bench CLI's checks of its arguments; pure functions, no store, no model, no files."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from cbmemory.cli import main
from cbmemory_eval.bench.report import format_table
from cbmemory_eval.bench.result import BenchResult, Growth, PeerCell, Scaling
from cbmemory_eval.bench.rows import (
    GoalCheck,
    Latency,
    MachineFacts,
    NeighbourRow,
    PeerResult,
    SearchCell,
    Timing,
    UsersRow,
    rows_of,
)
from cbmemory_eval.bench.runner import sweep_counts, user_counts
from cbmemory_eval.bench.synthetic import (
    SyntheticConfig,
    make_neighbour,
    make_queries,
    make_user,
    query_words,
    vocabulary,
    whole_sessions,
)
from cbmemory_eval.bench.timing import median_of_runs, percentiles, time_calls
from tests.unit.bench.samples import bench_result


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
    assert len(calls) == 4 + 30 and res.runs == 3 and res.queries == 10 and not res.partial
    assert res.p50_ms is not None and res.p50_ms <= res.p95_ms <= res.p99_ms
    cut = time_calls(lambda x: None, [1, 2], repeats=2, warmup=0, deadline=0.0)
    assert cut == Timing(None, None, None, None, runs=0, queries=0, partial=True)
    with pytest.raises(ValueError):
        Latency.of(cut)
    assert user_counts(1000) == [1, 10, 100, 1000] and user_counts(3) == [1, 3] and user_counts(1) == [1]
    assert sweep_counts(0) == [] and sweep_counts(()) == [] and sweep_counts((10_000, 1, 100, 1)) == [1, 100, 10_000]


def test_neighbour_tenant_holds_the_query_words_in_whole_sessions():
    user = make_user("bench-user", 100)
    queries = make_queries(user, 4)
    pool = sorted({w for q in queries for w in query_words(q)})
    assert len(pool) >= 4 and "say" not in pool  # the template's words are not query words
    assert all(set(query_words(q)) <= set(q.text.lower().replace(",", " ").replace("?", " ").split())
               for q in queries)
    batches = list(make_neighbour("nb", 0, 120, pool, batch=50))  # 50 rounds to 40 (2 whole sessions)
    assert [len(b.user.records) for b in batches] == [40, 40, 40]
    records = [r for b in batches for r in b.user.records]
    assert len({r.record_id for r in records}) == 120 and {r.user_id for r in records} == {"nb"}
    assert [s.session_id for b in batches for s in b.user.sessions] == [f"s{i:05d}" for i in range(6)]
    for b in batches:
        assert b.injected.shape == (40, 3) and b.user.vectors.shape == (40, 384)
        for rec, idx, holds in zip(b.user.records, b.injected, b.holds, strict=True):
            assert len(set(idx.tolist())) == 3 and rec.text.split()[-3:] == [pool[i] for i in idx]
            assert holds[idx].all() and all(w in rec.index_text.lower() for w in np.asarray(pool)[holds])
        assert b.holds.sum() > b.injected.size  # a turn is also indexed with the one it answers
    again = list(make_neighbour("nb", 40, 120, pool, batch=50))  # growing later: the same records from 40 on
    assert [r.record_id for b in again for r in b.user.records] == [r.record_id for r in records[40:]]
    assert whole_sessions(0) == 0 and whole_sessions(2_001) == 2_020
    with pytest.raises(ValueError):
        next(make_neighbour("nb", 10, 40, pool))


def test_report_marks_skipped_peers_and_ratios():
    ours = Timing(1.0, 2.0, 3.0, 1.5, 3, 100, False)
    theirs = PeerResult(Timing(20.0, 30.0, 40.0, 25.0, 3, 100, False), 1.0, 0.5, 12.0, 300.0)
    partial = PeerResult(Timing(20.0, 30.0, 40.0, 25.0, 1, 37, True), None, 0.5, 12.0, 300.0)
    peers = {"langchain_ensemble": {"1000": PeerCell.of("default", ours, theirs)},
             "llamaindex_fusion": {"1000": PeerCell.of("default", ours, None, "over cap: peer ran past 300 s")},
             "langchain_vector": {"1000": PeerCell.of("vector", ours, partial)}}
    search = {"default": {"1000": SearchCell(ours, 1.0)}, "vector": {"1000": SearchCell(ours, 0.9)}}
    text = format_table(dataclasses.replace(bench_result(), search=search, peers=peers, search_included={}))
    assert "| cbmemory `default` | 1.00 / 2.00 / 3.00 |" in text
    assert "(x15 vs `default`)" in text and "skipped: over cap" in text and "20.0 / 30.0 / 40.0 (37 q)" in text
    assert "| langchain_vector | - |" in text  # a peer's needle hit rate when its cap came first
    assert PeerCell.of("default", ours, theirs).ratio_p50 == 20.0
    search["default"]["10000"] = SearchCell(dataclasses.replace(ours, p95_ms=3.0), 1.0)
    assert Scaling.of(search, []) == Scaling({"default": Growth(1000, 10000, 1.5)}, None)


def test_report_reads_typed_rows_back_from_json():
    facts = MachineFacts(2, (1.5, 1.0, 0.5))
    lat = Latency(1.0, 2.0, 3.0, 1.2, 3, 100)
    rows = [NeighbourRow("default", 1000, n, n / 10, lat if n == 0 else dataclasses.replace(lat, p95_ms=2.5), 1.0, 0,
                         10_000_000, None if n == 0 else 7000.0, 80.0, facts) for n in (0, 100_000)]
    users = [UsersRow("default", u, 100, u * 100, lat, 1.0, 0, u * 400_000, 6000.0, 90.0, facts) for u in (1, 100)]
    goal = GoalCheck.of("neighbour", "default", 0, 100_000, 2.0, 2.5, 1.5)
    assert goal.ratio == 1.25 and goal.met and not GoalCheck.of("users", "default", 1, 100, 2.0, 5.0, 2.0).met
    bench = dataclasses.replace(bench_result(sizes=()), neighbour=tuple(rows), users=tuple(users), goals=(goal,))
    loaded = json.loads(json.dumps(bench.to_json()))
    assert rows_of(NeighbourRow, loaded["neighbour"]) == rows and rows_of(UsersRow, loaded["users"]) == users
    assert BenchResult.from_json(loaded) == bench and format_table(bench) == format_table(loaded)
    text = format_table(bench)
    assert "| `default` | 100,000 | 10,000 | 1.00 | 2.50 | 3.00 | x1.25 |" in text and "2 / 1.50 1.00 0.50" in text
    assert "x1.25, goal <= x1.5: met" in text and "| 100 | 10,000 |" in text
    assert "Search latency" not in text and "Ingest with the offline embedder: 950.0 turns/s (20 turns" in text


def test_bench_cli_refuses_bad_sizes(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--out", "x", "--sizes", "ten"])
    assert "comma-separated integers" in capsys.readouterr().err
    for flag, value in (("--neighbour", "-5"), ("--users", "1,x"), ("--users", "-1")):
        with pytest.raises(SystemExit):
            main(["bench", "--out", "x", flag, value])
