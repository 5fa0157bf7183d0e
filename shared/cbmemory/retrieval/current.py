"""The reads ``current_only`` and ``as_of`` (``AgentMemory.search``/``recall``): which memories a later
statement of the user changed (the write-time links ``MemoryRecord.supersedes``), as of a date, and hiding them.

- ``as_of``: the state at a date. Only memories that occurred on or before it are searched or shown (the
  engine bounds ``SearchFilters.occurred_before`` by it), and a memory counts as changed only by a link from
  a record that itself occurred on or before it (``changes_at``): the value that held then is shown unmarked.
- ``current_only``: a memory so changed is neither a hit nor in any hit's context. A hit that was changed
  gives its place to the memories that hold now in its stead (``Superseded.current``: the records that
  changed it, followed through later changes; ``Superseded.instead``). The ranked list is read ``DEEPER``
  times as deep, so k hits still come back when some are hidden and their successors rank anyway (past k
  such, fewer than k: the trade-off of reading a bounded depth).

A derived memory (an event an LLM enricher extracted, a summary, a passage of a long message) stands for the
records it was made from (``source_ids``): it counts as changed when every one of them was, by the records that
changed them (``changes_of``), so ``current_only`` does not show "Ana lives in Paris" as an event once the turn
it came from was changed; one made from a changed turn and another is not.

Whether a memory was changed does not depend on the search's other filters (sessions, kinds, annotations): a
fact changed in a session the search leaves out is no longer current all the same (its stand-in must pass
the filters to be shown). Links come from live records of the queried user only
(``MemoryStore.superseding``): another user's never hide or show anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from ..dates import utcnow
from ..models import RAW_KINDS, Hit, MemoryRecord, SearchFilters
from ..store.base import MemoryStore
from ..store.filters import admits

DEEPER = 2  # current_only reads the ranking this many times as deep (hidden hits are made up for)
MAX_STEPS = 3  # later changes followed from a hidden memory to the one that holds now (A -> B -> C -> D)


def changes_at(store: MemoryStore, user_id: str, ids: list[str], now: datetime | None,
               as_of: datetime | None) -> dict[str, tuple[str, ...]]:
    """``store.superseding`` of ``ids``, less the links from records that occurred after ``as_of`` (all of
    them without one): the records that had changed each of ``ids`` by then."""
    links = store.superseding(user_id, ids, now=now) if ids else {}
    if as_of is None or not links:
        return links
    newer = list(dict.fromkeys(n for v in links.values() for n in v))
    held = {r.record_id for r in store.get_records(user_id, newer) if r.occurred_at <= as_of}
    return {old: kept for old, v in links.items() if (kept := tuple(n for n in v if n in held))}


def changes_of(store: MemoryStore, user_id: str, records: Sequence[MemoryRecord], now: datetime | None,
               as_of: datetime | None) -> dict[str, tuple[str, ...]]:
    """``changes_at`` of ``records``: a raw record's own links; a derived record (``source_ids``) counts as
    changed when every record it was made from was, by the records that changed them (in the order found). One
    ``superseding`` lookup for the records and their sources together."""
    sources = {r.record_id: r.source_ids for r in records if r.kind not in RAW_KINDS and r.source_ids}
    ids = list(dict.fromkeys([*(r.record_id for r in records), *(s for v in sources.values() for s in v)]))
    links = changes_at(store, user_id, ids, now, as_of)
    out = {r.record_id: links[r.record_id] for r in records if r.record_id in links}
    for rid, made_from in sources.items():
        if rid not in out and all(s in links for s in made_from):
            out[rid] = tuple(dict.fromkeys(n for s in made_from for n in links[s]))
    return out


class Superseded:
    """Which records of ``user_id`` a later one changed (as of ``as_of``), each asked of the store once."""

    def __init__(self, store: MemoryStore, user_id: str, now: datetime | None, as_of: datetime | None):
        self.store, self.user_id, self.now, self.as_of = store, user_id, now, as_of
        self._links: dict[str, tuple[str, ...]] = {}
        self._asked: set[str] = set()

    def _ask(self, ids: list[str]) -> None:
        fresh = [i for i in dict.fromkeys(ids) if i not in self._asked]
        if fresh:
            self._links.update(changes_at(self.store, self.user_id, fresh, self.now, self.as_of))
            self._asked.update(fresh)

    def of(self, records: Iterable[MemoryRecord]) -> set[str]:
        """The ids of the records among ``records`` that were changed (a derived one: ``changes_of``)."""
        records = list(records)
        fresh = [r for r in dict((r.record_id, r) for r in records).values() if r.record_id not in self._asked]
        if fresh:
            self._links.update(changes_of(self.store, self.user_id, fresh, self.now, self.as_of))
            self._asked.update(r.record_id for r in fresh)
        return {r.record_id for r in records if r.record_id in self._links}

    def current(self, record_id: str) -> tuple[str, ...]:
        """The records that hold now in place of ``record_id``: those that changed it, each followed on to
        those that changed it in turn (up to ``MAX_STEPS`` changes), in the order found; none when it was not
        changed."""
        out: list[str] = []
        seen, todo = {record_id}, [record_id]
        for _ in range(MAX_STEPS + 1):
            self._ask(todo)
            later: list[str] = []
            for i in todo:
                if i in self._links:
                    later += [n for n in self._links[i] if n not in seen]
                elif i != record_id:
                    out.append(i)
            seen.update(later)
            todo = later
            if not todo:
                break
        return tuple(dict.fromkeys(out))

    def instead(self, ranked: list[Hit], filters: SearchFilters) -> list[Hit]:
        """``ranked`` with each hit that was changed replaced, at its place, by the records that hold now in
        its stead (``current``) that ``filters`` admits: one ranked further down moves up to that place (as
        its own hit), another comes with the changed hit's score and signals; a changed hit with none is left
        out."""
        gone = self.of(h.record for h in ranked)
        if not gone:
            return ranked
        kept = {h.record.record_id: h for h in reversed(ranked) if h.record.record_id not in gone}
        stand_in = {rid: self.current(rid) for rid in gone}
        wanted = [i for i in dict.fromkeys(n for v in stand_in.values() for n in v) if i not in kept]
        at = self.now if self.now is not None else utcnow()
        got = {r.record_id: r for r in self.store.get_records(self.user_id, wanted) if admits(r, filters, at)}
        out: list[Hit] = []
        placed: set[str] = set()
        for h in ranked:
            rid = h.record.record_id
            for n in stand_in.get(rid, (rid,)):
                if n in placed or (n not in kept and n not in got):
                    continue
                placed.add(n)
                out.append(kept[n] if n in kept else replace(h, record=got[n], context=()))
        return out

    def without_context(self, hits: list[Hit]) -> list[Hit]:
        """``hits`` with the changed records left out of their context (windows)."""
        changed = self.of(r for h in hits for r in h.context)
        if not changed:
            return hits
        return [replace(h, context=tuple(r for r in h.context if r.record_id not in changed)) for h in hits]


__all__ = ["DEEPER", "MAX_STEPS", "Superseded", "changes_at", "changes_of"]
