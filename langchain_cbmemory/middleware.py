"""``CbMemoryMiddleware``: cbmemory as the long-term memory of a LangChain v1 agent (``create_agent``).

    agent = create_agent(model, tools, middleware=[CbMemoryMiddleware(memory)])
    agent.invoke({"messages": [("user", "What did I adopt?")]},
                 context=CbMemoryContext(user_id="alice", session_id="s-42", session_date="2023-06-01"))

Before every model call it searches the user's memory for their latest message with a recipe and adds the
memories the thread does not already show to the system message (each with the adjacent turns of its
session when the recipe has a window, less those the thread shows), rendered by cbmemory's context stage as
the recipe says: each with the date of its session, relative dates resolved in place ("yesterday [Sunday,
7 May 2023]"), how to read those dates, and "Today is ...". Once the agent's
turn is over (``after_agent``: once per invoke, not after every tool step) it saves the new user and
assistant turns; message ids are the turn ids, so a retried turn is not stored twice.

Memory never stops the agent (``cbmemory.agent``): when recall cannot run, the model is called without
memories; when a turn cannot be stored as it is, it is cleaned (or left out) and the agent returns. Each
such fault is logged on the ``cbmemory.agent`` logger and handed to ``on_error``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage, SystemMessage
from langgraph.runtime import Runtime

from cbmemory import AgentMemory, ContextConfig, InvalidInputError, Message, Recall, Recipe, get_recipe
from cbmemory.integration import FaultHandler, check_reads

from ._convert import answered, context_value, conversation_turns, latest_user_text, message_text, role_of
from .tools import memory_search_tool

SAVE_ROLES = ("user", "assistant")
RECALLS_KEPT = 1024  # threads whose last recall waits for their turn to be saved


def with_system_text(request: ModelRequest, text: str) -> ModelRequest:
    """The request with ``text`` appended to its system message (created when there is none)."""
    if not text:
        return request
    old = request.system_message
    if old is None:
        return request.override(system_message=SystemMessage(content=text))
    if isinstance(old.content, str):
        content: Any = f"{old.content}\n\n{text}" if old.content else text
    else:  # content blocks
        content = [*old.content, {"type": "text", "text": text}]
    return request.override(system_message=SystemMessage(content=content, id=old.id, name=old.name))


def thread_messages(messages: Sequence[BaseMessage]) -> list[Message]:
    """The thread as the memories it already shows: each message's role, text and id (stored turns keep
    their message id as turn id)."""
    return [Message(role_of(m) or m.type, message_text(m), turn_id=m.id or None) for m in messages]


class CbMemoryMiddleware(AgentMiddleware):
    """Recall before each model call, save after each agent turn.

    - ``recipe``, ``k``: how memories are searched (the memory's default recipe when ``None``); what the
      model reads follows the recipe's context settings (``recipe.context``: date prefix, relative dates
      resolved in place, "Today is ...").
    - ``user_id``, ``session_id``: used when the runtime context does not carry them. The context keys
      are ``user_key`` / ``session_key`` / ``date_key`` (a dict, or an object such as ``CbMemoryContext``).
      Without any session id the LangGraph thread id is used, and without one the UTC date (one session
      per day). ``date_key``: the session's date (an ISO string or datetime) — the "Today is" date and the
      date new turns are stored under; without it, the memory's clock.
    - ``save``: store the new turns after each agent turn (``False`` for a read-only agent); ``save_roles``:
      which turns (``("user",)`` keeps the agent's own answers, right or wrong, out of its memory).
    - ``say_today`` / ``order``: override the recipe's context settings (``None``: the recipe's).
    - ``current_only``: leave out memories a later statement of the user changed; ``as_of``: the memory as
      it was on that date, and "Today is" when the context gives no date (``AgentMemory.search``).
    - ``on_error``: called with a ``cbmemory.agent.MemoryFault`` whenever recall or saving could not be
      done as asked (the agent goes on either way; each fault is also logged as a warning).
    - ``search_tool``: also give the agent ``memory_search_tool`` (as ``search_memory``), searching the same
      user with the same recipe, k and context settings, so the model can look further when the recalled
      memories are not enough. It is in ``self.tools``, which ``create_agent`` registers.
    Memories already in the thread's messages are not repeated in the system message, whether as hits or
    as a hit's adjacent turns (the recipe's ``window``).
    """

    def __init__(
        self,
        memory: AgentMemory,
        *,
        recipe: str | Recipe | None = None,
        k: int | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        user_key: str = "user_id",
        session_key: str = "session_id",
        date_key: str = "session_date",
        save: bool = True,
        save_roles: Sequence[str] = SAVE_ROLES,
        say_today: bool | None = None,
        order: str | None = None,
        current_only: bool = False,
        as_of: datetime | str | None = None,
        search_tool: bool = False,
        on_error: FaultHandler | None = None,
    ):
        super().__init__()
        roles = tuple(save_roles) if not isinstance(save_roles, str) else (save_roles,)
        if not roles or any(r not in SAVE_ROLES for r in roles):
            raise InvalidInputError(f"save_roles must be a non-empty selection of {SAVE_ROLES}, got {save_roles!r}")
        self.memory = memory
        self.recipe = get_recipe(recipe) if recipe is not None else None
        overrides: dict[str, Any] = {}
        if say_today is not None:
            overrides["say_today"] = say_today
        if order is not None:
            overrides["order"] = order
        self._overrides = overrides
        ContextConfig(**overrides)  # a bad order is refused now, not at the first model call
        self.k = k
        self.current_only, self.as_of = current_only, check_reads(current_only, as_of)  # refused now if bad
        self.user_id = user_id
        self.session_id = session_id
        self.user_key = user_key
        self.session_key = session_key
        self.date_key = date_key
        self.save = save
        self.save_roles = roles
        self.on_error = on_error
        self._recalled: OrderedDict[tuple[str, str], Recall] = OrderedDict()  # each thread's last recall
        self.tools = [memory_search_tool(memory, recipe=recipe, k=k, user_key=user_key, date_key=date_key,
                                         user_id=user_id, say_today=say_today, order=order,
                                         current_only=current_only, as_of=as_of,
                                         on_error=on_error)] if search_tool else []

    @property
    def _recipe(self) -> Recipe:
        return self.recipe if self.recipe is not None else self.memory.recipe

    @property
    def context_config(self) -> ContextConfig:
        """What the model reads: the recipe's context settings with this middleware's overrides."""
        return self._recipe.context.with_(**self._overrides)

    # ---------------------------------------------------------------- who, where and when
    def user_of(self, runtime: Runtime[Any] | None) -> str:
        user = context_value(getattr(runtime, "context", None), self.user_key) or self.user_id
        if not user:
            raise InvalidInputError(
                f"CbMemoryMiddleware needs a user id: invoke the agent with context={{'{self.user_key}': ...}} "
                "or pass user_id=... to the middleware"
            )
        return str(user)

    def session_of(self, runtime: Runtime[Any] | None) -> str:
        session = context_value(getattr(runtime, "context", None), self.session_key) or self.session_id
        if not session:
            info = getattr(runtime, "execution_info", None)
            session = getattr(info, "thread_id", None) or self.memory.clock().date().isoformat()
        return str(session)

    def date_of(self, runtime: Runtime[Any] | None) -> datetime | str | None:
        """The session's date from the runtime context, as given (``None`` when it gives none): recall and
        save parse it as ``add_session`` does, and one that does not parse is reported (a ``MemoryFault``)
        and the clock used: a bad date never stops the answer."""
        given = context_value(getattr(runtime, "context", None), self.date_key)
        return given if given else None

    def today_of(self, runtime: Runtime[Any] | None) -> datetime | str:
        return self.date_of(runtime) or self.as_of or self.memory.clock()

    # ---------------------------------------------------------------- recall
    def recall(self, request: ModelRequest, query: str) -> Recall:
        """What the model reads from memory for ``query`` in this request (fails open: see the module). It is
        kept until the agent's turn is saved: a saved turn that only restates it is linked to it."""
        user = self.user_of(request.runtime)
        found = self.memory.recall(query, user, shown=thread_messages(request.messages),
                                   today=self.today_of(request.runtime), recipe=self._recipe, k=self.k,
                                   context=self.context_config, on_error=self.on_error,
                                   current_only=self.current_only, as_of=self.as_of)
        key = (user, self.session_of(request.runtime))
        self._recalled.pop(key, None)
        self._recalled[key] = found
        while len(self._recalled) > RECALLS_KEPT:
            self._recalled.popitem(last=False)
        return found

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        query = latest_user_text(request.messages)
        if query is None:
            return handler(request)
        return handler(with_system_text(request, self.recall(request, query).text))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        query = latest_user_text(request.messages)
        if query is None:
            return await handler(request)
        found = await asyncio.to_thread(self.recall, request, query)
        return await handler(with_system_text(request, found.text))

    def _turns(self, state: AgentState) -> list[Message]:
        # turns stored before (same message id) are skipped by the core
        return [t for t in answered(conversation_turns(state["messages"])) if t.role in self.save_roles]

    # ---------------------------------------------------------------- save
    def after_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        turns = self._turns(state) if self.save else []
        if turns:  # never raises: the model has answered (AgentMemory.save)
            user, session = self.user_of(runtime), self.session_of(runtime)
            self.memory.save(user, session, turns, date=self.date_of(runtime),
                             shown=self._recalled.pop((user, session), None), on_error=self.on_error)
        return None

    async def aafter_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        await asyncio.to_thread(self.after_agent, state, runtime)
        return None


__all__ = ["CbMemoryMiddleware", "thread_messages", "with_system_text"]
