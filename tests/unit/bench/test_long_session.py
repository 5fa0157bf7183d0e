"""Unit layer (bench): the long-session row (issue 22, break 7): its rows go through JSON and back, a
``bench.json`` with or without them reads back, the report shows them with p95 against the first recipe,
and the CLI takes a number of turns or ``off``."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cbmemory.cli import main
from cbmemory_eval.bench.long_session import LONG_SESSION_RECIPES, LongSessionResult, LongSessionRow
from cbmemory_eval.bench.report import format_table
from cbmemory_eval.bench.result import BenchConfig, BenchResult
from cbmemory_eval.bench.rows import Latency, MachineFacts
from tests.unit.bench.samples import bench_result

FACTS = MachineFacts(2, (1.5, 1.0, 0.5))
ROWS = (LongSessionRow("default", 20_000, Latency(20.0, 30.0, 40.0, 22.0, 3, 100), 1.0, 0, 170_000_000, FACTS),
        LongSessionRow("default_no_window", 20_000, Latency(18.0, 24.0, 30.0, 19.0, 3, 100), 1.0, 0, 170_000_000,
                       FACTS))


def test_rows_go_through_json_and_back():
    for row in ROWS:
        assert LongSessionRow.from_json(json.loads(json.dumps(row.to_json()))) == row
    result = LongSessionResult(ROWS)
    assert LongSessionResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    assert LONG_SESSION_RECIPES == ("default", "default_no_window")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ROWS[0].recipe = "bm25"  # type: ignore[misc]


def test_bench_json_keeps_the_rows_and_reads_old_files_without_them():
    bench = dataclasses.replace(bench_result(sizes=()), long_session=ROWS)
    loaded = json.loads(json.dumps(bench.to_json()))
    assert [r["recipe"] for r in loaded["long_session"]] == ["default", "default_no_window"]
    assert BenchResult.from_json(loaded) == bench
    del loaded["long_session"]
    assert BenchResult.from_json(loaded).long_session is None and "long_session" not in bench_result().to_json()
    assert BenchConfig.from_json(bench.config.to_json()).long_session == 20_000


def test_report_shows_the_rows_against_the_first():
    text = format_table(dataclasses.replace(bench_result(sizes=()), long_session=ROWS))
    assert "One long session: a user whose 20,000 turns are one session" in text
    assert "| `default` | 20,000 | 20.0 | 30.0 | 40.0 | x1.00 | 1 | 0 |" in text
    assert "| `default_no_window` | 20,000 | 18.0 | 24.0 | 30.0 | x0.80 | 1 | 0 |" in text
    assert "One long session" not in format_table(bench_result(sizes=()))


@pytest.mark.parametrize("value", ["-1", "many"])
def test_the_cli_takes_a_number_of_turns_or_off(value, capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--out", "x", "--long-session", value])
    assert "turns" in capsys.readouterr().err
