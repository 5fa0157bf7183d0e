"""LangChain adapter for cbmemory: agent middleware, retriever and tool, LangGraph store, chat history.

    from langchain_cbmemory import CbMemoryMiddleware
    agent = create_agent(model, tools, middleware=[CbMemoryMiddleware(memory)])

``CbMemoryLegacyMemory`` (classic ``BaseMemory``) loads on first use and needs the ``langchain-classic`` extra.
"""

from __future__ import annotations

from typing import Any

from .history import CbMemoryChatMessageHistory
from .middleware import CbMemoryMiddleware
from .retriever import CbMemoryRetriever, create_memory_tool
from .store import CbMemoryStore

__all__ = [
    "CbMemoryChatMessageHistory", "CbMemoryLegacyMemory", "CbMemoryMiddleware", "CbMemoryRetriever",
    "CbMemoryStore", "create_memory_tool",
]


def __getattr__(name: str) -> Any:
    if name == "CbMemoryLegacyMemory":  # imports langchain-classic, an optional extra
        from .legacy import CbMemoryLegacyMemory

        return CbMemoryLegacyMemory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
