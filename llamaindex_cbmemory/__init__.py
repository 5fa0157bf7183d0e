"""LlamaIndex adapter for cbmemory: retriever (and tool), chat memory for agents, memory block, embeddings.

Importing this package imports ``llama_index.core`` (the ``llamaindex`` extra) and nothing else loads:
no model, no database, until an object is used.
"""

from .chat_memory import CbMemoryChatMemory
from .embeddings import CbMemoryEmbedding, LlamaIndexEmbedder
from .memory_block import CbMemoryBlock
from .retriever import CbMemoryRetriever, make_retriever_tool

__all__ = [
    "CbMemoryBlock", "CbMemoryChatMemory", "CbMemoryEmbedding", "CbMemoryRetriever", "LlamaIndexEmbedder",
    "make_retriever_tool",
]
