"""Unit layer (langchain_cbmemory.embeddings): CbMemoryEmbeddings passes langchain-tests' embeddings unit
suite, and translates a cbmemory embedder's arrays to LangChain's lists of floats (a scripted embedder; the
MiniLM model is never loaded here)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from langchain_tests.unit_tests import EmbeddingsUnitTests

from cbmemory import InvalidInputError
from cbmemory.embedding import MiniLMEmbedder
from langchain_cbmemory import CbMemoryEmbeddings


class TestCbMemoryEmbeddingsUnitStandard(EmbeddingsUnitTests):
    @property
    def embeddings_class(self) -> type[CbMemoryEmbeddings]:
        return CbMemoryEmbeddings


class Scripted:
    """Vector i is the unit vector on axis (len(text) mod 3); records what it was asked."""

    name, dimension = "scripted-3", 3

    def __init__(self):
        self.calls: list[object] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return np.eye(3, dtype=np.float32)[[len(t) % 3 for t in texts]]

    def embed_query(self, text):
        self.calls.append(text)
        return np.eye(3, dtype=np.float32)[len(text) % 3]


def test_default_is_the_offline_minilm_and_nothing_loads():
    e = CbMemoryEmbeddings()
    assert isinstance(e.embedder, MiniLMEmbedder) and e.embedder._model is None
    assert (e.model, e.dimension) == ("all-MiniLM-L6-v2-int8-onnx", 384)


def test_arrays_become_lists_of_python_floats():
    s = Scripted()
    e = CbMemoryEmbeddings(s)
    docs = e.embed_documents(["a", "bb", "ccc"])
    assert docs == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    assert all(type(x) is float for v in docs for x in v)
    assert e.embed_query("bb") == [0.0, 0.0, 1.0]
    assert e.embed_documents([]) == [] and s.calls == [["a", "bb", "ccc"], "bb"]  # no call for nothing
    assert asyncio.run(e.aembed_documents(["a"])) == [[0.0, 1.0, 0.0]]
    assert asyncio.run(e.aembed_query("ccc")) == [1.0, 0.0, 0.0]


def test_not_an_embedder():
    with pytest.raises(InvalidInputError, match="Embedder"):
        CbMemoryEmbeddings(object())  # type: ignore[arg-type]
