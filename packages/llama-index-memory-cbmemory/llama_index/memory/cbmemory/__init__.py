"""cbmemory for LlamaIndex, under the module path LlamaIndex's integrations use (``llama_index.memory.<name>``).

    from llama_index.memory.cbmemory import CbMemoryChatMemory

The same objects as ``llamaindex_cbmemory`` (re-exported, not copied): either import path works.
"""

from llamaindex_cbmemory import (
    CbMemoryBlock,
    CbMemoryChatMemory,
    CbMemoryEmbedding,
    CbMemoryRetriever,
    LlamaIndexEmbedder,
    add_messages,
    make_retriever_tool,
)

__all__ = [
    "CbMemoryBlock", "CbMemoryChatMemory", "CbMemoryEmbedding", "CbMemoryRetriever", "LlamaIndexEmbedder",
    "add_messages", "make_retriever_tool",
]
