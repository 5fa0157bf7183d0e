"""Planning the LLM calls of one write: which turns go into which call (pure functions over records).

``plan_batches`` turns the raw records of a write, and the session's other raw records (context), into
``Batch``es: the call to make and what is needed to turn its answer into records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...dates import utcnow
from ...models import MemoryRecord
from ..config import EnrichConfig
from .cache import Failure
from .extraction import CallSpec, Line, Outcome, events_messages, round_summary_messages, summary_messages
from .records import source_ids


@dataclass(frozen=True, slots=True)
class Batch:
    """One planned call with what is needed to turn its result into records."""

    spec: CallSpec
    key: str  # record-id key of what it derives
    lines: Mapping[str, MemoryRecord]  # label -> raw record (T1.. for events and summaries)
    rounds: Mapping[str, tuple[MemoryRecord, ...]] = field(default_factory=dict)  # R1.. -> raw records


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


def failure_of(batch: Batch, outcome: Outcome) -> Failure:
    """The failure record of a batch whose call gave no usable answer."""
    recs = list(batch.lines.values()) + [r for rd in batch.rounds.values() for r in rd]
    ids: list[str] = []
    for r in recs:
        ids += [i for i in source_ids(r) if i not in ids]
    user_id, session_id = batch.spec.session
    return Failure(batch.spec.task, user_id, session_id, outcome.error or outcome.status, outcome.hash,
                   batch.spec.prompt_version, tuple(ids), outcome.raw, outcome.calls,
                   utcnow().isoformat(timespec="seconds"))


__all__ = ["Batch", "failure_of", "plan_batches"]
