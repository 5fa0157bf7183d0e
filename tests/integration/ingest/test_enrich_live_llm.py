"""Integration layer (needs a real LLM): events and a summary extracted by a local OpenAI-compatible model
(../shared/tools/local-llm). Skipped, with the reason, unless CBMEMORY_TEST_LLM_BASE_URL is set."""

import os

import pytest

from cbmemory import AgentMemory, IngestConfig, SearchFilters
from cbmemory.ingest import EnrichConfig
from cbmemory.ingest.enrich import make_enricher

BASE_URL = os.environ.get("CBMEMORY_TEST_LLM_BASE_URL")
pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not BASE_URL, reason="no local LLM: set CBMEMORY_TEST_LLM_BASE_URL (see ../shared/tools/local-llm)"),
    pytest.mark.enable_socket,
]

SESSION = [
    {"role": "user", "content": "I went to a LGBTQ support group yesterday and it was so powerful.",
     "speaker": "Caroline", "turn_id": "D1:3"},
    {"role": "assistant", "content": "Wow! I ran a charity race for mental health last Saturday.",
     "speaker": "Melanie", "turn_id": "D1:4"},
]


def test_a_local_model_extracts_linked_events_and_a_summary(tmp_path, minilm):
    enricher = make_enricher(os.environ.get("CBMEMORY_TEST_LLM_MODEL", "local-gguf"), BASE_URL,
                             cache_path=tmp_path / "cache.db", max_concurrency=1, max_retries=1)
    ingest = IngestConfig(enrich=EnrichConfig(modes=("summary", "events")))
    memory = AgentMemory.open(tmp_path / "m.db", embedder=minilm, ingest=ingest, enricher=enricher)
    memory.add_session("u", "s1", SESSION, "1:56 pm on 8 May, 2023")
    assert [r.turn_id for r in memory.session_records("u")] == ["D1:3", "D1:4"]  # raw first, always
    report = enricher.last_report
    derived = memory.store.list_records("u", SearchFilters(kinds=("summary", "event")))
    assert report.planned == 2  # one summary call, one events call
    assert derived or report.failures  # either records or recorded failures, never silence
    for r in derived:
        assert set(r.source_ids) <= {"D1:3", "D1:4"} and r.text.strip()
    memory.add_session("u", "s1", SESSION, "1:56 pm on 8 May, 2023")  # re-ingest: successes come from the cache
    assert enricher.last_report.cached == report.planned - len(report.failures)
