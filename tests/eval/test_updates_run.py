"""Eval layer: the knowledge-update benchmark end to end on a tiny haystack (two small LoCoMo-format
conversations, the real MiniLM embedder and SQLite stores), its command, a rule-driven reader, and
LongMemEval's knowledge-update category (run when present, skipped with the reason when not)."""

import dataclasses
import json

import pytest

from cbmemory.cli import main
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.recipes import get_recipe
from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.scale import scaled_haystacks
from cbmemory_eval.updates import KINDS, VARIANTS, generate
from cbmemory_eval.updates.longmemeval import ku_questions, run_ku
from cbmemory_eval.updates.reader import fixed_subset, make_answerer, reader_summary

from .conftest import LME_SAMPLE, make_fake_chat

LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)  # the product's opt-in links


@pytest.mark.heavy
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
        assert isinstance(r["linked"], bool)  # the product keeps supersession links
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
                     memory_options={"recipe": "default", "ingest": LINKING}, **kw)


@pytest.mark.heavy
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
    assert summary["current_value"] is True  # as the default recipe has it
    assert summary["asks_back"] is False


def test_the_current_value_stage_is_set_either_way_or_left_to_the_recipe():
    import argparse

    from cbmemory_eval.updates.cli import register_updates

    parser = argparse.ArgumentParser()
    register_updates(parser.add_subparsers())
    base = ["locomo-updates", "--data", "d.json", "--out", "o"]
    assert parser.parse_args(base).current_value is None  # the recipe's own setting
    assert parser.parse_args([*base, "--current-value"]).current_value is True
    assert parser.parse_args([*base, "--no-current-value"]).current_value is False
    assert parser.parse_args(base).asks_back is False and parser.parse_args([*base, "--asks-back"]).asks_back is True


def test_longmemeval_without_knowledge_updates_is_skipped_with_the_reason(tmp_path):
    qs, why = ku_questions(LME_SAMPLE)  # the stored one-question sample: single-session-user
    assert qs == [] and why is not None and ("no knowledge-update" in why or "no LongMemEval file" in why)
    qs, why = ku_questions(tmp_path / "absent.json")
    assert qs == [] and "no LongMemEval file" in why


@pytest.mark.heavy
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
    assert "4 of 5 links labelled (1 unlabelled): 3 updates, precision 0.750" in capsys.readouterr().out
    path.write_text(json.dumps({"label": "yes"}) + "\n")
    with pytest.raises(InvalidInputError, match="lines \\[1\\]"):
        score_labels(path)


@pytest.mark.heavy
def test_links_sampler_reads_every_link_of_a_store(tmp_path):
    from dataclasses import replace

    from cbmemory import AgentMemory, Message
    from cbmemory_eval.updates.links import sample_links, store_links

    path = tmp_path / "m.db"
    with AgentMemory.open(path) as mem:
        mem.add_sessions("u", [("s1", [Message("user", "I like green tea in the morning.", "Ann", "a1")], "2023-05-01"),
                               ("s2", [Message("user", "The weather was lovely at the beach.", "Ann", "a2")],
                                "2023-06-01")])
        old, new = mem.session_records("u")
        assert not new.supersedes  # two unrelated statements: no write-time link
        linked = replace(new, supersedes=(old.record_id,))  # a link made by hand (a false one, as a labeller sees)
        session = next(s for s in mem.sessions("u") if s.session_id == "s2")
        mem.store.write([session], [linked], mem.embedder.embed_records([linked]))
    links = store_links(path, "u")
    assert links == [{"user_id": "u", "newer_id": new.record_id, "older_id": old.record_id,
                      "newer_date": "2023-06-01", "older_date": "2023-05-01",
                      "newer": "Ann: The weather was lovely at the beach.",
                      "older": "Ann: I like green tea in the morning.", "label": None}]
    drawn, total = sample_links([(path, "u")], 5)
    assert total == 1 and drawn == links
