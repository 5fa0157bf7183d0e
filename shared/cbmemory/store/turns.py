"""What the calls of one agent turn may do to a store: how long a write waits for another connection's write
lock, and whether a call may write at all. Context variables, so they hold for one thread or one asyncio
task (``asyncio.to_thread`` copies them) and never for another user's calls running beside it.

- :func:`waiting_at_most`: inside it a write waits at most that long for the lock, then raises
  ``StoreUnavailableError`` (``cbmemory.agent.save`` waits ``SAVE_WAIT``, 2 s). Outside, a write waits the
  store's own ``timeout`` (30 s by default). The embedded store waits without holding its connection, so the
  other threads of the process read meanwhile (``sqlite.core.SQLiteFile.tx``); Couchbase has no write lock to wait for.
- :func:`reads_only`: inside it a search never writes (``cbmemory.agent.recall``): the embedder and sparse
  bindings are checked by reading them, and what a write would do first (binding, filling the sparse vectors
  of records stored before the binding) is left to the next write.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_WAIT: ContextVar[float | None] = ContextVar("cbmemory_write_wait", default=None)
_READS_ONLY: ContextVar[bool] = ContextVar("cbmemory_reads_only", default=False)


@contextmanager
def waiting_at_most(seconds: float) -> Iterator[None]:
    """Writes made inside wait at most ``seconds`` for another connection's write lock."""
    token = _WAIT.set(seconds)
    try:
        yield
    finally:
        _WAIT.reset(token)


def write_wait(default: float) -> float:
    """How long a write may wait for the lock here: ``default`` (the store's timeout), or less inside
    :func:`waiting_at_most`."""
    bound = _WAIT.get()
    return default if bound is None else min(bound, default)


def in_agent_turn() -> bool:
    """Inside :func:`waiting_at_most` (an agent's save): long work (a whole store's sparse backfill) is bounded."""
    return _WAIT.get() is not None


@contextmanager
def reads_only() -> Iterator[None]:
    """Searches made inside write nothing (see the module docstring)."""
    token = _READS_ONLY.set(True)
    try:
        yield
    finally:
        _READS_ONLY.reset(token)


def writes_allowed() -> bool:
    return not _READS_ONLY.get()


__all__ = ["in_agent_turn", "reads_only", "waiting_at_most", "write_wait", "writes_allowed"]
