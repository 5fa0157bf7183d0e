"""Unit layer (cbmemory.llm): one retry layer around LLM calls. A fake HTTP transport answers every request
with a server error and counts the requests that reach it; no socket is opened."""

from __future__ import annotations

import httpx
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.llm import make_chat_model

pytestmark = pytest.mark.heavy  # langchain-openai's first import alone takes over 2 s on 2 cores


class FailingServer:
    """Answers 500 to everything (``retry-after-ms: 1``, so the client's backoff takes a millisecond)."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests += 1
        return httpx.Response(500, json={"error": {"message": "overloaded"}}, headers={"retry-after-ms": "1"})

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self))


@pytest.fixture(autouse=True)
def _no_socket_probe(monkeypatch):
    """langchain-openai probes which TCP keep-alive options a socket takes; sockets are off in tests."""
    monkeypatch.setenv("LANGCHAIN_OPENAI_TCP_KEEPALIVE", "0")


def _fail_once(max_retries: int | None) -> int:
    server = FailingServer()
    kw = {} if max_retries is None else {"max_retries": max_retries}
    llm = make_chat_model("m", "http://llm.test/v1", http_client=server.client(), **kw)
    with pytest.raises(Exception, match="overloaded"):
        llm.invoke([("user", "hello")])
    return server.requests


def test_the_client_retries_by_default_for_callers_that_do_not():
    assert _fail_once(None) == 3  # the evaluation's reader and judge: 1 call + 2 retries


def test_a_caller_with_its_own_retries_turns_the_clients_off():
    assert _fail_once(0) == 1


def test_negative_retries_are_refused():
    with pytest.raises(InvalidInputError, match="max_retries"):
        make_chat_model("m", "http://llm.test/v1", max_retries=-1)
