"""Embedders: the protocol, the offline MiniLM default, the content-hash cache and framework adapters."""

from .adapters import LangChainEmbedder, LlamaIndexEmbedder
from .base import CachedEmbedder, Embedder, l2_normalise
from .onnx import MiniLMEmbedder

__all__ = ["CachedEmbedder", "Embedder", "LangChainEmbedder", "LlamaIndexEmbedder", "MiniLMEmbedder", "l2_normalise"]
