"""The ``Enricher``: a planner that turns raw records into the records the LLM modes add. It holds the
model and its limits, and never touches a store, an embedder or an ``AgentMemory``: it is given records
and returns records, and ``AgentMemory`` embeds and writes them.

Raw records are always written first, with no model call (the default, and the only mode without an
LLM). The modes add to them, and can be combined:

- ``summary``: one LLM summary per session (``summary_unit="session"``; long sessions in parts of
  ``summary_max_turns``) or per round, as ``summary`` records linked to their source turns;
- ``events``: who / what / when / where, with relative dates resolved against the session date by the
  rule-based resolver first and the model's own date second, as ``event`` records linked to the turns
  they came from;
- ``facts``: the same extraction, added to the *index text* of the raw record each fact came from
  (LongMemEval's key = value + fact), while the stored and returned text stays raw; with
  ``IngestConfig(link_updates=True)``, the slot keys of the user's facts about themself also become the
  user turn's reserved annotations (``cbmemory.ingest.slots``), which link it to the earlier statement it
  changes when it is written.

The two steps, in the order ``AgentMemory`` runs them around its raw write:

- ``prepare(records, ingest=..., stored=...)``: the raw records with the *cached* facts already in their
  index text (``facts`` mode), so a re-ingest rewrites nothing; never calls the model;
- ``derive(records, ingest=..., now=..., stored=...)``: the model calls; returns a ``Derivation`` (the
  summary and event records, and the raw records whose index text gained facts) with its report.

``stored`` is the session's raw records already in the store (read by the caller): the context shown
before a batch of new turns, and the rest of the session for its summary.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from ...models import IngestResult, MemoryRecord
from ..config import RAW_KINDS, EnrichConfig, IngestConfig
from .batches import Batch, failure_of, plan_batches
from .cache import ExtractionCache, Failure
from .extraction import LLMRunner
from .parsing import ExtractedEvent
from .records import (
    augment_with_facts,
    event_records,
    facts_by_line,
    link_events,
    slots_by_line,
    source_ids,
    summary_record,
)


class _Stamp(TypedDict):
    """What every record one ``derive`` call adds is stamped with."""

    ingested_at: datetime
    prompt_version: str
    model: str


@dataclass(frozen=True, slots=True)
class EnrichReport:
    """What one enrichment step did. ``calls`` are model invocations (retries and re-asks included);
    ``cached`` planned calls answered from the cache; ``failures`` what was recorded instead. ``write`` is
    the store's result for the records derived (set by ``AgentMemory.enrich``; ``None`` from the planner)."""

    sessions: int = 0
    planned: int = 0
    calls: int = 0
    cached: int = 0
    repaired: int = 0
    failed: int = 0
    budget_skipped: int = 0
    derived: int = 0
    augmented: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    failures: tuple[Failure, ...] = ()
    write: IngestResult | None = None


@dataclass(frozen=True, slots=True)
class Derivation:
    """What ``Enricher.derive`` plans to write after the raw write: ``derived`` summary and event records,
    ``augmented`` raw records whose index text gained facts, and the report of the calls behind them."""

    derived: tuple[MemoryRecord, ...] = ()
    augmented: tuple[MemoryRecord, ...] = ()
    report: EnrichReport = EnrichReport()

    @property
    def records(self) -> tuple[MemoryRecord, ...]:
        """Every record to embed and write (merged into the store)."""
        return self.derived + self.augmented


def by_session(records: Sequence[MemoryRecord], stored: Sequence[MemoryRecord]
               ) -> Iterator[tuple[list[MemoryRecord], list[MemoryRecord]]]:
    """(raw records written, raw records stored) per session, the stored ones of the written kinds only."""
    written: dict[tuple[str, str], list[MemoryRecord]] = {}
    for r in records:
        if r.kind in RAW_KINDS:
            written.setdefault((r.user_id, r.session_id), []).append(r)
    for key, recs in written.items():
        kinds = {r.kind for r in recs}
        yield recs, [r for r in stored if (r.user_id, r.session_id) == key and r.kind in kinds]


