"""Eval layer (needs a real LLM): the QA path against a local OpenAI-compatible server
(../shared/tools/local-llm). Skipped, with the reason, when CBMEMORY_TEST_LLM_BASE_URL is unset."""

import dataclasses
import os

import pytest

from cbmemory_eval.datasets import load_locomo
from cbmemory_eval.qa import QAConfig, make_chat_model
from cbmemory_eval.questions import from_locomo, select
from cbmemory_eval.report import write_reports
from cbmemory_eval.runner import read_jsonl, run_eval

BASE_URL = os.environ.get("CBMEMORY_TEST_LLM_BASE_URL")
pytestmark = [
    pytest.mark.llm,
    pytest.mark.enable_socket,
    pytest.mark.skipif(not BASE_URL, reason="CBMEMORY_TEST_LLM_BASE_URL is unset (no local LLM server; see "
                                            "../shared/tools/local-llm/README.md)"),
]


def test_answer_judge_and_sufficiency_with_a_local_model(locomo_file, tmp_path, minilm):
    model = os.environ.get("CBMEMORY_TEST_LLM_MODEL", "local-gguf")
    llm = make_chat_model(model, BASE_URL)
    es = from_locomo(load_locomo(locomo_file))
    es = dataclasses.replace(es, questions=tuple(select(es.questions, 3)))
    out = tmp_path / "llm"
    run_eval(es, out, ["bm25"], k=5, ks=(5,), baselines=(), embedder=minilm, progress=False,
             qa=QAConfig(llm, llm, "locomo"))
    recs = read_jsonl(out / "questions" / "bm25.jsonl")
    assert len(recs) == 3
    for r in recs:
        assert r["answer"].strip() and r["reader"] == model and r["judge"]["raw"] is not None
        assert r["metrics"]["J"] in (0.0, 1.0) and r["metrics"]["f1"] is not None
    summary, _ = write_reports(out)
    assert "J" in summary["results"]["bm25"]["overall"]
