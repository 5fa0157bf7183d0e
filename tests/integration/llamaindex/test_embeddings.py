"""Integration layer: the embedding adapters in both directions (cbmemory embedder as a LlamaIndex
BaseEmbedding, and a LlamaIndex BaseEmbedding as cbmemory's embedder), with the offline MiniLM model. No
network."""

from __future__ import annotations

import asyncio

import numpy as np
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode

from cbmemory import AgentMemory
from cbmemory.embedding import LlamaIndexEmbedder as CoreLlamaIndexEmbedder
from llamaindex_cbmemory import CbMemoryEmbedding, LlamaIndexEmbedder


def test_same_vectors_as_the_cbmemory_embedder(embedder):
    emb = CbMemoryEmbedding(embedder)
    assert emb.model_name == embedder.name and emb.dimension == 384
    q = emb.get_query_embedding("Where does Alice live?")
    assert np.allclose(q, embedder.embed_query("Where does Alice live?"), atol=1e-6)
    texts = ["I moved to Lyon.", "My cat is called Miso.", "I play the cello."]
    batch = emb.get_text_embedding_batch(texts)
    assert np.allclose(batch, embedder.embed(texts), atol=1e-6)
    assert np.allclose(asyncio.run(emb.aget_query_embedding("Where does Alice live?")), q, atol=1e-6)
    assert np.allclose(asyncio.run(emb.aget_text_embedding_batch(texts)), batch, atol=1e-6)


def test_usable_in_a_vector_store_index(embedder):
    nodes = [TextNode(text=t) for t in ["I moved to Lyon.", "My cat is called Miso.", "I play the cello."]]
    index = VectorStoreIndex(nodes, embed_model=CbMemoryEmbedding(embedder))
    top = index.as_retriever(similarity_top_k=1).retrieve("What instrument do I play?")
    assert top[0].node.get_content() == "I play the cello."


def test_a_llamaindex_embedding_as_the_cbmemory_embedder(tmp_path, embedder):
    assert LlamaIndexEmbedder is CoreLlamaIndexEmbedder  # one implementation, re-exported
    wrapped = LlamaIndexEmbedder(CbMemoryEmbedding(embedder), name="li-minilm", dimension=None)
    with AgentMemory.open(tmp_path / "li.db", embedder=wrapped) as memory:
        memory.add_session("alice", "s1", [{"role": "user", "content": "I moved to Lyon yesterday."},
                                           {"role": "user", "content": "My cat is called Miso."}], date="2023-05-07")
        hits = memory.search("Which pet do I have?", "alice", k=1, recipe="vector")
        assert hits[0].record.text == "My cat is called Miso."
        assert memory.store.bound_embedder == ("li-minilm", 384)
