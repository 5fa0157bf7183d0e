"""Eval layer (fast): the ``cbmemory eval`` and ``cbmemory demo`` commands end to end on a small file."""

import json

import pytest

from cbmemory.cli import main


@pytest.mark.heavy
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


@pytest.mark.heavy
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


@pytest.mark.heavy
def test_baselines_none_leaves_out_every_extra_row(locomo_file, tmp_path, capsys):
    out = tmp_path / "bare"
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--recipes", "vector", "--k", "3",
               "--ks", "3", "--baselines", "none", "--quiet"])
    assert rc == 0 and "adding the bm25" not in capsys.readouterr().err
    assert set(json.loads((out / "summary.json").read_text())["results"]) == {"vector"}
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "some"), "--recipes", "vector",
               "--k", "3", "--ks", "3", "--baselines", "bm25,oracle", "--quiet"])
    assert rc == 0
    assert set(json.loads((tmp_path / "some" / "summary.json").read_text())["results"]) == {"vector", "bm25", "oracle"}
    rc = main(["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "x"), "--baselines", "oracel"])
    assert rc == 2 and "unknown extra row 'oracel'" in capsys.readouterr().err


@pytest.mark.heavy
def test_sample_is_recorded_and_a_resumed_run_must_draw_the_same(locomo_file, tmp_path, capsys):
    out = tmp_path / "sample"
    args = ["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--recipes", "bm25", "--k", "3",
            "--ks", "3", "--baselines", "none", "--quiet"]
    assert main([*args, "--sample", "temporal=2,other=3", "--sample-seed", "5"]) == 0
    assert "sample temporal=2,other=3 (seed 5): 5 questions from 2 conversations" in capsys.readouterr().err
    run = json.loads((out / "run.json").read_text())
    assert run["sample"] == "temporal=2,other=3" and run["sample_seed"] == 5 and len(run["question_ids"]) == 5
    recs = [json.loads(line) for line in (out / "questions" / "bm25.jsonl").read_text().splitlines()]
    assert sorted(r["question_id"] for r in recs) == sorted(run["question_ids"])
    assert sum(r["category"] == "temporal" for r in recs) == 2
    assert main([*args, "--sample", "temporal=2,other=3", "--sample-seed", "5"]) == 0  # resumes: same draw
    assert len((out / "questions" / "bm25.jsonl").read_text().splitlines()) == 5
    assert main([*args, "--sample", "temporal=1,other=3", "--sample-seed", "5"]) == 2
    assert "holds a run on other questions" in capsys.readouterr().err
    assert main([*args, "--sample", "temporal=1,other=3", "--fresh"]) == 0
    assert main([*args, "--sample", "dates=2"]) == 2
    assert "'dates', not a category of this dataset" in capsys.readouterr().err


def test_sample_and_limit_are_exclusive_and_a_bad_spec_is_a_usage_error(locomo_file, tmp_path, capsys):
    base = ["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "x")]
    for extra in (["--sample", "temporal=2", "--limit", "3"], ["--sample", "temporal"]):
        with pytest.raises(SystemExit) as exc:
            main([*base, *extra])
        assert exc.value.code == 2
    assert "NAME=N" in capsys.readouterr().err


@pytest.mark.heavy
def test_report_refuses_an_unknown_metric_without_rewriting_the_tables(locomo_file, tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--recipes", "bm25", "--k", "3",
                 "--ks", "3", "--baselines", "none", "--quiet"]) == 0
    capsys.readouterr()
    matrix, heatmap = (out / "matrix.md").read_bytes(), (out / "heatmap.png").read_bytes()
    assert main(["eval", "report", "--out", str(out), "--metrics", "bogus@10,recall@3"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1 and "Traceback" not in printed.err
    assert "no row of this run has the metric bogus@10; it has e.g. recall@3" in printed.err
    assert (out / "matrix.md").read_bytes() == matrix and (out / "heatmap.png").read_bytes() == heatmap


@pytest.mark.heavy
def test_ingest_progress_names_each_setting_and_a_rerun_stores_nothing_new(locomo_file, tmp_path, capsys):
    args = ["eval", "locomo", "--data", str(locomo_file), "--out", str(tmp_path / "p"), "--recipes",
            "vector,vector_no_dates", "--k", "3", "--ks", "3", "--baselines", "none"]
    assert main(args) == 0
    err = capsys.readouterr().err
    turns = sum(len(t) for c in json.loads(locomo_file.read_text()) for k, t in c["conversation"].items()
                if k.startswith("session_") and not k.endswith("date_time"))
    assert "embedding conv-" in err and ": dates off, previous turn off" in err  # the bar's readable label
    for label in ("dates on, previous turn off", "dates off, previous turn off"):  # totals per setting
        assert f"ingest {label}: {turns:,} turns of 2 users, {turns:,} new, 0 unchanged turns in" in err
    assert main([*args, "--fresh"]) == 0  # the stores are kept: every turn is already there
    err = capsys.readouterr().err
    assert f"ingest dates on, previous turn off: {turns:,} turns of 2 users, 0 new, {turns:,} unchanged turns" in err
    assert "turns/s" not in err


@pytest.mark.heavy
def test_demo_shows_what_the_model_reads_beside_the_gold_answer_and_a_recall_table(locomo_file, tmp_path,
                                                                                    capsys):
    out = tmp_path / "demo"
    args = ["demo", "--data", str(locomo_file), "--out", str(out), "--conversation", "conv-a", "--questions", "2",
            "--quiet"]
    assert main(args) == 0
    shown = capsys.readouterr().out
    assert "Q (temporal): When did Caroline go to the LGBTQ support group?" in shown
    assert ("Caroline: Hey Melanie! I went to the LGBTQ support group yesterday [Sunday, 7 May 2023] and it was so "
            "powerful. [said Monday, 8 May 2023]  <- evidence") in shown  # dated, resolved, the evidence marked
    assert "gold answer: 7 May 2023" in shown and "to see an LLM answer" in shown
    table = [line for line in shown.splitlines() if line.startswith("| `")]
    assert [line.split("`")[1] for line in table] == ["default", "bm25", "vector"]
    assert "cbmemory eval locomo" in shown.splitlines()[-1]
    scored = (out / "questions" / "default.jsonl").read_text()
    assert main(args) == 0  # again: the stores and the scores are kept, the same output
    assert capsys.readouterr().out.split("Done in")[0] == shown.split("Done in")[0]
    assert (out / "questions" / "default.jsonl").read_text() == scored


@pytest.mark.heavy
def test_demo_shows_the_answer_of_a_configured_llm(locomo_file, tmp_path, capsys, monkeypatch):
    import cbmemory.llm

    class Scripted:  # the LLM is not under test: what it is asked and that its answer is shown
        def invoke(self, messages):
            assert "Today is" in messages[0][1] and "yesterday [Sunday, 7 May 2023]" in messages[1][1]
            return type("Reply", (), {"content": "On 7 May 2023."})()

    monkeypatch.setenv("CBMEMORY_LLM_MODEL", "scripted-1")
    monkeypatch.setattr(cbmemory.llm, "make_chat_model", lambda model, base_url=None: Scripted())
    assert main(["demo", "--data", str(locomo_file), "--out", str(tmp_path / "d"), "--conversation", "conv-a",
                 "--questions", "1", "--quiet"]) == 0
    assert "  scripted-1: On 7 May 2023." in capsys.readouterr().out


def test_ctrl_c_during_eval_exits_130_saying_what_is_kept(locomo_file, tmp_path, capsys, monkeypatch):
    from cbmemory_eval import runner

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(runner, "run_eval", interrupted)
    out = tmp_path / "cut"
    assert main(["eval", "locomo", "--data", str(locomo_file), "--out", str(out), "--baselines", "none"]) == 130
    err = capsys.readouterr().err.splitlines()[-1]
    assert err == (f"cbmemory: interrupted; the memories ingested so far are kept in {out / 'stores'}, and the "
                   f"questions evaluated so far in {out / 'questions'}; the same command goes on from there")
