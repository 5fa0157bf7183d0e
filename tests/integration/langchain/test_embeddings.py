"""Integration layer (LangChain's interface contract): CbMemoryEmbeddings with the real offline MiniLM model
passes langchain-tests' embeddings integration suite, and gives the vectors cbmemory stores (the same as
the LlamaIndex adapter's CbMemoryEmbedding)."""

from __future__ import annotations

import numpy as np
from langchain_tests.integration_tests import EmbeddingsIntegrationTests

from cbmemory.embedding import LangChainEmbedder
from langchain_cbmemory import CbMemoryEmbeddings
from llamaindex_cbmemory import CbMemoryEmbedding


class TestCbMemoryEmbeddingsIntegrationStandard(EmbeddingsIntegrationTests):
    @property
    def embeddings_class(self) -> type[CbMemoryEmbeddings]:
        return CbMemoryEmbeddings


def test_same_vectors_as_cbmemory_and_llamaindex(minilm):
    texts = ["I adopted a puppy yesterday.", "Her name is Biscuit."]
    lc = CbMemoryEmbeddings(minilm)
    docs = np.asarray(lc.embed_documents(texts), dtype=np.float32)
    assert docs.shape == (2, 384)
    np.testing.assert_allclose(docs, minilm.embed(texts), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(lc.embed_query(texts[0]), minilm.embed_query(texts[0]), atol=1e-6)
    np.testing.assert_allclose(docs, CbMemoryEmbedding(minilm).get_text_embedding_batch(texts), atol=1e-6)
    # and back: as a LangChain Embeddings it can be cbmemory's embedder again, with the same vectors
    np.testing.assert_allclose(LangChainEmbedder(lc).embed(texts), minilm.embed(texts), atol=1e-6)
    assert float(docs[0] @ docs[1]) < 0.99  # two different texts, two different vectors
