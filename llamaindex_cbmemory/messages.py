"""``add_messages``: LlamaIndex chat messages stored as a session's turns (``AgentMemory.add_messages`` takes
cbmemory ``Message``s and dicts, not ``ChatMessage``s: this is the conversion ``CbMemoryChatMemory.put`` uses).

    from llamaindex_cbmemory import add_messages
    add_messages(memory, "alice", "s1", [ChatMessage(role="user", content="I moved to Lyon."),
                                         ChatMessage(role="assistant", content="Nice!")])

The user and assistant messages with text are stored, appended to the session, each with the turn id
``CbMemoryChatMemory`` gives it (``convert``: its role and text and how many turns before it in the session
say the same); system messages, tool results and tool-call-only messages are agent steps and are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from llama_index.core.base.llms.types import ChatMessage

from cbmemory import AgentMemory, IngestResult, Message

from .convert import plan_turns, stored_copies


def to_memory_messages(memory: AgentMemory, user_id: str, session_id: str,
                       messages: Sequence[ChatMessage]) -> list[Message]:
    """The turns ``messages`` add after those the session holds (see the module)."""
    return plan_turns(messages, stored_copies(memory, user_id, session_id, messages), append=True)


def add_messages(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[ChatMessage], *,
                 date: Any = None, ttl: timedelta | None = None, expires_at: Any = None) -> IngestResult:
    """``memory.add_messages`` of LlamaIndex chat messages (see the module); ``date``, ``ttl``,
    ``expires_at`` as there (``date``: the session's date when it is new)."""
    turns = to_memory_messages(memory, user_id, session_id, messages)
    return memory.add_messages(user_id, session_id, turns, date=date, ttl=ttl, expires_at=expires_at)


__all__ = ["add_messages", "to_memory_messages"]
