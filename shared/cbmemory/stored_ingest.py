"""Which ingest settings a user's stored records were made with, told from the records themselves.

A store does not record the ``IngestConfig`` its records were written with, but the records show it: the
index text of a turn is a pure function of the turn and the settings (``build_records``). Rebuilding the
first stored session of a user under a candidate's settings and comparing content hashes says whether the
records were made that way; the derived kinds present (summaries, events) say which enrichment ran. The
command line uses it so that ``AgentMemory.search`` can warn (``RecipeMismatchWarning``) when a recipe
expects records made otherwise than the store's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .dates import anchor_label
from .ingest import RAW_KINDS, IngestConfig, build_records
from .models import MemoryRecord, Message, SearchFilters
from .store.base import MemoryStore

SAMPLE = 40  # raw records read: the user's first session, or its first 40 records
DERIVED = {"summary": "summary", "events": "event"}  # enrich mode -> the record kind it makes


def rebuilds(records: Sequence[MemoryRecord], cfg: IngestConfig) -> bool:
    """Whether ``cfg`` makes exactly these records (consecutive raw records of one session, in order).
    Turns are rebuilt and their content hashes compared; a round's turns cannot be recovered from it, so
    rounds are compared by unit and date prefix only."""
    if not records:
        return False
    first = records[0]
    if first.kind != cfg.unit:
        return False
    if first.kind != "turn":
        return first.index_text.startswith(f"[{anchor_label(first.occurred_at)}] ") == cfg.anchor_dates
    messages = [Message(r.role, r.text, r.speaker, r.turn_id, r.annotations) for r in records]
    rebuilt = build_records(first.user_id, first.session_id, messages, first.occurred_at, first.ingested_at,
                            config=dataclasses.replace(cfg, enrich=None), start_position=first.position)
    skip = 1 if first.position > 0 and cfg.with_previous_turn else 0  # the turn before the first is not read
    return [r.content_hash for r in rebuilt][skip:] == [r.content_hash for r in records][skip:]


def _first_session(store: MemoryStore, user_id: str) -> list[MemoryRecord]:
    raw = store.list_records(user_id, SearchFilters(kinds=RAW_KINDS), limit=SAMPLE)
    return [r for r in raw if raw and r.session_id == raw[0].session_id]


def records_ingest(store: MemoryStore, user_id: str, wanted: IngestConfig,
                   candidates: Sequence[IngestConfig] = ()) -> IngestConfig | None:
    """The ingest settings the user's records were made with: ``wanted`` when they match it, else the first
    of ``candidates`` that rebuilds them (without the enrichment whose records are missing), with the sparse
    encoder the store holds vectors from (every record has one when the store names one). ``None`` when
    no setting tried rebuilds them (a custom setting, facts rewritten into the index text) or the user has
    no raw records: the records do not tell."""
    sample = _first_session(store, user_id)
    if not sample:
        return None
    for cfg in (wanted, *candidates):
        if rebuilds(sample, cfg):
            break
    else:
        return None
    cfg = dataclasses.replace(cfg, sparse=store.bound_sparse_encoder)
    if cfg.enrich is None:
        return cfg
    made = [mode for mode, kind in DERIVED.items()
            if mode in cfg.enrich.modes and store.list_records(user_id, SearchFilters(kinds=(kind,)), limit=1)]
    wanted_kinds = [mode for mode in DERIVED if mode in cfg.enrich.modes]
    if made == wanted_kinds:
        return cfg
    return dataclasses.replace(cfg, enrich=None)


__all__ = ["records_ingest", "rebuilds"]
