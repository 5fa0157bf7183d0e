"""Unit layer (embedding): ``CachedEmbedder.embed_queries``, many queries in as few model calls as the model
allows. Scripted models (the thing under test is how many calls are made and which vectors come back, not a
model's quality): one with its own ``embed_queries``, one that embeds a query as a document (as OpenAI's
models do), one that marks queries (as e5's ``"query: "``) and so must be asked once per query."""

import numpy as np
import pytest

from cbmemory.embedding import CachedEmbedder
from cbmemory.errors import InvalidVectorError

DIM = 8


def _vec(text: str, salt: str = "") -> np.ndarray:
    v = np.random.default_rng(abs(hash(salt + text)) % 2**32).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


class Symmetric:
    """A query is embedded as a document; counts the calls of each kind."""

    name, dimension = "symmetric", DIM

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def embed(self, texts):
        self.calls.append(("embed", len(texts)))
        return np.stack([_vec(t) for t in texts])

    def embed_query(self, text):
        self.calls.append(("embed_query", 1))
        return _vec(text)


class Marked(Symmetric):
    """A query is embedded with a mark of its own (another vector than the document's)."""

    name = "marked"

    def embed_query(self, text):
        self.calls.append(("embed_query", 1))
        return _vec(text, "query: ")


class Native(Symmetric):
    """Has its own batch of queries."""

    name = "native"

    def embed_queries(self, texts):
        self.calls.append(("embed_queries", len(texts)))
        return np.stack([_vec(t, "query: ") for t in texts])

    def embed_query(self, text):
        self.calls.append(("embed_query", 1))
        return _vec(text, "query: ")


TEXTS = [f"description {i}" for i in range(40)]


def test_a_model_that_embeds_queries_as_documents_is_called_three_times_not_once_per_text():
    model = Symmetric()
    cached = CachedEmbedder(model)
    out = cached.embed_queries(TEXTS)
    # the first text as a query and as a document (the probe), then the other 39 in one call
    assert model.calls == [("embed_query", 1), ("embed", 1), ("embed", 39)]
    assert np.allclose(out, np.stack([_vec(t) for t in TEXTS]))
    model.calls.clear()
    assert np.allclose(cached.embed_queries(TEXTS[::-1]), out[::-1]) and model.calls == []  # all cached
    more = cached.embed_queries(["another", "and another"])
    assert model.calls == [("embed_query", 1), ("embed", 1)]  # probed once per embedder
    assert np.allclose(more, np.stack([_vec("another"), _vec("and another")]))


def test_a_model_that_marks_queries_is_asked_once_per_query_with_the_query_vectors():
    model = Marked()
    out = CachedEmbedder(model).embed_queries(TEXTS[:5])
    assert model.calls == [("embed_query", 1), ("embed", 1), *[("embed_query", 1)] * 4]
    assert np.allclose(out, np.stack([_vec(t, "query: ") for t in TEXTS[:5]]))


def test_a_model_with_its_own_batch_of_queries_is_called_once():
    model = Native()
    cached = CachedEmbedder(model)
    out = cached.embed_queries(TEXTS)
    assert model.calls == [("embed_queries", 40)]
    assert np.allclose(out, np.stack([cached.embed_query(t) for t in TEXTS]))
    assert model.calls == [("embed_queries", 40)]  # embed_query answered from the same cache


def test_queries_are_cached_per_user_as_embed_query_caches_them():
    model = Native()
    cached = CachedEmbedder(model)
    cached.embed_queries(["a", "b"], user_id="alice")
    cached.embed_query("a", user_id="alice")
    assert model.calls == [("embed_queries", 2)]
    cached.embed_queries(["a", "a", "c"], user_id="bob")  # bob's cache is his own; a repeat embedded once
    assert model.calls[-1] == ("embed_queries", 2)


def test_bad_vectors_from_a_batch_of_queries_are_refused():
    class Short(Native):
        def embed_queries(self, texts):
            return np.ones((len(texts) - 1, DIM), np.float32)

    with pytest.raises(InvalidVectorError):
        CachedEmbedder(Short()).embed_queries(["a", "b"])
