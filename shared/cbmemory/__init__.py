"""cbmemory: agent memory with date-anchored raw messages and named retrieval recipes.

Importing this package loads no framework, model, database or LLM-enrichment module: those load on first use.
The root names what an application uses: the memory and its agent seam (``AgentMemory.recall`` / ``save``,
``Recall``, ``MemoryFault``), the recipes and their settings, the data it takes and returns, the embedders,
the stores and the errors. Framework adapters also import ``cbmemory.integration`` (the context stage's
rendering, content-derived turn ids, the input checks); the subpackages (``cbmemory.context``,
``cbmemory.retrieval``, ``cbmemory.store``, ``cbmemory.errors``, ...) hold the rest.
"""

from .agent import MemoryFault, Recall
from .context import ContextConfig, FormattedContext
from .embedding import E5SmallEmbedder, Embedder, LangChainEmbedder, LlamaIndexEmbedder, MiniLMEmbedder
from .errors import (
    CbMemoryError,
    CorruptStoreError,
    EmbedderMismatchError,
    InvalidDateError,
    InvalidInputError,
    MissingDependencyError,
    NotAStoreError,
    ReadOnlyStoreError,
    RecipeMismatchWarning,
    StoreNotFoundError,
    StoreUnavailableError,
    WriteConflictError,
)
from .ingest import IngestConfig
from .memory import AgentMemory
from .models import ForgetResult, Hit, IngestResult, MemoryRecord, Message, SearchFilters, Session
from .recipes import Recipe, get_recipe
from .retrieval import RetrievalConfig
from .store import SQLiteStore

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name == "CouchbaseStore":  # imports the couchbase SDK, so only on first use
        from .store.couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(f"module 'cbmemory' has no attribute {name!r}")


__all__ = [
    # the memory and its agent seam
    "AgentMemory", "MemoryFault", "Recall",
    # recipes and their settings
    "ContextConfig", "IngestConfig", "Recipe", "RetrievalConfig", "get_recipe",
    # what it takes and returns
    "ForgetResult", "FormattedContext", "Hit", "IngestResult", "MemoryRecord", "Message", "SearchFilters", "Session",
    # embedders and stores
    "E5SmallEmbedder", "Embedder", "LangChainEmbedder", "LlamaIndexEmbedder", "MiniLMEmbedder",
    "CouchbaseStore", "SQLiteStore",
    # errors (each a CbMemoryError; all of them in cbmemory.errors) and the recipe-mismatch warning
    "CbMemoryError", "CorruptStoreError", "EmbedderMismatchError", "InvalidDateError", "InvalidInputError",
    "MissingDependencyError", "NotAStoreError", "ReadOnlyStoreError", "RecipeMismatchWarning",
    "StoreNotFoundError", "StoreUnavailableError", "WriteConflictError",
]
