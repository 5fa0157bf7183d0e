"""Ingest-time enrichment with an LLM: a planner (``Enricher``) that is given raw records and returns the
summary and event records, or the facts for the raw records' index keys, that the modes of an
``EnrichConfig`` add. ``AgentMemory`` embeds and writes what it returns.

Nothing here imports an LLM framework: the chat model is handed in by the caller (``make_enricher``
builds a ``ChatOpenAI`` on call).
"""

from .batches import Batch, plan_batches
from .cache import ExtractionCache, Failure, MemoryCache, SQLiteCache
from .enricher import Derivation, Enricher, EnrichReport
from .extraction import CallSpec, LLMRunner, Outcome
from .factory import make_enricher
from .parsing import ExtractedEvent, MalformedReplyError, parse_reply
from .records import FACTS_MARK, augment_with_facts, base_index_text

__all__ = [
    "FACTS_MARK", "Batch", "CallSpec", "Derivation", "EnrichReport", "Enricher", "ExtractedEvent", "ExtractionCache",
    "Failure", "LLMRunner", "MalformedReplyError", "MemoryCache", "Outcome", "SQLiteCache", "augment_with_facts",
    "base_index_text", "make_enricher", "parse_reply", "plan_batches",
]