def _add_slots(slots: dict[str, dict[str, str]], linked: Sequence[tuple[ExtractedEvent, tuple[str, ...]]],
               batch: Batch, ingest: IngestConfig) -> None:
    """The slot keys of one call's facts, by record, when links are made (``ingest.link_updates``)."""
    if ingest.link_updates:
        for rid, keyed in slots_by_line(linked, batch.lines).items():
            slots.setdefault(rid, {}).update(keyed)


def _slots(slots: Mapping[str, Mapping[str, str]], record: MemoryRecord, ingest: IngestConfig
           ) -> Mapping[str, str] | None:
    """What ``augment_with_facts`` sets as ``record``'s slot keys: those found (none: they are cleared) when
    links are made; ``None`` (annotations untouched) otherwise, so without ``link_updates`` nothing changes."""
    return slots.get(record.record_id, {}) if ingest.link_updates else None


class Enricher:
    """Runs the LLM modes of an ``EnrichConfig`` over raw records: hand it to ``AgentMemory(...,
    enricher=...)`` and every write stores its raw records first, then the records ``derive`` returns.
    The limits are those of ``LLMRunner`` (concurrency, per-session call budget, retries with backoff,
    JSON mode, re-ask, cache: per user, erased by ``forget``). ``last_report`` is the report of the latest
    ``derive``.
    """

    def __init__(self, llm: Any, *, cache: ExtractionCache | None = None, max_concurrency: int = 4,
                 calls_per_session: int = 64, max_retries: int = 2, backoff_s: float = 1.0,
                 json_mode: str = "auto", reask: bool = True, max_chars_per_turn: int = 2_000,
                 sleep: Callable[[float], None] = time.sleep, model: str | None = None):
        self.runner = LLMRunner(llm, cache=cache, max_concurrency=max_concurrency,
                                calls_per_session=calls_per_session, max_retries=max_retries,
                                backoff_s=backoff_s, json_mode=json_mode, reask=reask, sleep=sleep, model=model)
        self.max_chars = max_chars_per_turn
        self.last_report: EnrichReport | None = None

    @property
    def cache(self) -> ExtractionCache:
        return self.runner.cache

    @property
    def model(self) -> str:
        return self.runner.model

    def close(self) -> None:
        """Close the cache's file, if it has one."""
        close = getattr(self.cache, "close", None)
        if close is not None:
            close()

    def failures(self, user_id: str | None = None) -> list[Failure]:
        """Every failure recorded in the cache's log (across runs when the cache is a ``SQLiteCache``), or
        one user's."""
        return self.cache.failures(user_id)

    def forget(self, user_id: str, session_id: str | None = None) -> int:
        """Erase what the cache holds of a user, or of one session of it: the extractions, raw replies and
        failures (``AgentMemory.forget`` calls this). The failures of that user are dropped from
        ``last_report`` too. Returns how many cache entries and failures were erased."""
        n = self.cache.forget(user_id, session_id)
        report = self.last_report
        if report is not None and report.failures:
            kept = tuple(f for f in report.failures
                         if not (f.user_id == user_id and (session_id is None or f.session_id == session_id)))
            if len(kept) != len(report.failures):
                self.last_report = dataclasses.replace(report, failures=kept)
        return n

    def plan(self, config: EnrichConfig, records: Sequence[MemoryRecord], stored: Sequence[MemoryRecord],
             annotation_keys: Sequence[str]) -> tuple[int, list[Batch]]:
        """(sessions, the calls to make) for the raw ``records`` of a write."""
        sessions, batches = 0, []
        for written, context in by_session(records, stored):
            sessions += 1
            batches += plan_batches(config, written, context, annotation_keys=annotation_keys,
                                    max_chars=self.max_chars)
        return sessions, batches

    # -- before the raw write
    def prepare(self, records: Sequence[MemoryRecord], *, ingest: IngestConfig,
                stored: Sequence[MemoryRecord] = ()) -> list[MemoryRecord]:
        """The raw ``records`` with the *cached* facts of ``facts`` mode already in their index text, so a
        re-ingest rewrites nothing. Never calls the model; without ``facts`` mode, ``records`` unchanged."""
        cfg = ingest.enrich
        if cfg is None or not cfg.rewrites_raw:
            return list(records)
        facts: dict[str, list[str]] = {}
        slots: dict[str, dict[str, str]] = {}
        for batch in self.plan(cfg, records, stored, ingest.index_annotation_keys)[1]:
            if batch.spec.task != "events":
                continue
            hit = self.runner.cached(batch.spec)
            if hit is not None:
                linked = link_events(hit, batch.lines)
                for rid, fs in facts_by_line(linked, batch.lines).items():
                    facts.setdefault(rid, []).extend(fs)
                _add_slots(slots, linked, batch, ingest)
        return [augment_with_facts(r, facts[r.record_id], _slots(slots, r, ingest)) if r.record_id in facts else r
                for r in records]

    # -- after the raw write
    def derive(self, records: Sequence[MemoryRecord], *, ingest: IngestConfig, now: datetime,
               stored: Sequence[MemoryRecord] = ()) -> Derivation:
        """The modes of ``ingest.enrich`` over the raw ``records`` (model calls, bounded and cached): the
        records to write, stamped ``ingested_at=now``, and the report (also kept as ``last_report``)."""
        cfg = ingest.enrich
        if cfg is None:
            return Derivation()
        sessions, batches = self.plan(cfg, records, stored, ingest.index_annotation_keys)
        outcomes = self.runner.run([b.spec for b in batches])
        anchor = ingest.anchor_dates
        derived: list[MemoryRecord] = []
        facts: dict[str, list[str]] = {}
        slots: dict[str, dict[str, str]] = {}
        extracted: set[str] = set()  # raw records whose extraction call succeeded
        failures: list[Failure] = []
        meta: _Stamp = {"ingested_at": now, "prompt_version": cfg.prompt_version, "model": self.model}
        for batch, outcome in zip(batches, outcomes, strict=True):
            if outcome.value is None:
                failure = failure_of(batch, outcome)
                failures.append(failure)
                self.cache.record_failure(failure)
                continue
            task = batch.spec.task
            if task == "summary":
                derived.append(summary_record(batch.key, list(batch.lines.values()), outcome.value, anchor=anchor,
                                              **meta))
            elif task == "round_summaries":
                for label, text in outcome.value.items():
                    rd = batch.rounds[label]
                    derived.append(summary_record(f"round:{source_ids(rd[0])[0]}", rd, text, anchor=anchor, **meta))
            else:
                linked = link_events(outcome.value, batch.lines)
                if "events" in cfg.modes:
                    derived += event_records(batch.key, linked, batch.lines, anchor=anchor, **meta)
                if "facts" in cfg.modes:
                    extracted |= {r.record_id for r in batch.lines.values()}
                    for rid, fs in facts_by_line(linked, batch.lines).items():
                        facts.setdefault(rid, []).extend(fs)
                    _add_slots(slots, linked, batch, ingest)
        augmented = []
        for r in records:
            if r.record_id in extracted:
                new = augment_with_facts(r, facts.get(r.record_id, []), _slots(slots, r, ingest))
                if new is not r:
                    augmented.append(new)
        report = EnrichReport(
            sessions=sessions, planned=len(batches), calls=sum(o.calls for o in outcomes),
            cached=sum(o.status == "cached" for o in outcomes),
            repaired=sum(o.status == "repaired" for o in outcomes),
            failed=sum(o.status == "failed" for o in outcomes),
            budget_skipped=sum(o.status == "budget" for o in outcomes),
            derived=len(derived), augmented=len(augmented),
            input_tokens=sum(o.input_tokens for o in outcomes), output_tokens=sum(o.output_tokens for o in outcomes),
            failures=tuple(failures),
        )
        self.last_report = report
        return Derivation(tuple(derived), tuple(augmented), report)


__all__ = ["Derivation", "EnrichReport", "Enricher", "by_session"]
