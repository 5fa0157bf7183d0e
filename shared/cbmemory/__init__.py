"""cbmemory: agent memory with date-anchored raw messages and named retrieval recipes.

Importing this package loads no framework, model or database: those load on first use. Everything an
application or a framework adapter needs is named here: the memory and its agent seam (``AgentMemory.recall``
/ ``save``, ``Recall``, ``MemoryFault``), the data it takes and returns, the context stage's rendering (for
adapters that show a memory in their own objects), the date helpers and the input checks.
"""

from .agent import FaultHandler, MemoryFault, Recall, report_fault
from .context import (
    DEFAULT_CONTEXT,
    ContextConfig,
    FormattedContext,
    count_tokens,
    format_context,
    inline,
    memory_line,
    memory_prompt,
    passage,
    resolved_text,
    unseen,
)
from .dates import anchor_label, iso, to_utc
from .embedding import E5SmallEmbedder, Embedder, LangChainEmbedder, LlamaIndexEmbedder, MiniLMEmbedder
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
from .ingest import IngestConfig, record_id
from .memory import AgentMemory
from .models import RAW_KINDS, ForgetResult, Hit, IngestResult, MemoryRecord, Message, SearchFilters, Session
from .recipes import RECIPES, Recipe, get_recipe
from .retrieval import RetrievalConfig
from .store import MemoryStore, SQLiteStore
from .validation import MAX_ANNOTATION_CHARS, MAX_QUERY_CHARS, check_id, check_k, check_reads, check_unicode

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    if name == "CouchbaseStore":  # imports the couchbase SDK, so only on first use
        from .store.couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(name)


__all__ = [
    "DEFAULT_CONTEXT", "MAX_ANNOTATION_CHARS", "MAX_QUERY_CHARS", "RAW_KINDS", "RECIPES", "AgentMemory",
    "CbMemoryError", "ContextConfig", "CorruptStoreError", "CouchbaseStore", "E5SmallEmbedder", "Embedder",
    "EmbedderMismatchError", "FaultHandler", "ForgetResult", "FormattedContext", "Hit", "IngestConfig",
    "IngestResult", "InvalidDateError", "InvalidInputError", "InvalidVectorError", "LangChainEmbedder",
    "LlamaIndexEmbedder", "MemoryFault", "MemoryRecord", "MemoryStore", "Message", "MiniLMEmbedder",
    "MissingDependencyError", "NotAStoreError", "ReadOnlyStoreError", "Recall", "Recipe",
    "RecipeMismatchWarning", "RetrievalConfig", "SQLiteStore", "SearchFilters", "Session",
    "StoreNotFoundError", "StoreUnavailableError", "WriteConflictError", "anchor_label", "check_id",
    "check_k", "check_reads", "check_unicode", "count_tokens", "format_context", "get_recipe", "inline", "iso",
    "memory_line", "memory_prompt", "passage", "record_id", "report_fault", "resolved_text", "to_utc", "unseen",
]
