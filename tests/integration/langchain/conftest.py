"""Fixtures for the LangChain adapter tests: a real offline memory (SQLite file, MiniLM) with a clock the
test moves by hand."""

from __future__ import annotations

import inspect
from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory

T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)  # Sunday, 7 May 2023


class Clock:
    def __init__(self, now: datetime = T0):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.hookimpl(hookwrapper=True, trylast=True)
def pytest_pycollect_makeitem(collector, name, obj):
    """langchain-tests' coroutine tests carry no asyncio marker and the suite forbids overriding them; mark
    them here (innermost wrapper, so pytest-asyncio in strict mode sees the marker) so they run."""
    outcome = yield
    if not inspect.iscoroutinefunction(obj):
        return
    result = outcome.get_result()
    for node in result if isinstance(result, list) else [result]:
        if isinstance(node, pytest.Function):
            node.add_marker(pytest.mark.asyncio)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def memory(tmp_path, minilm, clock):
    """Overrides the root ``memory``: the same offline embedder (``minilm``, loaded once), plus the clock. The
    default without its relevance floor (issue 30): these tests check the adapters' plumbing with questions
    that need not be close to their few memories (cut long queries, other users); the floor has its own
    tests (tests/integration/retrieval/test_relevance_floor_on_store.py)."""
    mem = AgentMemory.open(tmp_path / "m.db", embedder=minilm, clock=clock, recipe="default_no_floor")
    yield mem
    mem.close()
