"""Read time of supersession links (``MemoryRecord.supersedes``): when a recalled memory was changed by a
later statement of the user, the later one is recalled too, in the hit's context (as a window pulls
neighbours: the hits and their order stay those the recipe ranked),
and the hit says which records it shows were changed and when (``Hit.superseded_by``, ``Hit.changed``) so
the context marks them (``cbmemory.context.render``). Links are followed up to ``MAX_STEPS`` changes on
(A -> B -> C). A derived memory (an event, a summary, a passage) counts as changed when all the records it was
made from were (``current.changes_of``). One ``superseding`` lookup per step, one read of the records not shown
yet: of the records that changed a shown raw one, the first (whose date is the date of the change) and the
newest ``PULLED`` (what holds now and the changes just before it), so a matter changed a thousand times reads and
shows what one changed four times does (its ids are still all listed in ``Hit.superseded_by``); all of them when
the search's filters leave out one of those few (the change's date and mark are those of the records the
filters admit), and all of a derived one's (they come source by source, not in date order)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from ..dates import utcnow
from ..models import RAW_KINDS, Hit, MemoryRecord, SearchFilters, conversation_order, frozen_mapping
from ..store.base import MemoryStore
from ..store.filters import admits
from .current import changes_of

MAX_STEPS = 3  # changes followed from a recalled memory (A -> B -> C -> D)
PULLED = 3  # of the records that changed a recalled memory, the newest shown with it


def _shown(h: Hit) -> tuple[MemoryRecord, ...]:
    return (h.record, *h.context)


def _admitted(store: MemoryStore, user_id: str, reads: Iterable[Sequence[str]], known: Mapping[str, MemoryRecord],
              filters: SearchFilters, at: datetime) -> dict[str, MemoryRecord]:
    """The records of ``reads`` not ``known`` yet that ``filters`` admit, read in one call, by id."""
    wanted = [i for i in dict.fromkeys(x for v in reads for x in v) if i not in known]
    return {r.record_id: r for r in store.get_records(user_id, wanted) if admits(r, filters, at)}


def with_updates(store: MemoryStore, user_id: str, hits: list[Hit], filters: SearchFilters,
                 now: datetime | None, as_of: datetime | None = None) -> list[Hit]:
    """``hits`` with the newest ``PULLED`` of the later records that change what they show added to their context
    (of those read that ``filters`` admits, each that the hit's own passage does not show yet: another hit that
    shows it may be left out by the context's token budget), and each hit's ``superseded_by`` and ``changed``
    set. ``as_of``: only the changes made by then count (``current.changes_at``)."""
    if not hits:
        return hits
    out = list(hits)
    at = now if now is not None else utcnow()
    when: dict[str, datetime] = {}  # id of a record shown -> the date of its change
    later: dict[str, tuple[str, ...]] = {}
    records = [r for h in out for r in _shown(h)]
    asked: set[str] = set()
    for _ in range(MAX_STEPS):
        fresh = [r for r in {r.record_id: r for r in records}.values() if r.record_id not in asked]
        if not fresh:
            break
        asked.update(r.record_id for r in fresh)
        links = changes_of(store, user_id, fresh, now, as_of)
        if not links:
            break
        later.update(links)
        known = {r.record_id: r for h in out for r in _shown(h)}
        raw = {r.record_id for r in fresh if r.kind in RAW_KINDS}
        reads = {old: tuple(dict.fromkeys((v[0], *v[-PULLED:]))) if old in raw else v for old, v in links.items()}
        got = _admitted(store, user_id, reads.values(), known, filters, at)
        # one of the few read that the filters leave out: all are read (the change's date and its mark are
        # those of the records the filters admit, as for a matter changed a few times)
        full = {old: links[old] for old, read in reads.items()
                if old in raw and any(n not in known and n not in got for n in read)}
        if full:
            reads |= full
            got |= _admitted(store, user_id, full.values(), {**known, **got}, filters, at)
        by_id = known | got
        for old, read in reads.items():
            dates = [by_id[n].occurred_at for n in read if n in by_id]
            if dates:
                when[old] = min(dates)
        # each hit's passage gets what changed the records it shows, also a record another hit shows: the
        # context's budget may leave that hit out (a context shows a record once, and the budget counts it once)
        placed: list[Hit] = []
        for h in out:
            own = {r.record_id for r in _shown(h)}
            pulled: dict[str, MemoryRecord] = {}
            for r in _shown(h):
                newest = sorted((by_id[n] for n in reads.get(r.record_id, ()) if n in by_id), key=conversation_order)
                pulled |= {n.record_id: n for n in newest[-PULLED:] if n.record_id not in own}
            placed.append(replace(h, context=(*h.context, *pulled.values())) if pulled else h)
        out = placed
        records = [r for h in out for r in _shown(h)]
    return [replace(h, superseded_by=later.get(h.record.record_id, ()),
                    changed=frozen_mapping({r.record_id: when[r.record_id] for r in _shown(h) if r.record_id in when}))
            if any(r.record_id in when for r in _shown(h)) else h for h in out]
