"""Unit layer (embedding): bringing your own embedder. A plain function is refused with a typed error that
says what an ``Embedder`` is; the framework wrappers name the model they wrap, so two models of one class
get two names and a store made with one refuses the other (issue 23, item 7)."""

from types import SimpleNamespace

import numpy as np
import pytest

from cbmemory import InvalidInputError, LangChainEmbedder, LlamaIndexEmbedder
from cbmemory.embedding import CachedEmbedder


def test_a_plain_function_is_refused_saying_what_an_embedder_is():
    with pytest.raises(InvalidInputError, match=r"embedder must be an Embedder .*got function"):
        CachedEmbedder(lambda texts: np.zeros((len(texts), 3)))  # type: ignore[arg-type]


def test_an_embedder_without_a_name_is_refused():
    nameless = SimpleNamespace(name="", dimension=3, embed=lambda t: None, embed_query=lambda t: None)
    with pytest.raises(InvalidInputError, match="non-empty name"):
        CachedEmbedder(nameless)  # type: ignore[arg-type]


class FakeLlamaIndexEmbedding:  # what the wrapper reads of a LlamaIndex BaseEmbedding
    def __init__(self, model_name: str):
        self.model_name = model_name


class FakeLangChainEmbeddings:  # e.g. OpenAIEmbeddings(model=...)
    def __init__(self, model: str):
        self.model = model


def test_llamaindex_models_of_one_class_get_their_own_names():
    small = LlamaIndexEmbedder(FakeLlamaIndexEmbedding("bge-small"), dimension=384)
    large = LlamaIndexEmbedder(FakeLlamaIndexEmbedding("bge-large"), dimension=384)
    assert small.name.endswith(":bge-small") and large.name.endswith(":bge-large")
    assert small.name != large.name


def test_langchain_models_of_one_class_get_their_own_names_and_a_given_name_wins():
    a = LangChainEmbedder(FakeLangChainEmbeddings("text-embedding-3-small"), dimension=3)
    b = LangChainEmbedder(FakeLangChainEmbeddings("text-embedding-3-large"), dimension=3)
    assert a.name != b.name and a.name.endswith(":text-embedding-3-small")
    assert LangChainEmbedder(FakeLangChainEmbeddings("x"), name="mine", dimension=3).name == "mine"
