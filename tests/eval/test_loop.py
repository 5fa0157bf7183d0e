"""Eval layer (fast): the agent-loop benchmark (``cbmemory eval locomo-loop``) on the small synthetic LoCoMo file
with the real offline embedder and SQLite stores: the same rows on every run, a killed run resumed to the same
rows and store, recall before save, loop turns never evidence, no_loop equal to the harness's recall@k, the
cache never written, and the command with its report."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main
from cbmemory.recipes import get_recipe
from cbmemory.retrieval import FilterConfig
from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.loop import TIMINGS, loop_session
from cbmemory_eval.loop_report import write_loop_report
from cbmemory_eval.loop_run import row_file, run_loop
from cbmemory_eval.metrics import recall
from cbmemory_eval.questions import from_locomo
from cbmemory_eval.runner import read_jsonl, run_eval

VARIANTS = ("no_loop", "loop", "loop_wrong2")


@pytest.fixture
def locomo_set(locomo_file):
    return from_locomo(load_locomo(locomo_file))


def _run(es, out, cache, minilm, recipes=("default",), **kw):
    kw.setdefault("k", 3)
    kw.setdefault("ks", (1, 3))
    kw.setdefault("wrong_every", 2)
    return run_loop(es, out, list(recipes), embedder=minilm, store_dir=cache, progress=False, **kw)


# the default searching echoes too: the loop's own turns come back, so that they can be seen never to count
WITH_ECHOES = get_recipe("default").with_(name="default_echoes", filters=FilterConfig(echoes=True))


def _rows(out, variant="loop", recipe="default"):
    rows = read_jsonl(row_file(out, recipe, variant))
    for r in rows:
        for t in TIMINGS:
            r["metrics"].pop(t)
    return rows


def _stored(out, embedder, variant="loop"):
    """What a loop store holds, in conversation order."""
    with AgentMemory.open(out / "stores" / f"default--{variant}.db", read_only=True, embedder=embedder) as m:
        return [(r.session_id, r.turn_id, r.text, r.occurred_at) for u in ("conv-a", "conv-b")
                for r in m.session_records(u)]


@pytest.mark.heavy
def test_two_runs_write_the_same_rows_and_the_cache_stays_clean(locomo_set, tmp_path, minilm):
    cache = tmp_path / "cache"
    _run(locomo_set, tmp_path / "a", cache, minilm)
    _run(locomo_set, tmp_path / "b", cache, minilm)
    for v in VARIANTS:
        a, b = _rows(tmp_path / "a", v), _rows(tmp_path / "b", v)
        assert len(a) == 11 and a == b
        assert all(r["variant"] == v and r["recipe_name"] == "default" and r["versions"]["loop"] == "2" for r in a)
    assert _stored(tmp_path / "a", minilm) == _stored(tmp_path / "b", minilm)
    stores = list(cache.glob("*.db"))
    assert len(stores) == 1
    with AgentMemory.open(stores[0], read_only=True, embedder=minilm) as m:  # no loop turn in the cache
        assert not [r for u in ("conv-a", "conv-b") for r in m.session_records(u) if r.session_id.startswith("loop-")]


@pytest.mark.heavy
def test_recall_comes_before_the_step_is_saved_and_loop_turns_are_never_evidence(locomo_set, tmp_path, minilm):
    _run(locomo_set, tmp_path / "a", tmp_path / "cache", minilm, recipes=("default", WITH_ECHOES))
    assert not any(r["metrics"]["loop_slots"] for r in _rows(tmp_path / "a"))  # the default: echoes left out
    loop = _rows(tmp_path / "a", recipe="default_echoes")
    by_user: dict[str, list[dict]] = {}
    for r in loop:
        by_user.setdefault(r["user_id"], []).append(r)
    seen_loop = 0
    for rows in by_user.values():
        for r in rows:
            own = loop_session_of(r)
            assert not any(h["session_id"] == own for h in r["hits"])  # its own turns: saved only after recall
            later = {loop_session_of(x) for x in rows if x["n"] >= r["n"]}
            assert not any(h["session_id"] in later for h in r["hits"])
            units = [set() if h["loop"] else set(h["turn_ids"]) | set(h.get("context_turn_ids", ())) for h in r["hits"]]
            assert r["metrics"]["source_recall@3"] == recall(r["evidence"], units, 3)
            seen_loop += r["metrics"]["loop_slots"]
            assert r["metrics"]["loop_slots"] == sum(h["loop"] for h in r["hits"])
    assert seen_loop > 0  # the loop's turns do come back
    wrong = [r for r in _rows(tmp_path / "a", "loop_wrong2") if r["reply"]["wrong"]]
    assert [r["n"] for r in wrong] == [2, 4, 6, 8, 2]
    assert all(r["reply"]["answer"] != (r["gold"] or "") for r in wrong)
    stored = _stored(tmp_path / "a", minilm)
    agent = [s for s in stored if s[1] and s[1].endswith(":agent")]
    assert len(agent) == 11 and all(restates_a_dated_line(t) for _, _, t, _ in agent)


def restates_a_dated_line(reply: str) -> bool:
    """``You told me: <line> So: <answer>``, the line as the model read it: its session date first, or, when it
    has a relative date (the default layout), last."""
    line, so, _ = reply.removeprefix("You told me: ").partition(" So: ")
    dated = bool(re.match(rf"\[{_DAY}\] ", line) or re.search(rf" \[said {_DAY}\]", line))
    return reply.startswith("You told me: ") and bool(so) and dated


_DAY = r"\w+, \d{1,2} \w+ \d{4}"


def loop_session_of(row):
    return "loop-" + row["question_id"].rsplit(":", 1)[-1]


@pytest.mark.heavy
def test_a_killed_run_resumes_to_the_same_rows_and_store(locomo_set, tmp_path, minilm):
    cache = tmp_path / "cache"
    _run(locomo_set, tmp_path / "a", cache, minilm)
    b = tmp_path / "b"
    _run(locomo_set, b, cache, minilm)
    assert _run(locomo_set, b, cache, minilm)["invocations"][-1]["wall_s"] >= 0  # a rerun: nothing to do
    assert len(_rows(b)) == 11
    # killed in conv-a: q6's row and save never happened, q5 was saved but its row never written, q4's row was
    # written but its turns never saved; conv-b never started
    path = row_file(b, "default", "loop")
    rows = read_jsonl(path)
    keep = [r for r in rows if r["user_id"] == "conv-a" and r["n"] <= 5]
    path.write_text("".join(json.dumps(r) + "\n" for r in keep))
    es_a = {q.question_id: q for q in locomo_set.questions}
    with AgentMemory.open(b / "stores" / "default--loop.db", embedder=minilm) as m:
        for r in rows:
            if r["user_id"] == "conv-b" or r["n"] >= 7:
                m.forget(r["user_id"], loop_session(es_a[r["question_id"]]))
        m.forget("conv-a", "loop-q4")  # q4 (n=5): row written, turns lost
    _run(locomo_set, b, cache, minilm)
    assert _rows(b) == _rows(tmp_path / "a")
    assert _stored(b, minilm) == _stored(tmp_path / "a", minilm)


@pytest.mark.heavy
def test_no_loop_is_the_harness_s_recall(locomo_set, tmp_path, minilm):
    _run(locomo_set, tmp_path / "loop", tmp_path / "cache", minilm, wrong_every=None)
    run_eval(locomo_set, tmp_path / "eval", ["default"], k=3, ks=(1, 3), baselines=(), embedder=minilm,
             store_dir=tmp_path / "cache", progress=False)
    harness = {r["question_id"]: r["metrics"] for r in read_jsonl(tmp_path / "eval" / "questions" / "default.jsonl")}
    for r in _rows(tmp_path / "loop", "no_loop"):
        assert r["metrics"]["source_recall@3"] == harness[r["question_id"]]["recall@3"]
        assert r["metrics"]["tokens"] == harness[r["question_id"]]["tokens@3"]


@pytest.mark.heavy
def test_the_command_and_its_report(locomo_file, tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["eval", "locomo-loop", "--data", str(locomo_file), "--out", str(out), "--k", "3", "--wrong-every", "2",
               "--only", "conv-a", "--questions", "5", "--quiet"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "### recipe `default`" in text and "Δ loop (points)" in text and "loop_wrong2 (wrong replies)" in text
    summary = json.loads((out / "loop_summary.json").read_text())
    assert summary["results"]["default"]["loop"]["overall"]["n"] == 5
    assert summary["settings"]["conversations"] == ["conv-a"] and (out / "loop.md").read_text() == text.rstrip("\n") + "\n"
    shutil.rmtree(out / "questions")
    (out / "questions").mkdir()
    assert main(["eval", "loop-report", "--out", str(out)]) == 0
    assert write_loop_report(out)[0]["results"] == {}
    variant = tmp_path / "variant.json"  # a retrieval variant under its own name, from a file
    variant.write_text(get_recipe("default").with_(name="default_variant").to_json())
    rc = main(["eval", "locomo-loop", "--data", str(locomo_file), "--out", str(tmp_path / "v"), "--recipes", "",
               "--recipe-file", str(variant), "--wrong-every", "0", "--only", "conv-b", "--quiet"])
    assert rc == 0 and "### recipe `default_variant`" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "v" / "questions").iterdir()} == {"default_variant--no_loop.jsonl",
                                                                          "default_variant--loop.jsonl"}
    with pytest.raises(SystemExit):
        main(["eval", "locomo-loop", "--data", str(locomo_file), "--out", str(out), "--wrong-every", "1"])
    assert "--wrong-every is 0" in capsys.readouterr().err
