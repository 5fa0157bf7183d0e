"""From model results to memory records: summary and event records linked to their source turns, and the
raw record's index key augmented with facts. Pure functions over frozen data; no model, no store.
"""

from __future__ import annotations

import calendar
import dataclasses
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

from ...dates import anchor_label
from ...dates.relative import DateSpan, find_relative_dates, resolve_relative_dates
from ...models import MemoryRecord, frozen_mapping
from ...text import content_hash, content_words
from ..records import record_id
from ..slots import grounded, same_value, with_slots
from .parsing import ExtractedEvent

FACTS_MARK = "\n[facts] "


def source_ids(record: MemoryRecord) -> tuple[str, ...]:
    """The turn ids a raw record stands for (a round's turns; a turn's id, or its record id without one; a
    turn's own ``source_ids`` name the memories it restates, not turns it stands for)."""
    if record.kind == "round" and record.source_ids:
        return record.source_ids
    return (record.turn_id,) if record.turn_id else (record.record_id,)


def base_index_text(record: MemoryRecord) -> str:
    """The index text without any facts added by ``augment_with_facts``."""
    return record.index_text.split(FACTS_MARK, 1)[0]


def _expiry(sources: Sequence[MemoryRecord]) -> datetime | None:
    """Derived records never outlive their sources: the earliest expiry among them."""
    dates = [r.expires_at for r in sources if r.expires_at is not None]
    return min(dates) if dates else None


def _derived(kind: str, key: str, sources: Sequence[MemoryRecord], text: str, index_body: str, *,
             anchor: bool, ingested_at: datetime, annotations: Mapping[str, str]) -> MemoryRecord:
    first = min(sources, key=lambda r: r.position)
    index_text = f"[{anchor_label(first.occurred_at)}] {index_body}" if anchor else index_body
    ids: list[str] = []
    for r in sorted(sources, key=lambda r: r.position):
        ids += [i for i in source_ids(r) if i not in ids]
    return MemoryRecord(
        record_id=record_id(first.user_id, first.session_id, kind, key), user_id=first.user_id,
        session_id=first.session_id, kind=kind, position=first.position, role="system", text=text,
        index_text=index_text, occurred_at=first.occurred_at, ingested_at=ingested_at,
        content_hash=content_hash(index_text), annotations=frozen_mapping(dict(annotations)),
        expires_at=_expiry(sources), source_ids=tuple(ids),
    )


def summary_record(key: str, sources: Sequence[MemoryRecord], summary: str, *, anchor: bool,
                   ingested_at: datetime, prompt_version: str, model: str) -> MemoryRecord:
    """A ``summary`` record over ``sources`` (a session, a part of one, or a round)."""
    return _derived("summary", key, sources, summary, f"Summary: {summary}", anchor=anchor,
                    ingested_at=ingested_at,
                    annotations={"enrich": "summary", "prompt_version": prompt_version, "model": model})


# ---------------------------------------------------------------------------- events
@dataclasses.dataclass(frozen=True, slots=True)
class ResolvedWhen:
    """An event's time: the words as said, the span they mean, and who resolved it (``rule`` or ``llm``)."""

    words: str | None
    span: DateSpan | None
    source: str | None

    @property
    def text(self) -> str | None:
        if self.span is None:
            return self.words
        return f"{self.words} [= {self.span.label}]" if self.words else self.span.label


_ISO = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?\s*$")


def _llm_date(value: str | None, session_day: date) -> DateSpan | None:
    """The model's own absolute date (``YYYY-MM-DD``, ``YYYY-MM`` or ``YYYY``), if it is a real date within
    50 years of the session."""
    if not value:
        return None
    m = _ISO.match(value)
    if not m:
        return None
    y, mo, d = int(m[1]), int(m[2] or 0), int(m[3] or 0)
    if abs(y - session_day.year) > 50:
        return None
    try:
        if d:
            day = date(y, mo, d)
            return DateSpan(day, day, "day")
        if mo:
            first = date(y, mo, 1)
            return DateSpan(first, first.replace(day=calendar.monthrange(y, mo)[1]), "month")
        return DateSpan(date(y, 1, 1), date(y, 12, 31), "year")
    except ValueError:
        return None


def resolve_when(event: ExtractedEvent, session_date: datetime) -> ResolvedWhen:
    """The rule-based resolver first (deterministic, and small models rarely do date arithmetic right),
    then the model's own absolute date; neither: the words alone."""
    if event.when:
        found = find_relative_dates(event.when, session_date, rules="rules-v1")  # pinned: stored texts
        if found:
            return ResolvedWhen(event.when, found[0].span, "rule")
    span = _llm_date(event.date, session_date.date())
    if span is not None:
        return ResolvedWhen(event.when, span, "llm")
    return ResolvedWhen(event.when, None, None)


def event_sentence(event: ExtractedEvent, when: ResolvedWhen, session_date: datetime) -> str:
    """``Caroline: went to an LGBTQ support group. When: yesterday [= 6 May 2023]. Where: Boston.``
    Relative dates left in the sentence are resolved against the session date as well."""
    what = event.what.rstrip()
    if what and what[-1] not in ".!?":
        what += "."
    who = event.who.strip()
    head = what if not who or who.lower() in what.lower() else f"{who}: {what}"
    parts = [head]
    if when.text:
        parts.append(f"When: {when.text}.")
    if event.where:
        parts.append(f"Where: {event.where}.")
    return resolve_relative_dates(" ".join(parts), session_date, rules="rules-v1")


