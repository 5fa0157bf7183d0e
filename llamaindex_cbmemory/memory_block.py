"""``CbMemoryBlock``: cbmemory as a block of LlamaIndex's composable ``Memory``.

    block = CbMemoryBlock(memory=AgentMemory.open("memory.db"), user_id="alice", priority=1)
    chat_memory = Memory.from_defaults(session_id="s7", token_limit=40_000, memory_blocks=[block])

On ``aget`` the block searches the user's memory for the latest user message (or ``Memory.aget``'s
input) and returns the memories with their session dates and "Today is ...", which ``Memory`` puts in
its system message. Memories already in the short-term buffer are left out, as hits and as the adjacent
turns shown with a hit (the recipe's ``window``).

What gets stored: ``Memory`` hands a block only the messages it *flushes* from its short-term buffer (when
the buffer passes ``token_limit * chat_history_token_ratio``), never the recent turns. So a short
conversation is not in cbmemory until the buffer overflows. To store every turn at once, use
``CbMemoryChatMemory`` instead, or write turns yourself with ``AgentMemory.add_messages``. Flushed
messages are stored in the cbmemory session named by ``Memory``'s ``session_id``.

Truncation: when ``Memory`` runs out of tokens it asks blocks with ``priority`` >= 1 (0 = never truncate;
lower numbers are truncated first) to shrink; this block drops its lowest-ranked memories first.

Memory never stops the agent (``cbmemory.agent``): a recall that cannot run gives an empty block, and
flushed messages that cannot be stored as they are are cleaned or left out; each fault is logged as a
warning and handed to ``on_error``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory.memory import BaseMemoryBlock

from cbmemory import (
    AgentMemory,
    ContextConfig,
    Hit,
    InvalidInputError,
    MemoryFault,
    Message,
    Recipe,
    get_recipe,
)
from cbmemory.integration import check_id, check_k, check_reads, count_tokens, report_fault, to_utc

from .convert import conversational, memory_text, plan_turns, query_of, stored_copies

DEFAULT_SESSION = "llamaindex-memory"
_RENDERED_KEPT = 16  # contents remembered for atruncate (Memory truncates right after aget)


class CbMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory from cbmemory inside ``llama_index.core.memory.Memory``."""

    name: str = Field(default="cbmemory", description="The block's name (its tag in the system message).")
    description: str | None = Field(
        default="Relevant memories from earlier conversations, each with the date it was said.")
    priority: int = Field(default=1, description="0 = never truncate; 1 = truncated last; higher first.")
    memory: AgentMemory = Field(exclude=True, description="The cbmemory store and embedder.")
    user_id: str = Field(description="Whose memory: searches and writes never leave this user.")
    recipe: Any = Field(default=None, description="Recipe (a name or a Recipe); None: the memory's.")
    k: int | None = Field(default=None, description="Memories per call; None: the recipe's k.")
    today: datetime | None = Field(default=None, description="The 'Today is' date; None: the memory's clock.")
    say_today: bool = Field(default=True, description="Add 'Today is ...' to the block.")
    current_only: bool = Field(default=False, description="Leave out memories a later statement of the user "
                               "changed (AgentMemory.search).")
    as_of: datetime | None = Field(default=None, description="The memory as it was then (a date alone: to its "
                                   "end), and the 'Today is' date when today is None (AgentMemory.search).")
    on_error: Any = Field(default=None, exclude=True, description="Called with each cbmemory.agent.MemoryFault "
                          "(recall or saving not done as asked; the agent goes on).")

    _rendered: OrderedDict[str, tuple[Hit, ...]] = PrivateAttr(default_factory=OrderedDict)

    def __init__(self, *, memory: AgentMemory, user_id: str, recipe: str | Recipe | None = None,
                 k: int | None = None, today: datetime | str | None = None, current_only: bool = False,
                 as_of: datetime | str | None = None, **kwargs: Any) -> None:
        if not isinstance(memory, AgentMemory):
            raise InvalidInputError(f"memory must be a cbmemory.AgentMemory, got {type(memory).__name__}")
        check_id(user_id, "user_id")
        if k is not None:
            check_k(k)
        super().__init__(memory=memory, user_id=user_id, recipe=get_recipe(recipe) if recipe is not None else None,
                         k=k, today=to_utc(today) if today is not None else None, current_only=current_only,
                         as_of=check_reads(current_only, as_of), **kwargs)

    @property
    def _recipe(self) -> Recipe:
        return self.recipe if self.recipe is not None else self.memory.recipe

    def _today(self) -> datetime:
        return self.today or self.as_of or self.memory.clock()

    @property
    def _context_config(self) -> ContextConfig:
        context = self._recipe.context
        return context.with_(say_today=context.say_today and self.say_today)

    def _render(self, hits: Sequence[Hit]) -> str:
        return memory_text(hits, self._today(), self._context_config)

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        buffer = list(messages or [])
        query = query_of(None, buffer)
        if not query:
            return ""
        shown = [Message(role, text) for role, text in conversational(buffer)]
        found = await self.memory.arecall(query, self.user_id, shown=shown, today=self._today(), recipe=self._recipe,
                                          k=self.k, context=self._context_config, on_error=self.on_error,
                                          current_only=self.current_only, as_of=self.as_of)
        kept, text = found.hits, found.text  # Memory's own token limit applies later, through atruncate
        self._rendered[text] = kept
        while len(self._rendered) > _RENDERED_KEPT:
            self._rendered.popitem(last=False)
        return text

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the lowest-ranked memories until ``tokens_to_truncate`` tokens are saved (None: all gone)."""
        hits = self._rendered.get(content)
        if not hits:
            return None  # not a text this block made: drop it whole, as the base class does
        target = count_tokens(content) - tokens_to_truncate
        for n in range(len(hits) - 1, 0, -1):
            text = self._render(hits[:n])
            if count_tokens(text) <= target:
                self._rendered[text] = hits[:n]
                return text
        return None

    async def _aput(self, messages: list[ChatMessage]) -> None:
        """Store the flushed user and assistant messages, in the session ``Memory`` names on them (never
        raises: see the module docstring)."""
        await asyncio.to_thread(self._put, messages)

    def _put(self, messages: list[ChatMessage]) -> None:
        by_session: dict[str, list[ChatMessage]] = {}
        for m in messages:
            session_id = m.additional_kwargs.get("session_id") or DEFAULT_SESSION
            by_session.setdefault(str(session_id), []).append(m)
        for session_id, batch in by_session.items():
            try:
                turns = plan_turns(batch, stored_copies(self.memory, self.user_id, session_id, batch), append=True)
            except Exception as exc:  # noqa: BLE001 - the turns are lost, the agent is not
                report_fault(MemoryFault("save", f"turns not stored ({type(exc).__name__}: {exc})", self.user_id,
                                   session_id, exc), self.on_error)
                continue
            if turns:
                self.memory.save(self.user_id, session_id, turns, date=self.today, on_error=self.on_error)


__all__ = ["CbMemoryBlock"]
