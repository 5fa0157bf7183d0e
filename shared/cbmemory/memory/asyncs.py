"""The ``a*`` twins of ``AgentMemory``'s methods: ``in_thread(method)`` runs the synchronous core in a worker
thread, so an event loop never blocks and there is one implementation of everything (no async copies). A
twin takes exactly the arguments of the method it runs, and its type says so."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Concatenate, ParamSpec, TypeVar

S = TypeVar("S")
P = ParamSpec("P")
R = TypeVar("R")


def in_thread(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """``method`` as a coroutine method that runs it in a worker thread (``asyncio.to_thread``)."""

    async def twin(self: S, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, self, *args, **kwargs)

    twin.__name__ = twin.__qualname__ = f"a{method.__name__}"
    twin.__doc__ = f"``{method.__name__}`` run in a worker thread."
    return twin


__all__ = ["in_thread"]