def _best_line(event: ExtractedEvent, lines: Mapping[str, MemoryRecord]) -> str | None:
    """When the model names no valid line, the line sharing the most words with the event."""
    want = set(content_words(f"{event.who} {event.what}"))
    scored = [(len(want & set(content_words(r.text))), -r.position, label) for label, r in lines.items()]
    best = max(scored, default=None)
    return best[2] if best and best[0] > 0 else None


def link_events(events: Sequence[ExtractedEvent], lines: Mapping[str, MemoryRecord]) -> list[tuple[ExtractedEvent, tuple[str, ...]]]:
    """Each event with the labels of its source lines (the model's, or the best-matching line)."""
    out = []
    for e in events:
        labels = tuple(lb for lb in e.turns if lb in lines)
        if not labels:
            best = _best_line(e, lines)
            labels = (best,) if best else ()
        if labels:
            out.append((e, labels))
    return out


def event_records(key: str, linked: Sequence[tuple[ExtractedEvent, tuple[str, ...]]],
                  lines: Mapping[str, MemoryRecord], *, anchor: bool, ingested_at: datetime,
                  prompt_version: str, model: str) -> list[MemoryRecord]:
    """One ``event`` record per linked event, keyed by the batch and its index in it."""
    out = []
    for i, (event, labels) in enumerate(linked):
        sources = [lines[lb] for lb in labels]
        session_date = sources[0].occurred_at
        when = resolve_when(event, session_date)
        text = event_sentence(event, when, session_date)
        ann = {"enrich": "event", "prompt_version": prompt_version, "model": model}
        if event.who:
            ann["event_who"] = event.who[:200]
        if when.span is not None:
            ann |= {"event_date": when.span.start.isoformat(), "event_date_end": when.span.end.isoformat(),
                    "event_date_source": str(when.source)}
        out.append(_derived("event", f"{key}:{i}", sources, text, f"Event: {text}", anchor=anchor,
                            ingested_at=ingested_at, annotations=ann))
    return out


def augment_with_facts(record: MemoryRecord, facts: Sequence[str],
                       slots: Mapping[str, str] | None = None) -> MemoryRecord:
    """``record`` with ``facts`` appended to its index text (what is embedded and full-text indexed);
    ``text`` (what is stored and returned) stays raw. Facts already there are replaced, not stacked.
    ``slots`` (key -> value), when given, become the record's slot annotations in place of any it had
    (``cbmemory.ingest.slots``); ``None`` leaves its annotations as they are."""
    base = base_index_text(record)
    unique = list(dict.fromkeys(f.strip() for f in facts if f.strip()))
    index_text = base + (FACTS_MARK + " ".join(unique) if unique else "")
    annotations = record.annotations if slots is None else with_slots(record.annotations, slots)
    if index_text == record.index_text and annotations == record.annotations:
        return record
    return dataclasses.replace(record, index_text=index_text, content_hash=content_hash(index_text),
                               annotations=frozen_mapping(dict(annotations)))


def about_speaker(who: str, record: MemoryRecord) -> bool:
    """Whether a fact's ``who`` is the speaker of ``record`` (the line the fact came from): the speaker's
    name or its first name, the role, or a word for oneself; not someone the speaker mentions ("cousin",
    "Caroline's cousin") and not an empty ``who`` (precision first)."""
    w = " ".join(who.casefold().split())
    speaker = " ".join((record.speaker or "").casefold().split())
    return bool(w) and (w in _SELF or w == record.role or (bool(speaker) and w in (speaker, speaker.split()[0])))


_SELF = frozenset({"i", "me", "myself", "user", "the user", "speaker", "the speaker"})


def slots_by_line(linked: Sequence[tuple[ExtractedEvent, tuple[str, ...]]],
                  lines: Mapping[str, MemoryRecord]) -> dict[str, dict[str, str]]:
    """Record id -> slot key -> value, for the user's lines, from the facts about their speaker that carry a
    key and a value found in the line's words (``grounded``). A key given two different values for one line (a
    move told with both cities) is left out: which one holds now cannot be told."""
    out: dict[str, dict[str, str]] = {}
    clashes: set[tuple[str, str]] = set()
    for event, labels in linked:
        if event.key is None or event.value is None:
            continue
        for lb in labels:
            rec = lines[lb]
            if rec.role != "user" or not about_speaker(event.who, rec) or not grounded(event.value, rec.text):
                continue
            mine = out.setdefault(rec.record_id, {})
            if event.key in mine and not same_value(mine[event.key], event.value):
                clashes.add((rec.record_id, event.key))
            mine.setdefault(event.key, event.value)
    for rid, key in clashes:
        del out[rid][key]
    return out


def facts_by_line(linked: Sequence[tuple[ExtractedEvent, tuple[str, ...]]],
                  lines: Mapping[str, MemoryRecord]) -> dict[str, list[str]]:
    """Record id -> fact sentences (each event goes to every line it came from), with relative dates
    in the fact resolved against the line's session date."""
    out: dict[str, list[str]] = {}
    for event, labels in linked:
        for lb in labels:
            rec = lines[lb]
            when = resolve_when(event, rec.occurred_at)
            out.setdefault(rec.record_id, []).append(event_sentence(event, when, rec.occurred_at))
    return out


__all__ = ["FACTS_MARK", "ResolvedWhen", "about_speaker", "augment_with_facts", "base_index_text", "event_records",
           "event_sentence", "facts_by_line", "link_events", "resolve_when", "slots_by_line", "source_ids",
           "summary_record"]
