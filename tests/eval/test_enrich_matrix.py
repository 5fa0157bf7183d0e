"""Eval layer (fast): the new recipes in the evaluation harness on a small synthetic LoCoMo file, with the
real MiniLM embedder and a scripted ingest-time LLM; without an LLM the CLI skips them with a note."""

import json

import pytest

from cbmemory.cli import main
from cbmemory.ingest.enrich import Enricher
from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.questions import from_locomo
from cbmemory_eval.runner import read_jsonl, run_eval
from tests.support.enrich_llm import make_scripted_chat, rule_extractor

from .conftest import locomo_synthetic


def _file(tmp_path):
    path = tmp_path / "locomo-synthetic.json"
    path.write_text(json.dumps(locomo_synthetic()))
    return path


@pytest.mark.heavy
def test_matrix_rows_for_raw_dates_summary_events_and_facts(tmp_path, minilm):
    es = from_locomo(load_locomo(_file(tmp_path)))
    llm = make_scripted_chat(rule_extractor)
    enricher = Enricher(llm, sleep=lambda s: None)
    recipes = ["hybrid", "hybrid_dates", "summary", "events", "events_raw", "raw_facts"]
    run_eval(es, tmp_path / "run", recipes, k=3, ks=(1, 3), baselines=(), embedder=minilm, progress=False,
             memory_options={"enricher": enricher})
    rows = {name: read_jsonl(tmp_path / "run" / "questions" / f"{name}.jsonl") for name in recipes}
    assert all(len(recs) == len(es.questions) for recs in rows.values())
    # a summary hit covers its session's turns; an event hit the turn it came from
    summary_hit = rows["summary"][0]["hits"][0]
    assert len(summary_hit["turn_ids"]) > 1 and summary_hit["turn_ids"][0].startswith("D")
    event_turns = [h["turn_ids"] for r in rows["events"] for h in r["hits"]]
    assert event_turns and all(len(t) == 1 for t in event_turns)
    assert any(h["text"].startswith("Event: ") or "When:" in h["text"] for r in rows["events"] for h in r["hits"])
    # the stores: one per distinct ingest (raw, dates, summary+events, facts); extraction shared via the cache
    stores = json.loads((tmp_path / "run" / "stores" / "stores.json").read_text())
    assert len({v["ingest"] for v in stores.values()}) == 4
    st = enricher.runner.stats
    assert st.cached > 0 and st.ok == 2 * st.cached and st.failed == 0  # the facts store re-used the events calls
    # re-running costs no LLM call
    calls = llm.calls
    run_eval(es, tmp_path / "run2", recipes, k=3, ks=(1, 3), baselines=(), embedder=minilm, progress=False,
             store_dir=tmp_path / "run" / "stores", memory_options={"enricher": enricher})
    assert llm.calls == calls


@pytest.mark.heavy
def test_cli_skips_llm_recipes_without_an_llm(tmp_path, capsys):
    out = tmp_path / "cli"
    rc = main(["eval", "locomo", "--data", str(_file(tmp_path)), "--out", str(out), "--recipes",
               "hybrid,hybrid_dates,summary,events_raw", "--k", "3", "--baselines", "bm25", "--quiet"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "skipping summary, events_raw" in err and "--enrich-llm" in err
    results = json.loads((out / "summary.json").read_text())["results"]
    assert set(results) == {"hybrid", "hybrid_dates", "bm25"}
    assert results["hybrid_dates"]["recipe"]["ingest"]["date_rules"] == "rules-v2"
