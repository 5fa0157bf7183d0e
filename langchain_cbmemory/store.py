"""``CbMemoryStore``: a LangGraph ``BaseStore`` on cbmemory, for ``create_agent(store=...)`` and LangGraph's
memory tools.

    store = CbMemoryStore(memory)                       # user id = namespace[1]
    store.put(("memories", "alice"), "pet", {"content": "Alice's puppy is called Biscuit"})
    store.search(("memories", "alice"), query="dog's name")   # ranked by the recipe; SearchItem.score set

Items live in the same memory as the user's conversations, so ``CbMemoryMiddleware`` recalls them too
(shown as ``[date] memory: {...}``). The namespace mapping is in ``_namespaces``, ``PutOp.index`` in
``_indexing``. Searches with a query go through the store's recipe; without one, items come newest first.
TTLs are in minutes, refreshed on read unless ``refresh_ttl=False``. The async API runs the same code in a
worker thread.

Costs: get, put and delete touch one session. A search (or listing) whose prefix does not name the user reads
every user's items under it, and ``list_namespaces`` reads all items: fine for an agent's memories, not a
bulk document store.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from numbers import Real
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from cbmemory import AgentMemory, InvalidInputError, MemoryRecord, Message, Recipe, SearchFilters
from cbmemory.integration import MAX_K, RAW_KINDS, check_unicode

from . import _indexing as ix
from . import _namespaces as ns

try:  # recent langgraph: check the labels of ops handed straight to batch()
    from langgraph.store.base import validate_op_namespace
except ImportError:  # pragma: no cover
    def validate_op_namespace(op: Op) -> None:
        return None


def _ttl_delta(minutes: object, what: str = "ttl") -> timedelta:
    """A LangGraph TTL (minutes) as a ``timedelta``: a finite, positive number, or ``InvalidInputError``."""
    if isinstance(minutes, bool) or not isinstance(minutes, Real) or not math.isfinite(minutes) or minutes <= 0:
        raise InvalidInputError(f"{what} must be a finite, positive number of minutes, got {minutes!r}")
    try:
        return timedelta(minutes=float(minutes))
    except OverflowError as exc:
        raise InvalidInputError(f"{what} of {minutes!r} minutes is too long; use None for items that never "
                                "expire") from exc


def _check_item_id(namespace: Sequence[str], key: str) -> None:
    """Namespace labels and keys are hashed as UTF-8 into session ids: refuse lone surrogates up front."""
    for label in (*namespace, key):
        if isinstance(label, str):
            check_unicode(label, "a namespace label or key")


class CbMemoryStore(BaseStore):
    """LangGraph store over an ``AgentMemory``.

    - ``recipe``: how searches with a query rank items (the memory's default when ``None``).
    - ``user_at``: which namespace label is the cbmemory user id (default 1, ``("memories", user_id)``;
      use 0 for ``(user_id, "memories")``).
    - ``ttl``: LangGraph ``TTLConfig`` (``default_ttl`` minutes, ``refresh_on_read``).
    - ``index_fields``: the field paths indexed when a put names none (LangGraph's ``IndexConfig["fields"]``;
      the embedder is the memory's own, so there is no ``dims`` or ``embed``). ``None``: the whole value.

    ``put(..., index=...)`` is honoured as LangGraph's stores do. ``index=False``: the item is stored, read
    and listed, but a search with a query never returns it (LangGraph's Postgres store behaves so; its
    ``InMemoryStore`` instead pads a short result with such items, scored ``None``). It is still a record in
    the user's memory, so ``CbMemoryMiddleware``, which searches that whole memory, can recall it.
    ``index=["text", "items[*].name", ...]``: only the texts at those paths are embedded and full-text
    indexed, each as its own record (LangGraph's path syntax, read by its ``get_text_at_path``), and the item
    ranks by its best text; the value itself is kept whole. Each text is indexed the way the memory indexes
    a turn (its ingest settings: the date prefix, with ``with_previous_turn`` the text before it).

    ``SearchItem.score`` (a query search) is the store recipe's score for the item's best record
    (``Hit.score`` of ``AgentMemory.search``): higher is better, but it is no cosine similarity and has no
    fixed range: the default recipe's weighted fusion scales each signal over the candidates of that one
    search, and RRF recipes add ``1 / (60 + rank)`` per signal. Compare scores within one search only. A
    prefix that does not name the user is searched user by user, and the users' items are merged by these
    scores. A search without a query returns ``score=None``, newest items first.
    """

    supports_ttl = True

    def __init__(self, memory: AgentMemory, *, recipe: str | Recipe | None = None, user_at: int = 1,
                 ttl: TTLConfig | None = None, index_fields: Sequence[str] | None = None):
        self.memory = memory
        self.recipe = recipe
        self.layout = ns.NamespaceLayout(user_at)
        if ttl and ttl.get("default_ttl") is not None:
            _ttl_delta(ttl["default_ttl"], "default_ttl")
        self.ttl_config = ttl
        self.index_fields = ix.check_fields(index_fields, "index_fields") if index_fields is not None else None

    # ---------------------------------------------------------------- batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order (a put is visible to the ops after it)."""
        results: list[Result] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                raise InvalidInputError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    # ---------------------------------------------------------------- records
    def _item_records(self, user_id: str, prefix: Sequence[str]) -> list[MemoryRecord]:
        """The raw records of one user's live items under ``prefix``, most recently put first (an item
        indexed by fields has one record per text: ``_indexing.first_records`` keeps one per item)."""
        filters = SearchFilters(annotations=ns.prefix_filter(prefix), kinds=RAW_KINDS)
        return self.memory.store.list_records(user_id, filters, newest_first=True, now=self.memory.clock())

    def _users(self, prefix: Sequence[str]) -> list[str]:
        pinned = self.layout.pinned_user(prefix)
        return [pinned] if pinned is not None else self.memory.store.users()

    def _record(self, namespace: Sequence[str], key: str) -> MemoryRecord | None:
        """The item's first record (the one holding its value), or ``None``."""
        recs = self.memory.session_records(self.layout.user_id(namespace), ns.item_session_id(namespace, key))
        return recs[0] if recs else None

    def _write(self, namespace: Sequence[str], key: str, value: Mapping[str, Any], spec: ix.IndexSpec, *,
               created: datetime, updated: datetime, ttl: float | None) -> None:
        texts, extra = ix.layout(value, spec)
        common = ns.item_annotations(namespace, key, created, ttl)
        messages = [Message("system", text, speaker=ns.SPEAKER, annotations={**common, **(extra if i == 0 else {})})
                    for i, text in enumerate(texts)]
        self.memory.add_session(self.layout.user_id(namespace), ns.item_session_id(namespace, key), messages,
                                date=updated, ttl=_ttl_delta(ttl) if ttl is not None else None)

    def _refresh(self, records: Sequence[MemoryRecord]) -> None:
        """Restart the TTL clock of items read (their value, index and dates stay as they are); ``records``
        are the items' first records."""
        for r in records:
            ttl = ns.record_ttl(r)
            if ttl is not None:
                item = ix.record_to_item(r)
                self._write(item.namespace, item.key, item.value, ix.record_spec(r), created=item.created_at,
                            updated=r.occurred_at, ttl=ttl)

    # ---------------------------------------------------------------- operations
    def _get(self, op: GetOp) -> Item | None:
        _check_item_id(op.namespace, op.key)
        record = self._record(op.namespace, op.key)
        if record is None:
            return None
        if op.refresh_ttl:
            self._refresh([record])
        return ix.record_to_item(record)

    def _put(self, op: PutOp) -> None:
        _check_item_id(op.namespace, op.key)
        user, session = self.layout.user_id(op.namespace), ns.item_session_id(op.namespace, op.key)
        if op.value is None:
            self.memory.forget(user, session)
            return
        if op.ttl is not None:
            _ttl_delta(op.ttl)
        spec = ix.index_spec(op.index, self.index_fields)
        old = self._record(op.namespace, op.key)
        now = self.memory.clock()
        created = ix.record_to_item(old).created_at if old is not None else now
        self._write(op.namespace, op.key, op.value, spec, created=created, updated=now, ttl=op.ttl)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit <= 0:
            return []
        wanted = op.offset + op.limit
        records = {u: self._item_records(u, op.namespace_prefix) for u in self._users(op.namespace_prefix)}
        items = {u: ix.first_records(recs) for u, recs in records.items()}
        if op.filter:
            items = {u: [r for r in firsts if ns.item_matches(ix.record_to_item(r).value, op.filter)]
                     for u, firsts in items.items()}
        if not op.query or not op.query.strip():
            newest = sorted((r for firsts in items.values() for r in firsts),
                            key=lambda r: r.occurred_at, reverse=True)[op.offset:wanted]
            scored: list[tuple[MemoryRecord, float | None]] = [(r, None) for r in newest]
        else:
            best: dict[tuple[str, str], tuple[MemoryRecord, float]] = {}
            for user, firsts in items.items():
                found = {r.session_id: r for r in firsts if ix.searchable(r)}
                if not found:
                    continue
                # the search must reach `wanted` items: each record past an item's first can take one place
                extra = sum(r.session_id in found for r in records[user]) - len(found)
                narrowed = bool(op.filter) or len(found) < len(firsts)  # by the filter or by index=False
                filters = SearchFilters(session_ids=tuple(found)) if narrowed \
                    else SearchFilters(annotations=ns.prefix_filter(op.namespace_prefix))
                for h in self.memory.search(op.query, user, min(wanted + extra, MAX_K), filters, recipe=self.recipe):
                    first = found.get(h.record.session_id)
                    have = best.get((user, h.record.session_id))
                    if first is not None and (have is None or h.score > have[1]):
                        best[(user, h.record.session_id)] = (first, h.score)
            ranked = sorted(best.values(), key=lambda rs: rs[1], reverse=True)
            scored = [(r, score) for r, score in ranked[op.offset:wanted]]
        if op.refresh_ttl:
            self._refresh([r for r, _ in scored])
        out = []
        for record, score in scored:
            item = ix.record_to_item(record)
            out.append(SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score))
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {ix.record_namespace(r) for u in self.memory.store.users() for r in self._item_records(u, ())}
        conditions = op.match_conditions or ()
        found = {n for n in found if all(ns.namespace_matches(n, c) for c in conditions)}
        if op.max_depth is not None:
            found = {n[: op.max_depth] for n in found}
        return sorted(found)[op.offset: op.offset + op.limit]


__all__ = ["CbMemoryStore"]
