"""Eval layer (fast): an answer run without a judge on the small synthetic LoCoMo file, with a scripted
reader (the model is not under test): no judge call, J and sufficiency absent, the automatic date scores
counting answers without a date as misses, the report's tables, and the printed timings."""

import json

import pytest

from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.qa import QAConfig
from cbmemory_eval.questions import from_locomo
from cbmemory_eval.report import default_metrics, write_reports
from cbmemory_eval.runner import read_jsonl, run_eval

from .conftest import make_fake_chat

# the synthetic file's temporal golds: 7 May 2023, 26 June 2023, 28 January 2023
ANSWERS = {"When did Caroline go to the LGBTQ support group?": "On Sunday, 7 May 2023.",
           "When did Melanie sign up for a pottery class?": "I don't know.",
           "When did Jon find a place for the studio?": "2023-01-20"}


def _reader(messages):
    question = messages[-1][1]
    return next((a for key, a in ANSWERS.items() if key in question), "The information is not available.")


@pytest.mark.heavy
def test_without_a_judge_only_the_reader_runs_and_dates_count_misses(locomo_file, tmp_path, minilm, capsys):
    reader = make_fake_chat(_reader, "scripted-reader")
    out = tmp_path / "nojudge"
    es = from_locomo(load_locomo(locomo_file))
    settings = run_eval(es, out, ["bm25"], k=3, ks=(3,), baselines=(), embedder=minilm, progress=True,
                        qa=QAConfig(reader, None, "locomo"))
    assert settings["qa"]["judge_model"] is None and settings["qa"]["reader"] == "scripted-reader"
    assert reader.calls == len(es.questions)  # one answer each, nothing else asked of any model
    recs = {r["question_id"]: r for r in read_jsonl(out / "questions" / "bm25.jsonl")}
    for r in recs.values():
        assert r["judge"] is None and r["sufficiency"] is None and r["judge_model"] is None
        assert r["metrics"]["J"] is None and r["metrics"]["sufficiency"] is None and r["metrics"]["f1"] is not None
    temporal = [r["metrics"] for r in recs.values() if r["category"] == "temporal"]
    assert sorted((m["date_answered"], m["date_error_days"], m["date_within_1"], m["date_within_7"])
                  for m in temporal if m["date_answered"] == 1.0) == [(1.0, 0.0, 1.0, 1.0), (1.0, 8.0, 0.0, 0.0)]
    assert [m["date_within_31"] for m in temporal if m["date_answered"] == 0.0] == [0.0]  # a miss, not None

    summary, text = write_reports(out)
    cat = summary["results"]["bm25"]["by_category"]["temporal"]
    assert cat["date_within_1"] == pytest.approx(1 / 3)  # one right of three, not one of two
    assert cat["date_answered"] == pytest.approx(2 / 3) and cat["date_error_days"] == pytest.approx(4.0)
    assert cat["n_date_scored"] == 3 and cat["n_date_gold_unusable"] == 0 and cat["n_answered"] == 3
    overall = summary["results"]["bm25"]["overall"]
    assert "J" not in overall and "sufficiency" not in overall and "crosstab" not in overall
    assert default_metrics(summary) == ["f1", "contains", "date_within_7", "recall@3", "recall_all@3", "recall@1024t"]
    assert "**J**" not in text and "**f1**" in text and "no judge (automatic scores only)" in text
    assert "| bm25 | 3 | 0 | 0.667 | 0.333 | 0.333 | 0.667 | 4.0 |" in text  # the temporal dates table
    assert (out / "heatmap.png").exists()

    err = capsys.readouterr().err
    assert "bm25 conv-a:q0: " in err and "(reader " in err
    assert f"QA: {len(es.questions)} answers in " in err and " s per answer" in err


@pytest.mark.heavy
def test_a_named_judge_is_recorded_even_when_it_is_the_reader(locomo_file, tmp_path, minilm):
    model = make_fake_chat(lambda m: "CORRECT" if "CORRECT" in m[0][1] else "7 May 2023", "same-model")
    es = from_locomo(load_locomo(locomo_file))
    settings = run_eval(es, tmp_path / "self", ["bm25"], k=3, ks=(3,), baselines=(), embedder=minilm,
                        progress=False, qa=QAConfig(model, model, "locomo", sufficiency=False))
    assert settings["qa"]["judge_model"] == "same-model"
    recs = read_jsonl(tmp_path / "self" / "questions" / "bm25.jsonl")
    assert all(r["metrics"]["J"] == 1.0 for r in recs)
    assert model.calls == 2 * len(es.questions)
    assert json.loads((tmp_path / "self" / "run.json").read_text())["qa"]["judge_model"] == "same-model"


@pytest.mark.heavy
def test_readings_are_rows_that_retrieve_alike_and_differ_only_in_what_the_reader_reads(locomo_file, tmp_path,
                                                                                        minilm):
    from cbmemory_eval.cli import _with_readings

    seen: dict[str, list[tuple[str, str]]] = {}

    def reader_fn(messages):
        seen.setdefault(messages[0][1], []).append(messages[-1])
        return "On Sunday, 7 May 2023."

    recipes = _with_readings(["bm25"], "undated,dated,resolved,resolved_no_today")
    assert [r.name for r in recipes] == ["bm25-undated", "bm25-dated", "bm25-resolved", "bm25-resolved_no_today"]
    es = from_locomo(load_locomo(locomo_file))
    out = tmp_path / "readings"
    run_eval(es, out, recipes, k=3, ks=(3,), baselines=(), embedder=minilm, progress=False,
             qa=QAConfig(make_fake_chat(reader_fn, "scripted-reader"), None, "locomo"))
    rows = {r.name: {q["question_id"]: q for q in read_jsonl(out / "questions" / f"{r.name}.jsonl")} for r in recipes}
    hits = {name: {qid: [h["turn_ids"] for h in q["hits"]] for qid, q in recs.items()} for name, recs in rows.items()}
    assert len({json.dumps(h, sort_keys=True) for h in hits.values()}) == 1  # the same memories in every row
    tokens = {name: sum(q["tokens"] for q in recs.values()) for name, recs in rows.items()}
    assert tokens["bm25-undated"] < tokens["bm25-dated"] < tokens["bm25-resolved"] == tokens["bm25-resolved_no_today"]

    def reading(system: str) -> str:  # by the date guidance: none, the session date's, the resolved dates'
        if "in brackets" in system:
            return "resolved" + ("" if "Today is" in system else "_no_today")
        return ("dated" if "relative to that date" in system else "undated") + ("" if "Today is" in system else "_no_today")

    by_reading: dict[str, list[str]] = {}
    for system, messages in seen.items():
        by_reading.setdefault(reading(system), []).extend(user for _, user in messages)
    assert set(by_reading) == {"undated", "dated", "resolved", "resolved_no_today"}
    assert all(len(v) == len(es.questions) for v in by_reading.values())
    assert not any("[Monday," in u or "[Sunday," in u or "yesterday [" in u for u in by_reading["undated"])
    assert any("yesterday [" in u for u in by_reading["resolved"])
    assert any("yesterday [" in u for u in by_reading["resolved_no_today"])
    assert not any("yesterday [" in u for u in by_reading["dated"]) and any("yesterday" in u for u in by_reading["dated"])
