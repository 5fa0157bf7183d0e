"""Ingestion modes that use an LLM, after the raw write: ``summary``, ``events`` and ``facts``.

Raw records are always written first, with no model call (the default, and the only mode without an
LLM). The modes add to them, and can be combined:

- ``summary``: one LLM summary per session (``summary_unit="session"``; long sessions in parts of
  ``summary_max_turns``) or per round, stored as ``summary`` records linked to their source turns;
- ``events``: who / what / when / where, with relative dates resolved against the session date by the
  rule-based resolver first and the model's own date second, stored as ``event`` records linked to the
  turns they came from;
- ``facts``: the same extraction, added to the *index text* of the raw record each fact came from
  (LongMemEval's key = value + fact), while the stored and returned text stays raw.

Per store: ``AgentMemory(..., ingest=IngestConfig(enrich=EnrichConfig(modes=("events",))),
enricher=Enricher(llm))`` (or a recipe whose ``ingest`` says so). Per call: ``enricher.enrich(memory,
user_id, session_ids, config=EnrichConfig(modes=("summary",)))`` over what is already stored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dates import utcnow
from ..errors import InvalidInputError
from ..models import IngestResult, MemoryRecord, SearchFilters, Session
from .cache import ExtractionCache, Failure
from .config import MODES, EnrichConfig
from .extraction import (
    CallSpec,
    Line,
    LLMRunner,
    Outcome,
    events_messages,
    round_summary_messages,
    summary_messages,
)
from .records import (
    RAW_KINDS,
    augment_with_facts,
    event_records,
    facts_by_line,
    link_events,
    source_ids,
    summary_record,
)

if TYPE_CHECKING:
    from ..memory import AgentMemory

@dataclass(frozen=True, slots=True)
class Batch:
    """One planned call with what is needed to turn its result into records."""

    spec: CallSpec
    key: str  # record-id key of what it derives
    lines: Mapping[str, MemoryRecord]  # label -> raw record (T1.. for events and summaries)
    rounds: Mapping[str, tuple[MemoryRecord, ...]] = field(default_factory=dict)  # R1.. -> raw records


@dataclass(frozen=True, slots=True)
class EnrichReport:
    """What one enrichment step did. ``calls`` are model invocations (retries and re-asks included);
    ``cached`` planned calls answered from the cache; ``failures`` what was recorded instead."""

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


# ---------------------------------------------------------------------------- planning (pure)
def _line(label: str, r: MemoryRecord, annotation_keys: Sequence[str]) -> Line:
    extras = [f"[{k.replace('_', ' ')}: {r.annotations[k]}]" for k in annotation_keys if k in r.annotations]
    return Line(label, r.speaker or r.role, " ".join([r.text, *extras]))


def _rounds(records: Sequence[MemoryRecord]) -> list[list[MemoryRecord]]:
    rounds: list[list[MemoryRecord]] = []
    for r in records:
        if not rounds or r.role == "user" or r.kind == "round":
            rounds.append([r])
        else:
            rounds[-1].append(r)
    return rounds


def plan_batches(config: EnrichConfig, written: Sequence[MemoryRecord], stored: Sequence[MemoryRecord], *,
                 annotation_keys: Sequence[str] = ("image_caption",), max_chars: int = 2_000) -> list[Batch]:
    """The calls for one session: ``written`` are the raw records of this write, ``stored`` every raw
    record of the session (the written ones included, or not yet: both work)."""
    if not written:
        return []
    written = sorted(written, key=lambda r: r.position)
    by_id = {r.record_id: r for r in stored}
    by_id.update({r.record_id: r for r in written})
    session = sorted(by_id.values(), key=lambda r: r.position)
    first = written[0]
    who = (first.user_id, first.session_id)
    date = first.occurred_at
    batches: list[Batch] = []

    def spec(task: str, messages: list[tuple[str, str]], labels: Sequence[str]) -> CallSpec:
        return CallSpec(task, who, tuple(messages), tuple(labels), config.prompt_version)

    if "events" in config.modes or "facts" in config.modes:
        n = config.turns_per_call
        for i in range(0, len(written), n):
            chunk = written[i:i + n]
            lines = {f"T{j + 1}": r for j, r in enumerate(chunk)}
            before = [r for r in session if r.position < chunk[0].position][-config.context_turns:] \
                if config.context_turns else []
            context = [_line(f"C{j + 1}", r, annotation_keys) for j, r in enumerate(before)]
            msgs = events_messages(date, [_line(lb, r, annotation_keys) for lb, r in lines.items()], context,
                                   max_chars=max_chars)
            batches.append(Batch(spec("events", msgs, list(lines)), f"events:{source_ids(chunk[0])[0]}", lines))

    if "summary" in config.modes and config.summary_unit == "session":
        n = config.summary_max_turns
        touched = {r.record_id for r in written}
        for part, i in enumerate(range(0, len(session), n)):
            chunk = session[i:i + n]
            if not touched & {r.record_id for r in chunk}:
                continue
            lines = {f"T{j + 1}": r for j, r in enumerate(chunk)}
            msgs = summary_messages(date, [_line(lb, r, annotation_keys) for lb, r in lines.items()],
                                    sentences=config.summary_sentences, max_chars=max_chars)
            batches.append(Batch(spec("summary", msgs, list(lines)), f"session:{part}", lines))

    if "summary" in config.modes and config.summary_unit == "round":
        touched = {r.record_id for r in written}
        rounds = [rd for rd in _rounds(session) if touched & {r.record_id for r in rd}]
        n = config.rounds_per_call
        for i in range(0, len(rounds), n):
            group = {f"R{j + 1}": tuple(rd) for j, rd in enumerate(rounds[i:i + n])}
            shown = [(label, [_line(f"{label}.{k + 1}", r, annotation_keys) for k, r in enumerate(rd)])
                     for label, rd in group.items()]
            msgs = round_summary_messages(date, shown, max_chars=max_chars)
            batches.append(Batch(spec("round_summaries", msgs, list(group)), "rounds", {}, group))
    return batches


def _failure(batch: Batch, outcome: Outcome) -> Failure:
    recs = list(batch.lines.values()) + [r for rd in batch.rounds.values() for r in rd]
    ids: list[str] = []
    for r in recs:
        ids += [i for i in source_ids(r) if i not in ids]
    user_id, session_id = batch.spec.session
    return Failure(batch.spec.task, user_id, session_id, outcome.error or outcome.status, outcome.hash,
                   batch.spec.prompt_version, tuple(ids), outcome.raw, outcome.calls,
                   utcnow().isoformat(timespec="seconds"))


# ---------------------------------------------------------------------------- the enricher (runtime)
class Enricher:
    """Runs the LLM modes for an ``AgentMemory``: hand it to ``AgentMemory(..., enricher=...)`` and every
    write stores its raw records first, then calls the model (``after_write``). The limits are those of
    ``LLMRunner`` (concurrency, per-session call budget, retries with backoff, JSON mode, re-ask, cache).
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

    def failures(self) -> list[Failure]:
        """Every failure recorded in the cache's log (across runs when the cache is a ``SQLiteCache``)."""
        return self.cache.failures()

    # -- the hooks AgentMemory calls
    def prepare(self, memory: AgentMemory, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Before the raw write: raw records with the *cached* facts of ``facts`` mode already in their
        index text, so a re-ingest rewrites nothing. Never calls the model."""
        cfg = memory.ingest.enrich
        if cfg is None or "facts" not in cfg.modes:
            return list(records)
        facts: dict[str, list[str]] = {}
        for written, stored in self._groups(memory, records):
            for batch in plan_batches(cfg, written, stored, annotation_keys=memory.ingest.index_annotation_keys,
                                      max_chars=self.max_chars):
                if batch.spec.task != "events":
                    continue
                hit = self.runner.cached(batch.spec)
                if hit is not None:
                    for rid, fs in facts_by_line(link_events(hit, batch.lines), batch.lines).items():
                        facts.setdefault(rid, []).extend(fs)
        return [augment_with_facts(r, facts[r.record_id]) if r.record_id in facts else r for r in records]

    def after_write(self, memory: AgentMemory, sessions: Sequence[Session],
                    records: Sequence[MemoryRecord]) -> EnrichReport:
        """After the raw write: the modes of ``memory.ingest.enrich`` over the written raw records."""
        cfg = memory.ingest.enrich
        if cfg is None:
            return EnrichReport()
        return self._run(memory, cfg, sessions, records)

    # -- per call
    def enrich(self, memory: AgentMemory, user_id: str, session_ids: Sequence[str] | None = None, *,
               config: EnrichConfig | None = None) -> EnrichReport:
        """Run ``config`` (default: the memory's own ``ingest.enrich``) over the raw records already stored
        for ``user_id`` (all sessions, or ``session_ids``)."""
        cfg = config or memory.ingest.enrich
        if cfg is None:
            raise InvalidInputError("no enrichment modes: pass config=EnrichConfig(modes=(...))")
        sessions = [s for s in memory.store.list_sessions(user_id) if session_ids is None or s.session_id in session_ids]
        if not sessions:
            return EnrichReport()
        f = SearchFilters(session_ids=tuple(s.session_id for s in sessions), kinds=RAW_KINDS)
        records = memory.store.list_records(user_id, f, now=memory.clock())
        return self._run(memory, cfg, sessions, records)

    async def aenrich(self, *args: Any, **kwargs: Any) -> EnrichReport:
        return await asyncio.to_thread(self.enrich, *args, **kwargs)

    # -- internals
    def _groups(self, memory: AgentMemory, records: Sequence[MemoryRecord]):
        by_session: dict[tuple[str, str], list[MemoryRecord]] = {}
        for r in records:
            if r.kind in RAW_KINDS:
                by_session.setdefault((r.user_id, r.session_id), []).append(r)
        for (user_id, session_id), written in by_session.items():
            kinds = tuple(sorted({r.kind for r in written}))
            stored = memory.store.list_records(user_id, SearchFilters(session_ids=(session_id,), kinds=kinds),
                                               now=memory.clock())
            yield written, stored

    def _run(self, memory: AgentMemory, cfg: EnrichConfig, sessions: Sequence[Session],
             records: Sequence[MemoryRecord]) -> EnrichReport:
        batches: list[Batch] = []
        groups = 0
        for written, stored in self._groups(memory, records):
            groups += 1
            batches += plan_batches(cfg, written, stored, annotation_keys=memory.ingest.index_annotation_keys,
                                    max_chars=self.max_chars)
        outcomes = self.runner.run([b.spec for b in batches])
        now = memory.clock()
        anchor = memory.ingest.anchor_dates
        derived: list[MemoryRecord] = []
        facts: dict[str, list[str]] = {}
        extracted: set[str] = set()  # raw records whose extraction call succeeded
        failures: list[Failure] = []
        meta = {"ingested_at": now, "prompt_version": cfg.prompt_version, "model": self.model}
        for batch, outcome in zip(batches, outcomes, strict=True):
            if outcome.value is None:
                failure = _failure(batch, outcome)
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
        augmented = []
        for r in records:
            if r.record_id in extracted:
                new = augment_with_facts(r, facts.get(r.record_id, []))
                if new is not r:
                    augmented.append(new)
        to_write = derived + augmented
        result = None
        if to_write:
            affected = {(r.user_id, r.session_id) for r in to_write}
            vectors = memory.embedder.embed_records(to_write)
            result = memory.store.write([s for s in sessions if (s.user_id, s.session_id) in affected],
                                        to_write, vectors)
        report = EnrichReport(
            sessions=groups, planned=len(batches), calls=sum(o.calls for o in outcomes),
            cached=sum(o.status == "cached" for o in outcomes),
            repaired=sum(o.status == "repaired" for o in outcomes),
            failed=sum(o.status == "failed" for o in outcomes),
            budget_skipped=sum(o.status == "budget" for o in outcomes),
            derived=len(derived), augmented=len(augmented),
            input_tokens=sum(o.input_tokens for o in outcomes), output_tokens=sum(o.output_tokens for o in outcomes),
            failures=tuple(failures), write=result,
        )
        self.last_report = report
        return report


__all__ = ["MODES", "Batch", "EnrichConfig", "EnrichReport", "Enricher", "plan_batches"]
