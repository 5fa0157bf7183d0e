"""``CbMemoryChatMemory``: a LlamaIndex ``BaseMemory`` to pass as ``memory=`` to an agent.

    chat_memory = CbMemoryChatMemory(memory=AgentMemory.open("memory.db"), user_id="alice",
                                     session_id="2023-05-20", session_date="2023-05-20")
    await agent.run("When did I move to Lyon?", memory=chat_memory)

- ``put``/``aput``/``put_messages``/``aput_messages`` store every user and assistant message that has text
  in cbmemory, in this user's session, at once (tool calls and tool results are agent steps: not stored).
- ``get``/``aget`` return one system message with the memories most relevant to the input (or, when
  called without one, as agents do on their first step, to the latest user message), each with the date of
  its session, plus "Today is ...", followed by the recent window: the session's last ``window`` turns.
  Memories already in the window are left out, as hits and as the adjacent turns shown with a hit (the
  recipe's ``window``, not to be confused with this recent window).
- The window is read from the store, so another process (or a restart) continues the same session.
- ``set`` stores the turns of a history that are not stored yet; ``reset`` empties the window only
  (the turns stay in long-term memory; erase them with ``AgentMemory.forget``).
- Memory never stops the agent (``cbmemory.agent``): when recall or the window cannot be read, ``get``
  returns what it could (at worst nothing); a message that cannot be stored as it is is cleaned or left
  out. Each such fault is logged as a warning and handed to ``on_error``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import ConfigDict, Field, PrivateAttr
from llama_index.core.memory.types import BaseMemory

from cbmemory import (
    AgentMemory,
    ContextConfig,
    InvalidInputError,
    MemoryFault,
    MemoryRecord,
    Message,
    Recall,
    Recipe,
    get_recipe,
)
from cbmemory.integration import check_id, check_k, report_fault, to_utc

from .convert import plan_turns, query_of, stored_copies, window_messages

DEFAULT_WINDOW = 20


class CbMemoryChatMemory(BaseMemory):
    """One user's session in cbmemory, as LlamaIndex chat memory with long-term recall."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: AgentMemory = Field(exclude=True, description="The cbmemory store and embedder.")
    user_id: str = Field(description="Whose memory: searches and writes never leave this user.")
    session_id: str = Field(description="The current conversation; new turns are appended to it.")
    session_date: datetime | None = Field(
        default=None, description="When the session happens (the 'Today is' date and the date new turns are "
        "anchored to). None: the memory's clock at each call.")
    recipe: Any = Field(default=None, description="Retrieval recipe (name or Recipe); None: the "
                        "memory's default.")
    k: int | None = Field(default=None, description="Memories per call; None: the recipe's k.")
    window: int = Field(default=DEFAULT_WINDOW, description="Recent turns of the session returned as messages.")
    say_today: bool = Field(default=True, description="Add 'Today is ...' to the memory message.")
    on_error: Any = Field(default=None, exclude=True, description="Called with each cbmemory.agent.MemoryFault "
                          "(recall or saving not done as asked; the agent goes on).")

    _window_start: int = PrivateAttr(default=-1)
    _recalled: Recall | None = PrivateAttr(default=None)  # the last recall, linked to the turns saved next

    def __init__(self, *, memory: AgentMemory, user_id: str, session_id: str | None = None,
                 session_date: datetime | str | None = None, recipe: str | Recipe | None = None,
                 k: int | None = None, window: int = DEFAULT_WINDOW, say_today: bool = True,
                 on_error: Any = None) -> None:
        if not isinstance(memory, AgentMemory):
            raise InvalidInputError(f"memory must be a cbmemory.AgentMemory, got {type(memory).__name__}")
        check_id(user_id, "user_id")
        session_id = check_id(session_id, "session_id") if session_id is not None else uuid.uuid4().hex
        if k is not None:
            check_k(k)
        if isinstance(window, bool) or not isinstance(window, int) or window < 0:
            raise InvalidInputError(f"window must be a non-negative integer, got {window!r}")
        super().__init__(memory=memory, user_id=user_id, session_id=session_id,
                         session_date=to_utc(session_date) if session_date is not None else None,
                         recipe=get_recipe(recipe) if recipe is not None else None, k=k, window=window,
                         say_today=say_today, on_error=on_error)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "session_date" and value is not None:  # checked now, not at the next put
            value = to_utc(value)
        super().__setattr__(name, value)

    @classmethod
    def class_name(cls) -> str:
        return "CbMemoryChatMemory"

    @classmethod
    def from_defaults(cls, memory: AgentMemory | None = None, user_id: str | None = None, *,
                      chat_history: list[ChatMessage] | None = None, llm: Any = None,
                      **kwargs: Any) -> CbMemoryChatMemory:
        """Same as the constructor; ``chat_history`` is stored as the session's history (``set``).
        ``llm`` is accepted for LlamaIndex's signature and not used."""
        if memory is None or user_id is None:
            raise InvalidInputError("CbMemoryChatMemory needs memory= (an AgentMemory) and user_id=")
        chat_memory = cls(memory=memory, user_id=user_id, **kwargs)
        if chat_history:
            chat_memory.set(chat_history)
        return chat_memory

    # ------------------------------------------------------------------ pure parts
    @property
    def _recipe(self) -> Recipe:
        return self.recipe if self.recipe is not None else self.memory.recipe

    def _today(self) -> datetime:
        return self.session_date if self.session_date is not None else self.memory.clock()

    @property
    def _context_config(self) -> ContextConfig:
        context = self._recipe.context
        return context.with_(say_today=context.say_today and self.say_today)

    def _recall(self, query: str, window: Sequence[MemoryRecord]) -> Recall:
        shown = [Message(r.role, r.text, turn_id=r.turn_id) for r in window]
        self._recalled = self.memory.recall(query, self.user_id, shown=shown, today=self._today(),
                                            recipe=self._recipe, k=self.k, context=self._context_config, on_error=self.on_error)
        return self._recalled

    def _window(self) -> list[MemoryRecord]:
        """The session's last ``window`` turns (none when they cannot be read: reported, not raised)."""
        if not self.window:
            return []
        try:
            return self._visible(self.memory.session_records(**self._window_kwargs()))
        except Exception as exc:  # noqa: BLE001 - the agent answers without its recent turns
            report_fault(MemoryFault("recall", f"recent turns not read ({type(exc).__name__}: {exc})", self.user_id,
                               self.session_id, exc), self.on_error)
            return []

    def _visible(self, records: Sequence[MemoryRecord]) -> list[MemoryRecord]:
        """Oldest first, after the last ``reset``."""
        return sorted((r for r in records if r.position > self._window_start), key=lambda r: r.position)

    def _window_kwargs(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "session_id": self.session_id, "limit": self.window,
                "newest_first": True}

    def _write_kwargs(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "session_id": self.session_id, "date": self.session_date}

    # ------------------------------------------------------------------ sync
    def get(self, input: str | ChatMessage | None = None, **kwargs: Any) -> list[ChatMessage]:
        window = self._window()
        recent = window_messages(window)
        query = query_of(input, recent)
        found = self._recall(query, window) if query else None
        return ([ChatMessage(role="system", content=found.text)] if found and found.text else []) + recent

    def get_all(self) -> list[ChatMessage]:
        return window_messages(self._visible(self.memory.session_records(self.user_id, self.session_id)))

    def put(self, message: ChatMessage) -> None:
        self.put_messages([message])

    def put_messages(self, messages: list[ChatMessage]) -> None:
        self._store(messages, append=True)

    def set(self, messages: list[ChatMessage]) -> None:
        self._store(messages, append=False)

    def reset(self) -> None:
        last = self.memory.session_records(self.user_id, self.session_id, limit=1, newest_first=True)
        self._window_start = last[0].position if last else -1

    def _store(self, messages: Sequence[ChatMessage], *, append: bool) -> None:
        """Store the turns not stored yet; never raises (``cbmemory.agent.save``)."""
        try:
            stored = (stored_copies(self.memory, self.user_id, self.session_id, messages) if append
                      else self.memory.session_records(self.user_id, self.session_id))
            last = (self.memory.session_records(self.user_id, self.session_id, limit=1, newest_first=True)
                    if append else [])
            turns = plan_turns(messages, stored, append=append, last=last[0] if last else None)
        except Exception as exc:  # noqa: BLE001 - the turns are lost, the agent is not
            report_fault(MemoryFault("save", f"turns not stored ({type(exc).__name__}: {exc})", self.user_id,
                               self.session_id, exc), self.on_error)
            return
        # A user message opens a new step, whose recall comes after it (an agent puts the user's message
        # before it calls get): the turns before the first user message close the step of the last recall
        # and are saved with it; the user's message and what follows are saved with no recall (the last one
        # is another step's), and the last recall is spent.
        opens = next((i for i, t in enumerate(turns) if t.role == "user"), len(turns))
        if turns[:opens]:
            self.memory.save(messages=turns[:opens], shown=self._recalled, on_error=self.on_error,
                             **self._write_kwargs())
        if turns[opens:]:
            self._recalled = None
            self.memory.save(messages=turns[opens:], on_error=self.on_error, **self._write_kwargs())

    # ------------------------------------------------------------------ async (the core's a* methods)
    async def aget(self, input: str | ChatMessage | None = None, **kwargs: Any) -> list[ChatMessage]:
        return await asyncio.to_thread(self.get, input)

    async def aget_all(self) -> list[ChatMessage]:
        return window_messages(self._visible(await self.memory.asession_records(self.user_id, self.session_id)))

    async def aput(self, message: ChatMessage) -> None:
        await self.aput_messages([message])

    async def aput_messages(self, messages: list[ChatMessage]) -> None:
        await self._astore(messages, append=True)

    async def aset(self, messages: list[ChatMessage]) -> None:
        await self._astore(messages, append=False)

    async def areset(self) -> None:
        last = await self.memory.asession_records(self.user_id, self.session_id, limit=1, newest_first=True)
        self._window_start = last[0].position if last else -1

    async def _astore(self, messages: Sequence[ChatMessage], *, append: bool) -> None:
        await asyncio.to_thread(self._store, messages, append=append)


__all__ = ["CbMemoryChatMemory"]
