"""Embedders across the two frameworks, in both directions.

- ``CbMemoryEmbedding``: a cbmemory embedder (by default the offline MiniLM one) as a LlamaIndex
  ``BaseEmbedding``, e.g. for a ``VectorStoreIndex`` or ``Settings.embed_model`` that should match the
  vectors cbmemory stores, with no API key.
- ``LlamaIndexEmbedder`` (from ``cbmemory.embedding``, re-exported here): a LlamaIndex ``BaseEmbedding``
  (e.g. ``OpenAIEmbedding``) as cbmemory's embedder: ``AgentMemory.open(path, embedder=LlamaIndexEmbedder(m))``.

cbmemory itself calls no LLM, so no LLM adapter is needed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from llama_index.core.bridge.pydantic import PrivateAttr

from cbmemory import Embedder, InvalidInputError, LlamaIndexEmbedder


class CbMemoryEmbedding(BaseEmbedding):
    """A cbmemory ``Embedder`` behind LlamaIndex's embedding interface. Vectors are L2-normalised.

    Nothing loads at construction: the MiniLM model loads on the first embedding.
    """

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder | None = None, **kwargs: Any) -> None:
        if embedder is None:
            from cbmemory import MiniLMEmbedder

            embedder = MiniLMEmbedder()
        if not isinstance(embedder, Embedder):
            raise InvalidInputError(f"embedder must implement cbmemory's Embedder, got {type(embedder).__name__}")
        kwargs.setdefault("model_name", embedder.name)
        super().__init__(**kwargs)
        self._embedder = embedder

    @classmethod
    def class_name(cls) -> str:
        return "CbMemoryEmbedding"

    @property
    def dimension(self) -> int:
        return int(self._embedder.dimension)

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._embedder.embed_query(query).tolist()

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._embedder.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return self._embedder.embed(texts).tolist()

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> Embedding:
        return await asyncio.to_thread(self._get_text_embedding, text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return await asyncio.to_thread(self._get_text_embeddings, texts)


__all__ = ["CbMemoryEmbedding", "LlamaIndexEmbedder"]
