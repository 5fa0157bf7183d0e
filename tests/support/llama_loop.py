"""Test support for the LlamaIndex adapter tests: run steps with LlamaIndex's ``Memory`` in one event loop, and close
its chat store there.

LlamaIndex's ``Memory`` keeps its short-term chat in an in-memory aiosqlite database (its default
``SQLAlchemyChatStore``), opened in the event loop of its first use. ``asyncio.run`` closes that loop when the steps
end; the database's connection, left to garbage collection, then answers from aiosqlite's worker thread on the closed
loop (a ``PytestUnhandledThreadExceptionWarning``, in a different test each time, in some full runs). ``run_closed``
disposes the store's engine in the loop that opened it. LlamaIndex gives the engine no public name."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


def run_closed(memory: Any, steps: Callable[[], Awaitable[T]]) -> T:
    """``asyncio.run`` of ``steps()``, then, in the same loop, the disposal of ``memory``'s chat-store engine (when
    ``memory`` is LlamaIndex's ``Memory`` and its store was opened; anything else is left as it is)."""

    async def run() -> T:
        try:
            return await steps()
        finally:
            engine = getattr(getattr(memory, "sql_store", None), "_async_engine", None)
            if engine is not None:
                await engine.dispose()

    return asyncio.run(run())
