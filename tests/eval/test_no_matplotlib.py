"""Eval layer (fast): ``cbmemory eval`` without matplotlib (an install without the ``eval`` extra) says so
before the run starts, then writes the tables and skips only the heatmap; it does not crash at the end.
matplotlib is blocked for the test (``sys.modules["matplotlib"] = None`` makes its import fail)."""

import json
import sys

import pytest

from cbmemory.cli import main
from cbmemory_eval import runner
from cbmemory_eval.report import PLOT_NOTE, can_plot


@pytest.mark.heavy
def test_eval_without_matplotlib_writes_the_tables_and_says_why_no_picture(locomo_file, tmp_path, capsys,
                                                                           monkeypatch):
    assert can_plot()  # the dev install has it
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert not can_plot()
    said_before_the_run: list[str] = []
    real_run = runner.run_eval

    def run_eval(*args, **kwargs):
        said_before_the_run.append(capsys.readouterr().err)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(runner, "run_eval", run_eval)
    out = tmp_path / "noplot"
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--recipes", "vector", "--k", "3",
               "--ks", "3", "--quiet"])
    assert rc == 0
    assert PLOT_NOTE in said_before_the_run[0] and 'pip install "cbmemory[eval]"' in PLOT_NOTE
    printed = capsys.readouterr()
    assert "**recall@3**" in printed.out and "heatmap.png" not in printed.out.splitlines()[-1]
    assert PLOT_NOTE in printed.err
    assert (out / "matrix.md").exists() and "vector" in json.loads((out / "summary.json").read_text())["results"]
    assert not (out / "heatmap.png").exists()
    assert main(["eval", "report", "--out", str(out)]) == 0  # the report step alone, too
    assert PLOT_NOTE in capsys.readouterr().err and not (out / "heatmap.png").exists()
