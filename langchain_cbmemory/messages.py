"""``add_messages``: LangChain messages stored as a session's turns (``AgentMemory.add_messages`` takes
cbmemory ``Message``s and dicts, not ``BaseMessage``s: this is the conversion the middleware uses).

    from langchain_cbmemory import add_messages
    add_messages(memory, "alice", "s1", [HumanMessage("I moved to Lyon.", id="m1"), AIMessage("Nice!")])

Each message with text becomes a turn of its role (human -> user, ai -> assistant, system, tool), its
``name`` the speaker and its ``id`` the turn id, so adding the same messages again stores nothing twice. A
message with no text (an AI message that only calls tools) is left out; a message of another role is a
typed error (``InvalidInputError``) and nothing is stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from langchain_core.messages import BaseMessage

from cbmemory import AgentMemory, IngestResult

from ._convert import to_memory_messages


def add_messages(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[BaseMessage], *,
                 date: Any = None, ttl: timedelta | None = None, expires_at: Any = None) -> IngestResult:
    """``memory.add_messages`` of LangChain messages (see the module); ``date``, ``ttl``, ``expires_at`` as
    there (``date``: the session's date when it is new)."""
    turns = to_memory_messages(messages)
    return memory.add_messages(user_id, session_id, turns, date=date, ttl=ttl, expires_at=expires_at)


async def aadd_messages(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[BaseMessage], *,
                        date: Any = None, ttl: timedelta | None = None, expires_at: Any = None) -> IngestResult:
    """The asyncio twin of :func:`add_messages`."""
    turns = to_memory_messages(messages)
    return await memory.aadd_messages(user_id, session_id, turns, date=date, ttl=ttl, expires_at=expires_at)


__all__ = ["aadd_messages", "add_messages", "to_memory_messages"]
