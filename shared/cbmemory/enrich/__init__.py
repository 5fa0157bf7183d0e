"""Ingest-time enrichment: a rule-based relative-date resolver (no LLM) and optional LLM modes that add
summary and event records, or facts in the raw records' index keys.

Names load on first use (the core's ``IngestConfig`` imports ``enrich.config`` while it is itself being
imported). Nothing here imports an LLM framework: the chat model is handed in by the caller.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "EnrichConfig": "config", "MODES": "config", "PROMPT_VERSION": "config",
    "CallSpec": "extraction", "LLMRunner": "extraction", "Outcome": "extraction",
    "Failure": "cache", "MemoryCache": "cache", "SQLiteCache": "cache",
    "EnrichReport": "modes", "Enricher": "modes", "plan_batches": "modes",
    "ExtractedEvent": "parsing", "MalformedReplyError": "parsing", "parse_reply": "parsing",
    "FACTS_MARK": "records", "augment_with_facts": "records", "base_index_text": "records",
    "DateSpan": "relative_dates", "RelativeDate": "relative_dates", "find_relative_dates": "relative_dates",
    "resolve_expression": "relative_dates", "resolve_relative_dates": "relative_dates",
    "make_enricher": "factory",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
