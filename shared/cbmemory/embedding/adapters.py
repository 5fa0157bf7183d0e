"""Use a LangChain ``Embeddings`` or a LlamaIndex ``BaseEmbedding`` as cbmemory's embedder.

The frameworks are imported by the caller, not here: these classes only call the objects they are given.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from .base import l2_normalise


class _Wrapped(ABC):
    """``name``, unless given: the model's class and the model it names (its framework's attribute for it:
    ``MODEL_ATTRS``, first found), so that two models of one class make two names and a store made with one
    refuses the other."""

    MODEL_ATTRS: tuple[str, ...] = ("model", "model_name")

    def __init__(self, model: Any, *, name: str | None = None, dimension: int | None = None):
        self.model = model
        named = next((str(v) for a in self.MODEL_ATTRS if (v := getattr(model, a, None))), "")
        self.name = name or f"{type(model).__module__}.{type(model).__name__}:{named}"
        self._dimension = dimension

    @property
    def dimension(self) -> int:
        if self._dimension is None:  # one probe call, only when a store asks
            self._dimension = int(self.embed_query("dimension probe").shape[0])
        return self._dimension

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    @abstractmethod
    def embed_query(self, text: str) -> np.ndarray: ...


class LangChainEmbedder(_Wrapped):
    """Wraps ``langchain_core.embeddings.Embeddings`` (e.g. ``OpenAIEmbeddings``)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return l2_normalise(np.asarray(self.model.embed_documents(list(texts)), dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(np.asarray([self.model.embed_query(text)], dtype=np.float32))[0]


class LlamaIndexEmbedder(_Wrapped):
    """Wraps ``llama_index.core.base.embeddings.base.BaseEmbedding`` (whose model is its ``model_name``)."""

    MODEL_ATTRS = ("model_name", "model")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return l2_normalise(np.asarray(self.model.get_text_embedding_batch(list(texts)), dtype=np.float32))

    def embed_query(self, text: str) -> np.ndarray:
        return l2_normalise(np.asarray([self.model.get_query_embedding(text)], dtype=np.float32))[0]
