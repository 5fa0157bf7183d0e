"""Integration layer (embedding, the real MiniLM model): the offline ONNX embedder reproduces
sentence-transformers whatever the batch, loads once, and the cache skips repeats.

The reference vectors in tests/fixtures/minilm_reference.json were generated once with
sentence-transformers (torch, CPU) by scripts/make_embedding_fixture.py.
"""

import copy
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from cbmemory.embedding import CachedEmbedder, MiniLMEmbedder
from cbmemory.text import content_hash

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minilm_reference.json"


def test_matches_sentence_transformers_within_int8_tolerance(minilm):
    ref = json.loads(FIXTURE.read_text())
    ours = minilm.embed(ref["sentences"])
    cos = (ours * np.asarray(ref["vectors"], dtype=np.float32)).sum(axis=1)
    assert ours.shape == (len(ref["sentences"]), 384)
    assert cos.min() >= 0.99, cos
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_batch_order_does_not_change_vectors(minilm):
    texts = ["short", "a somewhat longer sentence about gardening", "x y z"]
    together = minilm.embed(texts)
    alone = np.stack([minilm.embed_query(t) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)


def test_batch_size_does_not_change_vectors(minilm):
    """A text's vector is the same whatever it is batched with: stores written with another batch size (the default
    was 64) hold the same vectors."""
    texts = [f"sentence {i} " + "about the garden and the weather " * (i % 7) for i in range(40)]
    vectors = [MiniLMEmbedder(batch_size=b).embed(texts) for b in (1, 16, 64)]
    assert minilm.batch_size == 16
    assert np.allclose(vectors[0], vectors[1], atol=1e-5) and np.allclose(vectors[0], vectors[2], atol=1e-5)


def test_model_loads_once_when_threads_ask_together():
    emb, loads = MiniLMEmbedder(), []
    real = emb._load

    def load():
        loads.append(1)
        return real()

    emb._load = load
    with ThreadPoolExecutor(4) as pool:
        out = list(pool.map(emb.embed_query, ["one", "two", "three", "four"]))
    assert len(loads) == 1 and all(v.shape == (384,) for v in out)


def test_an_embedder_not_yet_loaded_can_be_deep_copied():
    copied = copy.deepcopy(MiniLMEmbedder(batch_size=8))
    assert copied.batch_size == 8 and copied.embed_query("hello").shape == (384,)


def test_cache_embeds_each_distinct_text_once(minilm):
    cached = CachedEmbedder(minilm)
    cached.embed(["alpha", "beta", "alpha"])
    cached.embed(["beta", "gamma"])
    assert cached.texts_embedded == 3 and cached.model_calls == 2


def test_cache_asks_the_store_lookup_before_the_model(minilm):
    seen = []

    def lookup(user, hashes):
        seen.extend((user, h) for h in hashes)
        return {content_hash("stored"): np.full(384, 0.05, dtype=np.float32)}

    cached = CachedEmbedder(minilm, lookup=lookup)
    out = cached.embed(["stored", "fresh"], user_id="alice")
    assert np.allclose(out[0], 0.05) and cached.texts_embedded == 1 and len(seen) == 2
    assert {u for u, _ in seen} == {"alice"}  # the lookup is scoped to the writing user
    cached.embed(["stored"], user_id="bob")  # another user's lookup: bob's vector comes from bob's store
    assert seen[-1] == ("bob", content_hash("stored"))
    uncached = CachedEmbedder(minilm, lookup=lookup)
    uncached.embed(["stored"])  # no user: the store is not asked at all
    assert len(seen) == 3
