"""Eval layer (fast): the whole harness on small synthetic LoCoMo/LongMemEval files with the real offline
embedder and SQLite stores; QA with fake chat models (verdict parsing, sufficiency cross-tab, resumption
after a run is killed mid-way)."""

import json
import re
from pathlib import Path

import pytest

from cbmemory.recipes import Recipe, all_recipes
from cbmemory_eval.answer_scores import SCORES_VERSION, token_f1
from cbmemory_eval.datasets import load_locomo, load_longmemeval
from cbmemory_eval.metrics import recall
from cbmemory_eval.qa import QAConfig
from cbmemory_eval.questions import from_locomo, from_longmemeval
from cbmemory_eval.report import write_reports
from cbmemory_eval.runner import EvalSetupError, read_jsonl, run_eval

from .conftest import make_fake_chat

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

KS = (1, 3, 5)


def _run(es, out, recipes, minilm, **kw):
    kw.setdefault("k", 3)
    kw.setdefault("ks", KS)
    return run_eval(es, out, recipes, embedder=minilm, progress=False, **kw)


@pytest.fixture
def locomo_set(locomo_file):
    return from_locomo(load_locomo(locomo_file))


@pytest.mark.heavy
def test_retrieval_run_writes_consistent_records_and_reports(locomo_set, tmp_path, minilm):
    out = tmp_path / "run"
    settings = _run(locomo_set, out, ["vector", "bm25", "hybrid"], minilm)
    assert settings["k"] == 3 and settings["ks"] == [1, 3, 5] and settings["embedder"] == minilm.name
    assert "last session date" in settings["question_date"]
    for row in ("vector", "bm25", "hybrid", "oracle", "full_context"):
        recs = read_jsonl(out / "questions" / f"{row}.jsonl")
        assert len(recs) == 11 and len({r["question_id"] for r in recs}) == 11
    for rec in read_jsonl(out / "questions" / "vector.jsonl"):
        hits = [set(h["turn_ids"]) for h in rec["hits"]]
        assert len(hits) == 3 and [h["rank"] for h in rec["hits"]] == [1, 2, 3]
        assert rec["metrics"]["recall@3"] == recall(rec["evidence"], hits, 3)
        assert rec["metrics"]["recall@5"] == recall(rec["evidence"], rec["deep_turn_ids"], 5)
        assert rec["metrics"]["tokens@3"] == rec["tokens"] > 0
        assert rec["metrics"]["latency_total_ms"] >= rec["metrics"]["latency_ms"] > 0
        assert "session_recall_all@3" in rec["metrics"] and "ndcg@1" in rec["metrics"]
        # equal tokens: a list of its own depth (100 hits asked for, not --ks' 5): here the user's whole memory,
        # which fits 512 tokens; the memory, not the depth, ended it (deep_enough 1)
        m = rec["metrics"]
        turns = locomo_set.haystacks[rec["user_id"]].turns
        assert m["hits@512t"] == m["hits@2048t"] == turns > len(rec["deep_turn_ids"]) and m["budget_depth"] == 100
        assert m["deep_enough@2048t"] == 1.0 and (not rec["evidence"] or m["recall@512t"] >= m["recall@5"])
    for row in ("vector", "bm25", "hybrid"):  # every line carries the serialised recipe
        assert all(Recipe.from_dict(r["recipe"]) == RECIPES[row] for r in read_jsonl(out / "questions" / f"{row}.jsonl"))
    oracle = {r["question_id"]: r for r in read_jsonl(out / "questions" / "oracle.jsonl")}
    assert all(r["recipe"] is None for r in oracle.values())
    assert oracle["conv-a:q0"]["context_turns"] == 4  # session_1 only
    assert oracle["conv-a:q7"]["context_turns"] == 0  # no evidence: empty oracle
    full = read_jsonl(out / "questions" / "full_context.jsonl")
    assert all(r["tokens"] > oracle[r["question_id"]]["tokens"] for r in full)

    summary, text = write_reports(out)
    res = summary["results"]
    assert set(res) == {"vector", "bm25", "hybrid", "oracle", "full_context"}
    v = res["vector"]
    assert v["recipe"] == RECIPES["vector"].to_dict() and res["oracle"]["recipe"] is None
    assert settings["rows"]["hybrid"]["recipe"] == RECIPES["hybrid"].to_dict()
    assert v["overall"]["n"] == 11 and v["overall_answerable"]["n"] == 8
    assert v["overall"]["n_no_evidence"] == 1
    assert set(v["by_category"]) == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}
    for metric in ("recall@3", "recall_all@3", "ndcg@3", "tokens@3", "session_recall@5", "latency_ms_p50"):
        assert metric in v["overall"]
    per_q = [r["metrics"]["recall@3"] for r in read_jsonl(out / "questions" / "vector.jsonl")
             if r["category"] == "temporal"]
    assert v["by_category"]["temporal"]["recall@3"] == pytest.approx(sum(per_q) / len(per_q))
    assert "recall@3" not in res["oracle"]["overall"] and res["oracle"]["overall"]["tokens@3"] > 0
    assert res["oracle"]["overall"]["recall@2048t"] == 1.0  # every row has the budgets (oracle: its sessions)
    saved = json.loads((out / "summary.json").read_text())
    assert saved["results"]["bm25"]["overall"]["recall@3"] == res["bm25"]["overall"]["recall@3"]
    assert "| vector |" in text and "multi-hop (1; mem0: single-hop)" in text and "overall w/o adversarial" in text
    md = (out / "matrix.md").read_text()
    assert md == text and "**recall_all@3**" in md and "**recall@1024t**" in md and "hits@1024t" in md
    # the equal-token table: every row (baselines too) at k and at each budget, one line each
    table = md.split("**at equal tokens")[1].split("\n\n**")[0]
    assert ("| row | recall@3 | session_recall@3 | tokens@3 | recall@512t | recall@1024t | recall@2048t | "
            "hits@2048t | deep_enough@2048t |") in table
    assert [line.split(" | ")[0] for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:] \
        == ["| vector", "| bm25", "| hybrid", "| oracle", "| full_context"]
    assert (out / "heatmap.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.heavy
def test_rerun_resumes_and_other_settings_are_refused(locomo_set, tmp_path, minilm):
    out = tmp_path / "run"
    _run(locomo_set, out, ["bm25"], minilm, baselines=())
    before = (out / "questions" / "bm25.jsonl").read_text()
    _run(locomo_set, out, ["bm25", "vector"], minilm, baselines=())  # adds a row, keeps the first
    assert (out / "questions" / "bm25.jsonl").read_text() == before
    assert len(read_jsonl(out / "questions" / "vector.jsonl")) == 11
    with pytest.raises(EvalSetupError, match="k=3"):
        _run(locomo_set, out, ["bm25"], minilm, baselines=(), k=5)
    with pytest.raises(EvalSetupError, match="budget_depth"):  # another depth of the equal-token lists
        _run(locomo_set, out, ["bm25"], minilm, baselines=(), budget_depth=50)
    settings = json.loads((out / "run.json").read_text())
    old = dict(settings)
    del settings["budget_depth"]  # a run made before the equal-token lists had their own depth
    (out / "run.json").write_text(json.dumps(settings))
    with pytest.raises(EvalSetupError, match="their own depth"):
        _run(locomo_set, out, ["bm25"], minilm, baselines=())
    (out / "run.json").write_text(json.dumps(old))
    _run(locomo_set, out, ["bm25"], minilm, baselines=(), k=5, fresh=True)
    assert read_jsonl(out / "questions" / "bm25.jsonl")[0]["k"] == 5
    assert not (out / "questions" / "vector.jsonl").exists()


@pytest.mark.heavy
def test_a_custom_recipe_is_stamped_whole_and_a_changed_one_is_refused(locomo_set, tmp_path, minilm):
    out = tmp_path / "run"
    mine = RECIPES["bm25"].with_(name="bm25_wide", text_pool=80, description="BM25 with a wider pool")
    _run(locomo_set, out, [mine], minilm, baselines=())
    recs = read_jsonl(out / "questions" / "bm25_wide.jsonl")
    assert len(recs) == 11 and all(Recipe.from_dict(r["recipe"]) == mine for r in recs)
    summary, _ = write_reports(out)
    assert Recipe.from_dict(summary["results"]["bm25_wide"]["recipe"]) == mine
    with pytest.raises(EvalSetupError, match="bm25_wide"):  # same name, other settings: not mixed in one file
        _run(locomo_set, out, [mine.with_(text_pool=90)], minilm, baselines=())
    # a run recorded before a field existed (its recipe lacks a field whose default changes nothing) resumes
    settings = json.loads((out / "run.json").read_text())
    del settings["rows"]["bm25_wide"]["recipe"]["retrieval"]["boosts"]["speaker_weight"]
    (out / "run.json").write_text(json.dumps(settings))
    _run(locomo_set, out, [mine], minilm, baselines=())
    assert len(read_jsonl(out / "questions" / "bm25_wide.jsonl")) == 11  # nothing run twice
    # a run stamped before the retrieval config was grouped by stage (its flat form) resumes too
    flat = json.loads((Path(__file__).parents[1] / "data" / "recipes_flat_v1.json").read_text())["bm25"]
    settings = json.loads((out / "run.json").read_text())
    settings["rows"]["bm25_wide"]["recipe"] = {**flat, "name": "bm25_wide", "description": mine.description,
                                               "retrieval": {**flat["retrieval"], "text_pool": 80}}
    (out / "run.json").write_text(json.dumps(settings))
    _run(locomo_set, out, [mine], minilm, baselines=())
    assert len(read_jsonl(out / "questions" / "bm25_wide.jsonl")) == 11


def _reader(log):
    def respond(messages):
        system, user = messages[0][1], messages[-1][1]
        log.append(system)
        # the first memory: its session date first, or, with a relative date (the default layout), last
        lines = [x for x in user.split("\n") if x.startswith("[") or " [said " in x]
        if not lines:
            return "The information is not available."
        line = re.sub(r" \[said [^\]]*\]$", "", lines[0])
        return line.split("] ", 1)[1] if line.startswith("[") else line
    return respond


def _judge(messages):
    system, user = messages[0][1], messages[-1][1]
    fields = dict(line.split(": ", 1) for line in user.split("\n") if ": " in line and not line.startswith("["))
    if "SUFFICIENT" in system:
        context = user.split("Context:", 1)[1]
        return "SUFFICIENT" if token_f1(context, fields["Gold answer"]) > 0 else "INSUFFICIENT"
    if "pottery" in fields["Question"]:
        return "Correct, I think."  # not a bare verdict: recorded as unparsed, never counted correct
    if "not available in the conversations" in fields["Gold answer"]:
        return "CORRECT" if "not available" in fields["Response"] else "WRONG"
    return "CORRECT" if token_f1(fields["Response"], fields["Gold answer"]) >= 0.3 else "WRONG"


@pytest.mark.heavy
def test_qa_pipeline_with_fake_chat_models(locomo_set, tmp_path, minilm):
    log: list[str] = []
    reader = make_fake_chat(_reader(log), "fake-reader")
    judge = make_fake_chat(_judge, "fake-judge")
    out = tmp_path / "qa"
    settings = _run(locomo_set, out, ["bm25"], minilm, baselines=("oracle",),
                    qa=QAConfig(reader, judge, "locomo"), workers=2)
    assert settings["qa"] == {"reader": "fake-reader", "judge_model": "fake-judge",
                              "prompt_version": "cbmemory-judge-v1", "say_today": True,
                              "scores_version": SCORES_VERSION}
    assert any("Today is Tuesday, 27 June 2023." in s for s in log)  # LoCoMo: the last session's date
    recs = {r["question_id"]: r for r in read_jsonl(out / "questions" / "bm25.jsonl")}
    assert len(recs) == 11
    for r in recs.values():
        assert r["reader"] == "fake-reader" and r["judge_model"] == "fake-judge"
        assert r["answer"] and r["judge"]["raw"] in ("CORRECT", "WRONG", "Correct, I think.")
        assert r["metrics"]["J"] in (0.0, 1.0) and "f1" in r["metrics"]
    pottery = next(r for r in recs.values() if "pottery" in r["question"])
    assert pottery["judge"]["verdict"] is None
    assert pottery["metrics"]["J"] == 0.0 and pottery["metrics"]["judge_unparsed"] == 1.0
    adv = [r for r in recs.values() if r["unanswerable"]]
    assert all(r["sufficiency"]["verdict"] is None and r["sufficiency"]["raw"] is None for r in adv)

    summary, text = write_reports(out)
    overall = summary["results"]["bm25"]["overall_answerable"]
    answerable = [r for r in recs.values() if not r["unanswerable"]]
    assert overall["J"] == pytest.approx(sum(r["metrics"]["J"] for r in answerable) / 8)
    cross = overall["crosstab"]
    assert sum(cross.values()) == 8
    wrong_insufficient = sum(1 for r in answerable
                             if r["sufficiency"]["verdict"] is False and not r["judge"]["verdict"])
    assert cross["insufficient_wrong"] == wrong_insufficient
    assert "**J**" in text and "context sufficiency x verdict" in text and "Reader fake-reader" in text
    assert summary["results"]["oracle"]["overall"]["J"] >= 0.0


@pytest.mark.heavy
def test_resumption_after_a_killed_run(locomo_set, tmp_path, minilm):
    calls = {"n": 0}

    def dying(messages):
        calls["n"] += 1
        if calls["n"] > 6:
            raise KeyboardInterrupt("killed")
        return "7 May 2023"

    judge = make_fake_chat(_judge, "fake-judge")
    out = tmp_path / "qa"
    with pytest.raises(KeyboardInterrupt):
        _run(locomo_set, out, ["bm25"], minilm, baselines=(), qa=QAConfig(make_fake_chat(dying, "r"), judge, "locomo"))
    path = out / "questions" / "bm25.jsonl"
    kept = read_jsonl(path)
    assert 0 < len(kept) < 11
    with open(path, "a") as f:  # a line torn by the kill
        f.write('{"question_id": "conv-b:q0", "row": "bm2')
    steady = make_fake_chat(lambda m: "7 May 2023", "r")
    _run(locomo_set, out, ["bm25"], minilm, baselines=(), qa=QAConfig(steady, judge, "locomo"))
    recs = read_jsonl(path)
    assert sorted(r["question_id"] for r in recs) == sorted(q.question_id for q in locomo_set.questions)
    assert steady.calls == 11 - len(kept)  # only the missing questions were answered again
    assert recs[: len(kept)] == kept
    assert len(json.loads((out / "run.json").read_text())["invocations"]) == 2


@pytest.mark.heavy
def test_haystack_variants_are_separate_rows_and_stores(locomo_file, tmp_path, minilm):
    from cbmemory_eval.scale import scaled_haystacks

    convs = load_locomo(locomo_file)
    variants = {"x1": from_locomo(convs), "x3": from_locomo(convs, haystacks=scaled_haystacks(convs, 3))}
    out = tmp_path / "scale"
    _run(variants, out, ["vector"], minilm, baselines=("full_context",))
    summary, _ = write_reports(out)
    assert set(summary["results"]) == {"vector@x1", "vector@x3", "full_context@x1", "full_context@x3"}
    small = summary["results"]["full_context@x1"]["overall"]["tokens@3"]
    assert summary["results"]["full_context@x3"]["overall"]["tokens@3"] > 2.5 * small
    stores = json.loads((out / "stores" / "stores.json").read_text())
    assert len({s["haystack_sha256"] for s in stores.values()}) == 2
    for rec in read_jsonl(out / "questions" / "vector@x3.jsonl"):
        assert all(h["turn_ids"][0].startswith(("D", "x")) for h in rec["hits"])


@pytest.mark.heavy
def test_longmemeval_run(lme_file, tmp_path, minilm):
    es = from_longmemeval(load_longmemeval(lme_file))
    out = tmp_path / "lme"
    _run(es, out, ["vector", "future_filter"], minilm, baselines=("oracle",))
    summary, text = write_reports(out)
    v = summary["results"]["vector"]
    assert set(v["by_category"]) == {"single-session-user", "knowledge-update", "abstention", "temporal-reasoning"}
    assert v["overall"]["n"] == 4 and v["overall_answerable"]["n"] == 3
    assert v["overall"]["session_recall_any@3"] == 1.0  # 3 sessions: any k >= 3 holds the answer session
    recs = read_jsonl(out / "questions" / "vector.jsonl")
    assert {r["user_id"] for r in recs} == {"q1", "q2", "q3_abs", "q4"}
    assert recs[0]["question_date"].startswith("2023-05-30") and recs[0]["date_source"] == "question"
    assert "single-session-user (SSU)" in text and "overall w/o abstention" in text


@pytest.mark.heavy
def test_a_failing_llm_call_skips_that_question_until_the_next_run(locomo_set, tmp_path, minilm, capsys):
    def flaky(messages):
        if "Question: When did Melanie sign up for a pottery class?" in messages[-1][1]:
            raise ValueError("context length exceeded")
        return "7 May 2023"

    judge = make_fake_chat(_judge, "fake-judge")
    out = tmp_path / "qa"
    settings = _run(locomo_set, out, ["bm25"], minilm, baselines=(), qa=QAConfig(make_fake_chat(flaky, "r"), judge, "locomo"))
    assert "context length exceeded" in capsys.readouterr().err and settings["invocations"][-1]["failed"] == 1
    recs = read_jsonl(out / "questions" / "bm25.jsonl")
    assert len(recs) == 10 and not any("pottery" in r["question"] for r in recs)
    _run(locomo_set, out, ["bm25"], minilm, baselines=(), qa=QAConfig(make_fake_chat(lambda m: "x", "r"), judge, "locomo"))
    assert len(read_jsonl(out / "questions" / "bm25.jsonl")) == 11


@pytest.mark.heavy
def test_memory_options_reach_every_store(locomo_set, tmp_path, minilm, monkeypatch):
    from cbmemory.memory import AgentMemory

    seen = []
    real_open = AgentMemory.open.__func__

    def spy(cls, path, **kwargs):
        seen.append(kwargs)
        return real_open(cls, path, **kwargs)

    monkeypatch.setattr(AgentMemory, "open", classmethod(spy))
    _run(locomo_set, tmp_path / "opts", ["bm25", "vector_no_dates"], minilm, baselines=(),
         memory_options={"recipe": "bm25"})
    assert len(seen) == 2 and all(kw["recipe"] == "bm25" and kw["embedder"] is minilm for kw in seen)


@pytest.mark.heavy
def test_a_windowed_recipe_is_scored_on_what_the_reader_gets_and_on_its_hits_alone(locomo_set, tmp_path, minilm):
    out = tmp_path / "run"
    v2 = all_recipes()["default_v2"]  # a window without skip_shown: the same hits as its ranking alone
    _run(locomo_set, out, [v2, v2.with_(name="v2_alone", window=0, token_budget=None)], minilm, baselines=())
    windowed = {r["question_id"]: r for r in read_jsonl(out / "questions" / "default_v2.jsonl")}
    alone = {r["question_id"]: r for r in read_jsonl(out / "questions" / "v2_alone.jsonl")}
    assert windowed.keys() == alone.keys()
    paid = 0
    for qid, rec in windowed.items():
        assert [h["turn_ids"] for h in rec["hits"]] == [h["turn_ids"] for h in alone[qid]["hits"]]  # same hits
        units = [set(h["turn_ids"]) | set(h.get("context_turn_ids", ())) for h in rec["hits"]]
        if rec["evidence"]:
            assert rec["metrics"]["recall@3"] == recall(rec["evidence"], units, 3)
            assert rec["metrics"]["hit_recall@3"] == alone[qid]["metrics"]["recall@3"]
            assert rec["metrics"]["recall@3"] >= rec["metrics"]["hit_recall@3"]
        assert rec["metrics"]["tokens@3"] >= alone[qid]["metrics"]["tokens@3"]  # the window is paid for
        paid += rec["metrics"]["tokens@3"] > alone[qid]["metrics"]["tokens@3"]
    assert paid >= 1  # some hits have turns next to them that are no hits
    assert "hit_recall@3" not in next(iter(alone.values()))["metrics"]
