"""Eval layer: the knowledge-update benchmark end to end on a tiny haystack (two small LoCoMo-format
conversations, the real MiniLM embedder and SQLite stores), its command, a rule-driven reader, and
LongMemEval's knowledge-update category (run when present, skipped with the reason when not)."""

import json

from cbmemory.cli import main
from cbmemory.embedding import MiniLMEmbedder
from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.scale import scaled_haystacks
from cbmemory_eval.updates import KINDS, VARIANTS, generate
from cbmemory_eval.updates.longmemeval import ku_questions, run_ku
from cbmemory_eval.updates.reader import fixed_subset, make_answerer, reader_summary

from .conftest import LME_SAMPLE, make_fake_chat


def test_cases_scored_on_what_recall_shows(locomo_file, tmp_path):
    convs = load_locomo(locomo_file)[:1]
    cases = generate(convs, "train", kinds=KINDS[: len(VARIANTS)])
    assert {c.variant for c in cases} == set(VARIANTS)
    last_line = make_fake_chat(lambda msgs: msgs[-1][1].split("\n")[-1])  # echoes something it was shown
    ids = fixed_subset(cases, 3)
    rows = run_cases_here(convs, cases, tmp_path, answer=make_answerer(last_line), answer_ids=ids)
    assert [r["case_id"] for r in rows] == [c.case_id for c in cases]
    for r in rows:
        assert isinstance(r["new_shown"], bool) and isinstance(r["stale_only"], bool) and r["tokens"] > 0
        assert r["marked"] is None or isinstance(r["marked"], bool)
        assert not (r["new_shown"] and r["stale_only"])
    # A memory of a dozen turns plus the injected ones: recall (k=10 with windows) shows most statements.
    assert sum(r["new_shown"] for r in rows) >= len(rows) // 2
    answered = [r for r in rows if "reader" in r]
    assert {r["case_id"] for r in answered} == ids
    assert all(r["reader"]["verdict"] in {"current", "stale", "both", "neither"} for r in answered)
    assert reader_summary(rows)["all"]["n"] == 3
    # The plain haystack is ingested once: a second run reuses its store.
    stores = sorted(p.name for p in (tmp_path / "stores").iterdir())
    run_cases_here(convs, cases, tmp_path)
    assert sorted(p.name for p in (tmp_path / "stores").iterdir()) == stores


def run_cases_here(convs, cases, tmp_path, **kw):
    from cbmemory_eval.updates.run import run_cases

    hs = scaled_haystacks(convs, 1)
    return run_cases(hs, cases, tmp_path / "work", tmp_path / "stores", label="x1", embedder=MiniLMEmbedder(),
                     memory_options={"recipe": "default"}, **kw)


def test_command_writes_per_question_lines_and_tables(locomo_file, lme_file, tmp_path, capsys):
    out = tmp_path / "u"
    rc = main(["eval", "locomo-updates", "--data", str(locomo_file), "--out", str(out), "--conversations", "1",
               "--family", "test", "--longmemeval", str(lme_file)])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "### test@x1" in printed and "| all |" in printed and "LongMemEval knowledge-update (1 questions)" in printed
    lines = (out / "cases-test-x1.jsonl").read_text().splitlines()
    assert len(lines) == len(KINDS) and all(json.loads(x)["family"] == "test" for x in lines)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"]["test@x1"]["all"]["n"] + summary["results"]["test@x1"]["all"]["n_other"] == len(KINDS)
    assert summary["longmemeval"]["n"] == 1


def test_longmemeval_without_knowledge_updates_is_skipped_with_the_reason(tmp_path):
    qs, why = ku_questions(LME_SAMPLE)  # the stored one-question sample: single-session-user
    assert qs == [] and why is not None and ("no knowledge-update" in why or "no LongMemEval file" in why)
    qs, why = ku_questions(tmp_path / "absent.json")
    assert qs == [] and "no LongMemEval file" in why


def test_longmemeval_knowledge_update_scored(lme_file, tmp_path):
    qs, why = ku_questions(lme_file)
    assert why is None and [q.question_id for q in qs] == ["q2"]
    rows = run_ku(qs, tmp_path, embedder=MiniLMEmbedder())
    assert rows[0]["new_shown"] is True and rows[0]["has_stale"] is False  # the evidence is one session


def test_labelled_links_are_scored_and_a_bad_label_is_refused(tmp_path, capsys):
    import pytest

    from cbmemory import InvalidInputError
    from cbmemory_eval.updates.links import score_labels

    path = tmp_path / "links.jsonl"
    rows = [{"newer": "a", "older": "b", "label": x} for x in ("update", "update", "update", "not", None)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    s = score_labels(path)
    assert (s["links"], s["labelled"], s["unlabelled"], s["update"], s["precision"]) == (5, 4, 1, 3, 0.75)
    assert main(["eval", "locomo-updates-labels", "--labels", str(path)]) == 0
    assert "4 of 5 links labelled (1 not): 3 updates, precision 0.750" in capsys.readouterr().out
    path.write_text(json.dumps({"label": "yes"}) + "\n")
    with pytest.raises(InvalidInputError, match="lines \\[1\\]"):
        score_labels(path)
