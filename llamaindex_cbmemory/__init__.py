"""LlamaIndex adapter for cbmemory: retriever (and tool), chat memory for agents, memory block, embeddings.

Importing this package imports ``llama_index.core`` (the ``llamaindex`` extra) and nothing else loads:
no model, no database, until an object is used. The distribution ``llama-index-memory-cbmemory`` also
offers these names as ``llama_index.memory.cbmemory``, where LlamaIndex's integrations live.
"""

from __future__ import annotations

from cbmemory import MissingDependencyError

try:
    from .chat_memory import CbMemoryChatMemory
    from .embeddings import CbMemoryEmbedding, LlamaIndexEmbedder
    from .memory_block import CbMemoryBlock
    from .messages import add_messages
    from .retriever import CbMemoryRetriever, make_retriever_tool
except ModuleNotFoundError as exc:  # the framework missing: name the install that brings it
    if (exc.name or "").partition(".")[0] != "llama_index":
        raise
    raise MissingDependencyError(
        f"llamaindex_cbmemory needs {exc.name}, which is not installed: "
        'pip install "cbmemory[llamaindex]" (or: pip install llama-index-memory-cbmemory)', name=exc.name) from exc

__all__ = [
    "CbMemoryBlock", "CbMemoryChatMemory", "CbMemoryEmbedding", "CbMemoryRetriever", "LlamaIndexEmbedder",
    "add_messages", "make_retriever_tool",
]
