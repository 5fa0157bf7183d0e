"""Ingest: turning messages into memory records, with the settings that shape them.

- ``config``: ``IngestConfig`` and ``EnrichConfig`` (frozen, JSON-serialisable data);
- ``records``: ``validate_messages``, ``build_records``, ``record_id`` (pure functions);
- ``passages``: the passage records of long messages (``with_passages``; pure);
- the rule-based relative-date resolver (``cbmemory.dates.relative``), named by version in ``DATE_RULES``,
  re-exported here as the ingest setting ``IngestConfig.date_rules`` names it;
- ``enrich``: the optional LLM planner (``Enricher``) that turns raw records into summary and event records,
  or facts in the raw records' index keys (the subpackage ``cbmemory.ingest.enrich``, imported only where it
  is used: ``from cbmemory.ingest.enrich import make_enricher`` builds one with a chat model);
- ``progress``: what an ingest says while it runs (``ingest_label``, ``ingest_with_bar``, ``IngestTally``).
"""

from ..dates.relative import (
    DATE_RULES,
    LATEST_DATE_RULES,
    UnknownDateRulesError,
    check_date_rules,
    date_resolver,
    resolve_relative_dates,
)
from .config import DEFAULT_INGEST, MODES, PROMPT_VERSION, RAW_KINDS, EnrichConfig, IngestConfig
from .passages import with_passages
from .progress import IngestTally, embed_rate, ingest_label, ingest_with_bar
from .records import GENERATED_KEY_PREFIX, build_records, record_id, validate_messages

__all__ = [
    "DATE_RULES", "DEFAULT_INGEST", "GENERATED_KEY_PREFIX", "LATEST_DATE_RULES", "MODES", "PROMPT_VERSION",
    "RAW_KINDS", "EnrichConfig", "IngestConfig", "IngestTally", "UnknownDateRulesError", "build_records",
    "check_date_rules", "date_resolver", "embed_rate", "ingest_label", "ingest_with_bar",
    "record_id", "resolve_relative_dates", "validate_messages", "with_passages",
]
