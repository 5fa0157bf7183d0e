"""``CbMemoryContext``: the runtime context a LangChain agent with cbmemory is invoked with.

    agent = create_agent(model, tools, middleware=[CbMemoryMiddleware(memory)], context_schema=CbMemoryContext)
    agent.invoke({"messages": [...]}, context=CbMemoryContext(user_id="alice", session_id="s-42"))

One agent then serves many users: the middleware (and the memory tool) read the user, the session and the
session's date from it on every call. A plain dict with the same keys works too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class CbMemoryContext:
    """Who is talking (``user_id``), in which conversation (``session_id``; default: the thread id) and
    when (``session_date``, ISO text or a datetime: the "Today is" date and the date new turns are stored
    under; default: the memory's clock)."""

    user_id: str
    session_id: str | None = None
    session_date: datetime | str | None = None


__all__ = ["CbMemoryContext"]
