"""Fixtures for the LlamaIndex adapter tests: one offline MiniLM embedder for the whole run, a fresh
SQLite memory per test, and a small two-user history with dated sessions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder

pytest.importorskip("llama_index.core", reason="the LlamaIndex adapter needs the 'llamaindex' extra")

ALICE_SESSIONS = [
    ("a1", "2023-05-07", [
        ("user", "I moved to Lyon yesterday, the flat is near the river."),
        ("assistant", "Congratulations on the move to Lyon!"),
    ]),
    ("a2", "2023-05-14", [
        ("user", "My sister Emma is visiting me next weekend."),
        ("assistant", "Enjoy the visit with Emma."),
        ("user", "I started learning the cello on Tuesday."),
    ]),
]
BOB_SESSIONS = [
    ("b1", "2023-05-07", [
        ("user", "I moved to Berlin last month and adopted a dog named Rex."),
        ("assistant", "Rex sounds lovely."),
    ]),
]


@pytest.fixture(scope="session")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def _clock() -> datetime:
    return datetime(2023, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def memory(tmp_path, embedder):
    # the default without its relevance floor (issue 30): these tests check the adapter's plumbing with
    # questions that need not be close to their few memories; the floor has its own tests
    m = AgentMemory.open(tmp_path / "m.db", embedder=embedder, clock=_clock, recipe="default_no_floor")
    yield m
    m.close()


def seed(memory: AgentMemory) -> AgentMemory:
    for user, sessions in (("alice", ALICE_SESSIONS), ("bob", BOB_SESSIONS)):
        for sid, date, turns in sessions:
            memory.add_session(user, sid, [{"role": r, "content": t} for r, t in turns], date=date)
    return memory


@pytest.fixture
def seeded(memory) -> AgentMemory:
    return seed(memory)


class SlowEmbedder:
    """The shared MiniLM embedder, with each query embedding held up by a blocking sleep: a search that
    ran on the event loop would stall every other coroutine for that long."""

    def __init__(self, inner: MiniLMEmbedder, delay: float = 0.25):
        self.inner, self.delay = inner, delay
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        time.sleep(self.delay)
        return self.inner.embed_query(text)


@pytest.fixture
def slow_memory(tmp_path, embedder):
    m = seed(AgentMemory.open(tmp_path / "slow.db", embedder=SlowEmbedder(embedder), clock=_clock,
                                recipe="default_no_floor"))
    yield m
    m.close()


async def ticks_during(work: Callable[[], object]) -> tuple[object, int]:
    """Run ``work()`` (a coroutine) while a ticker coroutine counts 5 ms steps; return (result, ticks)."""
    done = False
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while not done:
            await asyncio.sleep(0.005)
            ticks += 1

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)  # let the ticker start
    try:
        result = await work()  # type: ignore[misc]
    finally:
        done = True
        await task
    return result, ticks
