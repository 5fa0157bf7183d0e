"""``CbMemoryMiddleware``: cbmemory as the long-term memory of a LangChain v1 agent (``create_agent``).

    agent = create_agent(model, tools, middleware=[CbMemoryMiddleware(memory)])
    agent.invoke({"messages": [("user", "What did I adopt?")]},
                 context={"user_id": "alice", "session_id": "2023-06-01"})

Before every model call it searches the user's memory for their latest message with a recipe and adds the
memories, each with the date of its session, and "Today is ..." to the system message. Once the agent's
turn is over (``after_agent``: once per invoke, not after every tool step) it saves the new user and
assistant turns; message ids are the turn ids, so a retried turn is not stored twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime

from cbmemory.errors import InvalidInputError
from cbmemory.memory import AgentMemory
from cbmemory.retrieval.context import FormattedContext, today_line
from cbmemory.retrieval.recipes import Recipe

from ._convert import context_value, conversation_turns, latest_user_text


def memory_block(context: FormattedContext, today: datetime, *, say_today: bool = True) -> str:
    """The text added to the system message: the dated memories (if any), then what day it is."""
    parts = [context.text] if context.text else []
    if say_today:
        parts.append(today_line(today))
    return "\n".join(parts)


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


class CbMemoryMiddleware(AgentMiddleware):
    """Recall before each model call, save after each agent turn.

    - ``recipe``, ``k``: how memories are searched (the memory's default recipe when ``None``).
    - ``user_id``, ``session_id``: used when the runtime context does not carry them. The context keys
      are ``user_key`` / ``session_key`` (a dict or an object with those attributes). Without any session
      id the LangGraph thread id is used, and without one the UTC date (one session per day).
    - ``save``: store the new turns after each agent turn (``False`` for a read-only agent).
    - ``say_today``: add "Today is ..." so relative dates ("yesterday") resolve against the right day.
    - ``order``: memories ``chronological`` (reads like the conversation) or ``rank`` (best first).
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
        save: bool = True,
        say_today: bool = True,
        order: str = "chronological",
    ):
        super().__init__()
        if order not in ("chronological", "rank"):
            raise InvalidInputError(f"order must be 'chronological' or 'rank', got {order!r}")
        self.memory = memory
        self.recipe = recipe
        self.k = k
        self.user_id = user_id
        self.session_id = session_id
        self.user_key = user_key
        self.session_key = session_key
        self.save = save
        self.say_today = say_today
        self.order = order

    # ---------------------------------------------------------------- who and where
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

    def _search_kwargs(self, today: datetime) -> dict[str, Any]:
        return {"k": self.k, "recipe": self.recipe, "reference_date": today, "order": self.order}

    # ---------------------------------------------------------------- recall
    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        query = latest_user_text(request.messages)
        if query is None:
            return handler(request)
        today = self.memory.clock()
        found = self.memory.context(query, self.user_of(request.runtime), **self._search_kwargs(today))
        return handler(with_system_text(request, memory_block(found, today, say_today=self.say_today)))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        query = latest_user_text(request.messages)
        if query is None:
            return await handler(request)
        today = self.memory.clock()
        found = await self.memory.acontext(query, self.user_of(request.runtime), **self._search_kwargs(today))
        return await handler(with_system_text(request, memory_block(found, today, say_today=self.say_today)))

    # ---------------------------------------------------------------- save
    def after_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        if not self.save:
            return None
        turns = conversation_turns(state["messages"])  # turns stored before (same message id) are skipped
        if turns:
            self.memory.add_messages(self.user_of(runtime), self.session_of(runtime), turns)
        return None

    async def aafter_agent(self, state: AgentState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        if not self.save:
            return None
        turns = conversation_turns(state["messages"])
        if turns:
            await self.memory.aadd_messages(self.user_of(runtime), self.session_of(runtime), turns)
        return None


__all__ = ["CbMemoryMiddleware", "memory_block", "with_system_text"]
