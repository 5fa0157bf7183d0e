"""Turns an agent's save could not store because the store stayed locked (another connection held its write
lock for longer than ``cbmemory.agent.SAVE_WAIT``), kept for the next save of the same user and session,
which stores them first, in the order they were said.

Held per store object (a weak map: nothing outlives the store) and in this process only: turns still held
when the process ends are lost (each was reported, as a ``MemoryFault``, when it was kept). At most
``MAX_PENDING`` turns are held over all users and sessions of a store; beyond that the oldest are dropped,
and the drop is reported too.
"""

from __future__ import annotations

import threading
import weakref
from datetime import datetime

from .models import Message

MAX_PENDING = 1_000  # turns held per store, over all its users and sessions

Key = tuple[str, str]  # (user_id, session_id)
Batch = tuple[datetime | None, tuple[Message, ...]]  # one save's turns, with its date


class Pending:
    """The turns held for one store (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[Key, list[Batch]] = {}  # in the order first held
        self._count = 0

    def keep(self, key: Key, when: datetime | None, turns: tuple[Message, ...], *,
             first: bool = False) -> list[tuple[Key, int]]:
        """Hold ``turns`` for ``key`` (after what it holds; before, with ``first``: batches put back). Returns
        the ``(key, turns)`` dropped, oldest first, to stay within ``MAX_PENDING``."""
        dropped: list[tuple[Key, int]] = []
        with self._lock:
            batches = self._held.setdefault(key, [])
            batches.insert(0, (when, turns)) if first else batches.append((when, turns))
            self._count += len(turns)
            while self._count > MAX_PENDING:
                old, oldest = next(iter(self._held.items()))
                _, lost = oldest.pop(0)
                self._count -= len(lost)
                dropped.append((old, len(lost)))
                if not oldest:
                    del self._held[old]
        return dropped

    def take(self, key: Key) -> list[Batch]:
        """Every batch held for ``key``, oldest first, no longer held."""
        with self._lock:
            batches = self._held.pop(key, [])
            self._count -= sum(len(t) for _, t in batches)
            return batches


_BY_STORE: weakref.WeakKeyDictionary[object, Pending] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def pending_for(memory: object) -> Pending:
    """The turns held for ``memory``'s store (its ``store``, or the memory itself when it has none)."""
    owner = getattr(memory, "store", memory)
    with _LOCK:
        found = _BY_STORE.get(owner)
        if found is None:
            found = _BY_STORE[owner] = Pending()
        return found


__all__ = ["MAX_PENDING", "Pending", "pending_for"]
