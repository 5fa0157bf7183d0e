"""cbmemory: agent memory with date-anchored raw messages and named retrieval recipes.

Importing this package loads no framework, model or database: those load on first use.
"""

from .context import ContextConfig, format_context
from .errors import (
    CbMemoryError,
    CorruptStoreError,
    EmbedderMismatchError,
    InvalidDateError,
    InvalidInputError,
    InvalidVectorError,
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
from .retrieval import RECIPES, Recipe, RetrievalConfig, get_recipe
from .store import MemoryStore, SQLiteStore

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name == "CouchbaseStore":  # imports the couchbase SDK, so only on first use
        from .store.couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(name)


__all__ = [
    "RECIPES", "AgentMemory", "CbMemoryError", "ContextConfig", "CorruptStoreError", "CouchbaseStore", "EmbedderMismatchError",
    "ForgetResult", "Hit", "IngestConfig", "IngestResult", "InvalidDateError", "InvalidInputError",
    "InvalidVectorError", "MemoryRecord", "MemoryStore", "Message", "MissingDependencyError", "NotAStoreError",
    "ReadOnlyStoreError", "Recipe", "RecipeMismatchWarning", "RetrievalConfig", "SQLiteStore", "SearchFilters", "Session", "StoreNotFoundError",
    "StoreUnavailableError", "WriteConflictError", "format_context", "get_recipe",
]
