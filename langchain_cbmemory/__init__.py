"""LangChain adapter for cbmemory: agent middleware, retriever and tool, LangGraph store, chat history,
embeddings.

    from langchain_cbmemory import CbMemoryContext, CbMemoryMiddleware
    agent = create_agent(model, tools, middleware=[CbMemoryMiddleware(memory)], context_schema=CbMemoryContext)
    agent.invoke({"messages": [("user", "What did I adopt?")]}, context=CbMemoryContext(user_id="alice"))

``CbMemoryLegacyMemory`` (classic ``BaseMemory``) loads on first use and needs the ``langchain-classic`` extra.
"""

from __future__ import annotations

from typing import Any

from cbmemory import MissingDependencyError

_FRAMEWORKS = {"langchain_core", "langchain", "langgraph"}

try:
    from .context import CbMemoryContext
    from .embeddings import CbMemoryEmbeddings
    from .history import CbMemoryChatMessageHistory
    from .messages import aadd_messages, add_messages, to_memory_messages
    from .middleware import CbMemoryMiddleware
    from .retriever import CbMemoryRetriever, create_memory_tool
    from .store import CbMemoryStore
    from .tools import memory_search_tool
except ModuleNotFoundError as exc:  # a framework missing: name the install that brings it
    if (exc.name or "").partition(".")[0] not in _FRAMEWORKS:
        raise
    raise MissingDependencyError(
        f"langchain_cbmemory needs {exc.name}, which is not installed: "
        'pip install "cbmemory[langchain]" (or: pip install langchain-cbmemory)', name=exc.name) from exc

__all__ = [
    "CbMemoryChatMessageHistory", "CbMemoryContext", "CbMemoryEmbeddings", "CbMemoryLegacyMemory",
    "CbMemoryMiddleware", "CbMemoryRetriever", "CbMemoryStore", "aadd_messages", "add_messages",
    "create_memory_tool", "memory_search_tool", "to_memory_messages",
]


def __getattr__(name: str) -> Any:
    if name == "CbMemoryLegacyMemory":  # imports langchain-classic, an optional extra
        from .legacy import CbMemoryLegacyMemory  # its ImportError names the extra

        return CbMemoryLegacyMemory
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
