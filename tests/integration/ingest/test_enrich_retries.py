"""Integration layer (ingest.enrich.factory): the enricher built by ``make_enricher`` has one retry layer, its
runner's. A failing call reaches the server ``max_retries + 1`` times (3), not that times the OpenAI
client's own retries (9, as when both layers retried). A fake HTTP transport counts the requests; no socket
is opened."""

from __future__ import annotations

import functools

import httpx
import pytest

from cbmemory import llm
from cbmemory.ingest.enrich import factory
from tests.support.enrich_llm import events_spec


@pytest.mark.heavy
def test_a_failing_call_is_tried_three_times_in_all(tmp_path, monkeypatch):
    requests: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(500, json={"error": {"message": "overloaded"}}, headers={"retry-after-ms": "1"})

    monkeypatch.setenv("LANGCHAIN_OPENAI_TCP_KEEPALIVE", "0")  # no socket probe (sockets are off in tests)
    client = httpx.Client(transport=httpx.MockTransport(server))
    monkeypatch.setattr(factory, "make_chat_model", functools.partial(llm.make_chat_model, http_client=client))
    enricher = factory.make_enricher("m", "http://llm.test/v1", cache_path=tmp_path / "cache.db",
                                     json_mode="off", reask=False, sleep=lambda s: None)
    assert enricher.runner.llm.max_retries == 0 and enricher.runner.max_retries == 2
    outcome = enricher.runner.run_one(events_spec())
    assert outcome.status == "failed" and "overloaded" in (outcome.error or "")
    assert len(requests) == 3 and enricher.runner.stats.retries == 2
