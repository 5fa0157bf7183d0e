"""``CbMemoryChatMessageHistory``: one cbmemory session as a LangChain chat message history.

    history = CbMemoryChatMessageHistory(memory, user_id="alice", session_id="s1")
    history.add_messages([HumanMessage("I moved to Lyon."), AIMessage("Nice!")])
    history.messages  # the session's turns in order, as Human/AI/System/Tool messages

The turns it stores are the same records the middleware and retriever search. Message ids become turn ids
(the core skips a message whose id is already stored); the speaker is kept as the message ``name``. Messages without
text (an AI message that only calls tools) are not conversation turns and are not stored.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from cbmemory import AgentMemory
from cbmemory.integration import check_id

from ._convert import to_langchain_message, to_memory_messages


class CbMemoryChatMessageHistory(BaseChatMessageHistory):
    """The turns of ``session_id`` in ``user_id``'s memory."""

    def __init__(self, memory: AgentMemory, user_id: str, session_id: str):
        self.memory = memory
        self.user_id = check_id(user_id, "user_id")
        self.session_id = check_id(session_id, "session_id")

    # langchain_core declares ``messages`` as a plain (settable) attribute while its docs ask subclasses for a
    # read-only property, as here; mypy sees a property overriding a writable attribute.
    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return [to_langchain_message(r) for r in self.memory.session_records(self.user_id, self.session_id)]

    async def aget_messages(self) -> list[BaseMessage]:
        records = await self.memory.asession_records(self.user_id, self.session_id)
        return [to_langchain_message(r) for r in records]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        turns = to_memory_messages(messages)
        if turns:
            self.memory.add_messages(self.user_id, self.session_id, turns)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        turns = to_memory_messages(messages)
        if turns:
            await self.memory.aadd_messages(self.user_id, self.session_id, turns)

    def clear(self) -> None:
        self.memory.forget(self.user_id, self.session_id)

    async def aclear(self) -> None:
        await self.memory.aforget(self.user_id, self.session_id)


__all__ = ["CbMemoryChatMessageHistory"]
