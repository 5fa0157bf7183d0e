"""``CbMemoryStore``: a LangGraph ``BaseStore`` on cbmemory, for ``create_agent(store=...)`` and LangGraph's
memory tools.

    store = CbMemoryStore(memory)                       # user id = namespace[1]
    store.put(("memories", "alice"), "pet", {"content": "Alice's puppy is called Biscuit"})
    store.search(("memories", "alice"), query="dog's name")   # ranked by the recipe; SearchItem.score set

Items live in the same memory as the user's conversations, so ``CbMemoryMiddleware`` recalls them too
(shown as ``[date] memory: {...}``). The namespace mapping is in ``_namespaces``. Searches with a query go
through the store's recipe; without one, items come newest first. TTLs are in minutes, refreshed on read
unless ``refresh_ttl=False``. The async API runs the same code in a worker thread.

Costs: get, put and delete touch one session. A search (or listing) whose prefix does not name the user reads
every user's items under it, and ``list_namespaces`` reads all items: fine for an agent's memories, not a
bulk document store.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from numbers import Real

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

from cbmemory.errors import InvalidInputError
from cbmemory.memory import AgentMemory
from cbmemory.models import MemoryRecord, Message, SearchFilters
from cbmemory.retrieval.recipes import Recipe
from cbmemory.validation import check_unicode

from . import _namespaces as ns

try:  # recent langgraph: check the labels of ops handed straight to batch()
    from langgraph.store.base import validate_op_namespace
except ImportError:  # pragma: no cover
    def validate_op_namespace(op: Op) -> None:
        return None

MAX_K = 10_000


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
    """

    supports_ttl = True

    def __init__(self, memory: AgentMemory, *, recipe: str | Recipe | None = None, user_at: int = 1,
                 ttl: TTLConfig | None = None):
        self.memory = memory
        self.recipe = recipe
        self.layout = ns.NamespaceLayout(user_at)
        if ttl and ttl.get("default_ttl") is not None:
            _ttl_delta(ttl["default_ttl"], "default_ttl")
        self.ttl_config = ttl

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
        """The live items of one user under ``prefix``, most recently put first."""
        filters = SearchFilters(annotations=ns.prefix_filter(prefix))
        return self.memory.store.list_records(user_id, filters, newest_first=True, now=self.memory.clock())

    def _users(self, prefix: Sequence[str]) -> list[str]:
        pinned = self.layout.pinned_user(prefix)
        return [pinned] if pinned is not None else self.memory.store.users()

    def _record(self, namespace: Sequence[str], key: str) -> MemoryRecord | None:
        recs = self.memory.session_records(self.layout.user_id(namespace), ns.item_session_id(namespace, key))
        return recs[0] if recs else None

    def _write(self, namespace: Sequence[str], key: str, text: str, *, created: datetime, updated: datetime,
               ttl: float | None) -> None:
        message = Message("system", text, speaker=ns.SPEAKER,
                          annotations=ns.item_annotations(namespace, key, created, ttl))
        self.memory.add_session(self.layout.user_id(namespace), ns.item_session_id(namespace, key), [message],
                                date=updated, ttl=_ttl_delta(ttl) if ttl is not None else None)

    def _refresh(self, records: Sequence[MemoryRecord]) -> None:
        """Restart the TTL clock of items read (their value and dates stay as they are)."""
        for r in records:
            ttl = ns.record_ttl(r)
            if ttl is not None:
                item = ns.record_to_item(r)
                self._write(item.namespace, item.key, r.text, created=item.created_at, updated=r.occurred_at,
                            ttl=ttl)

    # ---------------------------------------------------------------- operations
    def _get(self, op: GetOp) -> Item | None:
        _check_item_id(op.namespace, op.key)
        record = self._record(op.namespace, op.key)
        if record is None:
            return None
        if op.refresh_ttl:
            self._refresh([record])
        return ns.record_to_item(record)

    def _put(self, op: PutOp) -> None:
        _check_item_id(op.namespace, op.key)
        user, session = self.layout.user_id(op.namespace), ns.item_session_id(op.namespace, op.key)
        if op.value is None:
            self.memory.forget(user, session)
            return
        if op.ttl is not None:
            _ttl_delta(op.ttl)
        text = ns.encode_value(op.value)
        old = self._record(op.namespace, op.key)
        now = self.memory.clock()
        created = ns.record_to_item(old).created_at if old is not None else now
        self._write(op.namespace, op.key, text, created=created, updated=now, ttl=op.ttl)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit <= 0:
            return []
        wanted = op.offset + op.limit
        per_user = {u: self._item_records(u, op.namespace_prefix) for u in self._users(op.namespace_prefix)}
        if op.filter:
            per_user = {u: [r for r in recs if ns.item_matches(ns.record_to_item(r).value, op.filter)]
                        for u, recs in per_user.items()}
        if not op.query or not op.query.strip():
            records = sorted((r for recs in per_user.values() for r in recs),
                             key=lambda r: r.occurred_at, reverse=True)[op.offset:wanted]
            scored: list[tuple[MemoryRecord, float | None]] = [(r, None) for r in records]
        else:
            hits = []
            for user, recs in per_user.items():
                if not recs:
                    continue
                filters = SearchFilters(session_ids=tuple(r.session_id for r in recs)) if op.filter \
                    else SearchFilters(annotations=ns.prefix_filter(op.namespace_prefix))
                hits += self.memory.search(op.query, user, min(wanted, MAX_K), filters, recipe=self.recipe)
            hits.sort(key=lambda h: h.score, reverse=True)
            scored = [(h.record, h.score) for h in hits[op.offset:wanted]]
        if op.refresh_ttl:
            self._refresh([r for r, _ in scored])
        out = []
        for record, score in scored:
            item = ns.record_to_item(record)
            out.append(SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score))
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = {ns.record_to_item(r).namespace for u in self.memory.store.users() for r in self._item_records(u, ())}
        conditions = op.match_conditions or ()
        found = {n for n in found if all(ns.namespace_matches(n, c) for c in conditions)}
        if op.max_depth is not None:
            found = {n[: op.max_depth] for n in found}
        return sorted(found)[op.offset: op.offset + op.limit]


__all__ = ["CbMemoryStore"]
