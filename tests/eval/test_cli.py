"""Eval layer (fast): the ``cbmemory eval`` and ``cbmemory demo`` commands end to end on a small file."""

import json

from cbmemory.cli import main


def test_eval_locomo_command(locomo_file, tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--recipes", "vector,hybrid",
               "--k", "3", "--scale", "1,2", "--quiet"])
    assert rc == 0
    printed = capsys.readouterr()
    assert "**recall@3**" in printed.out and "| vector@x2 |" in printed.out and "adding the bm25" in printed.err
    summary = json.loads((out / "summary.json").read_text())
    assert {"vector@x1", "vector@x2", "hybrid@x1", "bm25@x2", "oracle@x1", "full_context@x2"} <= set(summary["results"])
    assert summary["settings"]["scales"] == [1, 2] and summary["settings"]["data"] == str(locomo_file)
    assert (out / "heatmap.png").exists() and (out / "matrix.md").exists()
    rc = main(["eval", "report", "--out", str(out), "--metrics", "ndcg@3,session_recall@3"])
    assert rc == 0 and "**session_recall@3**" in capsys.readouterr().out


def test_eval_longmemeval_command_with_limit(lme_file, tmp_path, capsys):
    out = tmp_path / "lme"
    rc = main(["eval", "longmemeval", "--data", str(lme_file), "--out", str(out), "--recipes", "bm25",
               "--limit", "2", "--baselines", "", "--quiet"])
    assert rc == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"]["bm25"]["overall"]["n"] == 2


def test_missing_data_says_how_to_get_it(tmp_path, capsys):
    assert main(["demo", "--data", str(tmp_path / "nope.json"), "--out", str(tmp_path / "d")]) == 2
    assert "download_official" in capsys.readouterr().err
    assert main(["eval", "longmemeval", "--data", str(tmp_path / "x.json"), "--out", str(tmp_path / "e")]) == 2
    assert "LongMemEval is not at" in capsys.readouterr().err


def test_unknown_recipe_is_a_clear_error(locomo_file, tmp_path, capsys):
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "x"), "--recipes", "nope"])
    assert rc == 2 and "unknown recipe 'nope'" in capsys.readouterr().err
