"""``CbMemoryEmbeddings``: a cbmemory embedder (by default the offline MiniLM one) as LangChain ``Embeddings``.

    from langchain_cbmemory import CbMemoryEmbeddings
    vectors = CbMemoryEmbeddings().embed_documents(["I adopted a puppy.", "Her name is Biscuit."])

For a LangChain vector store or retriever that should match the vectors cbmemory stores, with no API key and
no download. The other direction, any LangChain ``Embeddings`` as cbmemory's embedder, is
``cbmemory.embedding.LangChainEmbedder``.
"""

from __future__ import annotations

import asyncio

from langchain_core.embeddings import Embeddings

from cbmemory import Embedder, InvalidInputError


class CbMemoryEmbeddings(Embeddings):
    """A cbmemory ``Embedder`` behind LangChain's embeddings interface. Vectors are L2-normalised lists of
    floats, ``embedder.dimension`` long.

    Nothing loads at construction: the MiniLM model loads on the first embedding. The async methods run the
    embedding in a worker thread, so the event loop keeps going.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        if embedder is None:
            from cbmemory import MiniLMEmbedder

            embedder = MiniLMEmbedder()
        if not isinstance(embedder, Embedder):
            raise InvalidInputError(f"embedder must implement cbmemory's Embedder, got {type(embedder).__name__}")
        self.embedder = embedder

    @property
    def model(self) -> str:
        """The embedder's name (cbmemory records it with every store)."""
        return self.embedder.name

    @property
    def dimension(self) -> int:
        return int(self.embedder.dimension)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors: list[list[float]] = self.embedder.embed(list(texts)).tolist()
        return vectors

    def embed_query(self, text: str) -> list[float]:
        vector: list[float] = self.embedder.embed_query(text).tolist()
        return vector

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query, text)


__all__ = ["CbMemoryEmbeddings"]
