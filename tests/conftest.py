"""Shared fixtures. Sockets are disabled for every test (pytest-socket, see pyproject addopts)."""

from __future__ import annotations

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The real offline embedder, loaded once per test session."""
    return MiniLMEmbedder()


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    yield m
    m.close()


class ScriptedEmbedder:
    """A custom embedder whose output the test controls (for checks of what cbmemory does with bad vectors).
    Not used where retrieval quality is under test."""

    def __init__(self, name: str = "scripted", dimension: int = 4, broken: str | None = None):
        self.name, self.dimension, self.broken = name, dimension, broken

    def embed(self, texts):
        out = np.ones((len(texts), self.dimension), dtype=np.float32) / np.sqrt(self.dimension)
        if self.broken == "nan":
            out[0, 0] = np.nan
        elif self.broken == "dim":
            out = np.ones((len(texts), self.dimension + 1), dtype=np.float32)
        elif self.broken == "rows":
            out = out[:-1]
        return out

    def embed_query(self, text):
        return self.embed([text])[0]


@pytest.fixture
def scripted():
    return ScriptedEmbedder
