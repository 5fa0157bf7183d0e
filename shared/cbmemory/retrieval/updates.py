"""Read time of supersession links (``MemoryRecord.supersedes``): when a recalled memory was changed by a
later statement of the user, the later one is recalled too, in the hit's context (as a window pulls
neighbours: the hits and their order stay those the recipe ranked),
and the hit says which records it shows were changed and when (``Hit.superseded_by``, ``Hit.changed``) so
the context marks them (``cbmemory.context.render``). Links are followed up to ``MAX_STEPS`` changes on
(A -> B -> C). A derived memory (an event, a summary, a passage) counts as changed when all the records it was
made from were (``current.changes_of``). One ``superseding`` lookup per step, one read of the records not shown
yet: of the records that changed a shown one, the newest ``PULLED`` (what holds now and the changes just before
it) and the first (whose date is the date of the change), so a matter changed a thousand times costs a recall
what one changed four times does."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from ..dates import utcnow
from ..models import Hit, MemoryRecord, SearchFilters, frozen_mapping
from ..store.base import MemoryStore
from ..store.filters import admits
from .current import changes_of

MAX_STEPS = 3  # changes followed from a recalled memory (A -> B -> C -> D)
PULLED = 3  # of the records that changed a recalled memory, the newest shown with it


def _shown(h: Hit) -> tuple[MemoryRecord, ...]:
    return (h.record, *h.context)


def with_updates(store: MemoryStore, user_id: str, hits: list[Hit], filters: SearchFilters,
                 now: datetime | None, as_of: datetime | None = None) -> list[Hit]:
    """``hits`` with the later records that change what they show added to their context (those ``filters``
    admits, not shown already), and each hit's ``superseded_by`` and ``changed`` set. ``as_of``: only the
    changes made by then count (``current.changes_at``)."""
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
        shown = {r.record_id for h in out for r in _shown(h)}
        wanted = [i for i in dict.fromkeys(x for v in links.values() for x in (v[0], *v[-PULLED:])) if i not in shown]
        got = {r.record_id: r for r in store.get_records(user_id, wanted) if admits(r, filters, at)}
        by_id = {r.record_id: r for h in out for r in _shown(h)} | got
        for old, newer in links.items():
            dates = [by_id[n].occurred_at for n in newer if n in by_id]
            if dates:
                when[old] = min(dates)
        placed: list[Hit] = []
        for h in out:
            pulled = [got.pop(n) for r in _shown(h) for n in links.get(r.record_id, ())[-PULLED:] if n in got]
            placed.append(replace(h, context=(*h.context, *pulled)) if pulled else h)
        out = placed
        records = [r for h in out for r in _shown(h)]
    return [replace(h, superseded_by=later.get(h.record.record_id, ()),
                    changed=frozen_mapping({r.record_id: when[r.record_id] for r in _shown(h) if r.record_id in when}))
            if any(r.record_id in when for r in _shown(h)) else h for h in out]
