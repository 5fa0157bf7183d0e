"""``memory_search_tool``: a memory tool that searches the memory of whoever the agent is serving.

    search = memory_search_tool(memory, recipe="hybrid")
    agent = create_agent(model, [search], context_schema=CbMemoryContext)
    agent.invoke({"messages": [...]}, context=CbMemoryContext(user_id="alice"))   # alice's memories only

The user is read from the agent's runtime context (``ToolRuntime.context``: a dict or an object such as
``CbMemoryContext``) on every call, so one agent built once serves many users. The model sees only
``query``; the runtime is injected by LangChain. The results read as the middleware shows memories: cbmemory's
context stage renders them with the recipe's context settings (each with its session's date, relative
dates resolved in place), followed by how to read those dates and "Today is ...".
``create_memory_tool(retriever)`` is the other tool: it searches the one user its retriever was built for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal

from langchain.tools import ToolRuntime
from langchain_core.documents import Document
from langchain_core.tools import BaseTool, StructuredTool

from cbmemory import AgentMemory, InvalidInputError, Recall, Recipe, get_recipe
from cbmemory.integration import FaultHandler, check_reads

from ._convert import context_value, hit_to_document
from .retriever import MEMORY_TOOL_DESCRIPTION

NOTHING_FOUND = "No memories found for this query."
UNAVAILABLE = "Memory could not be searched just now; answer without it."
ResponseFormat = Literal["content", "content_and_artifact"]


def memory_search_tool(
    memory: AgentMemory,
    *,
    recipe: str | Recipe | None = None,
    k: int | None = None,
    user_key: str = "user_id",
    date_key: str = "session_date",
    user_id: str | None = None,
    say_today: bool | None = None,
    order: str | None = None,
    current_only: bool = False,
    as_of: datetime | str | None = None,
    name: str = "search_memory",
    description: str = MEMORY_TOOL_DESCRIPTION,
    response_format: ResponseFormat = "content",
    on_error: FaultHandler | None = None,
) -> BaseTool:
    """A tool that searches the memory of the user named by the runtime context.

    - ``recipe``, ``k``: how memories are searched and shown (the memory's recipe and its k when ``None``);
      ``say_today`` / ``order`` (``chronological`` or ``rank``) override the recipe's context settings.
    - ``user_key``: the context key holding the user id; ``user_id``: the user when the context names none
      (without either, a call fails with ``InvalidInputError``, never falling back to someone else).
    - ``date_key``: the context key holding the session's date (ISO text or datetime): the "Today is" date
      and the question's date for recipes with a future filter; without it, ``as_of``, else the memory's clock.
    - ``current_only``: leave out memories a later statement of the user changed; ``as_of``: the memory as
      it was on that date (``AgentMemory.search``).
    - ``response_format="content_and_artifact"``: the tool message also carries the hits as ``Document``s
      (``ToolMessage.artifact``), with the same metadata as ``CbMemoryRetriever``'s.
    - A search that cannot run answers ``UNAVAILABLE`` rather than failing the agent's step (a long query is
      cut, not refused); ``on_error`` gets the ``cbmemory.agent.MemoryFault``, which is also logged.
    """
    cfg = get_recipe(recipe) if recipe is not None else memory.recipe
    overrides = {field: v for field, v in (("say_today", say_today), ("order", order)) if v is not None}
    context_config = cfg.context.with_(**overrides)  # a bad order fails here, not at the first call
    at = check_reads(current_only, as_of)  # a bad one fails here, not at the first call

    def who_and_when(runtime: ToolRuntime[Any, Any] | None) -> tuple[str, datetime | str | None]:
        context = getattr(runtime, "context", None)
        user = context_value(context, user_key) or user_id
        if not user:
            raise InvalidInputError(
                f"{name} needs a user id: invoke the agent with context={{'{user_key}': ...}} (or "
                f"context=CbMemoryContext(user_id=...)), or build the tool with user_id=...")
        given = context_value(context, date_key)
        return str(user), given or None  # recall parses it (a bad one: the clock, reported); None: as_of, or now

    def reply(found: Recall) -> str | tuple[str, list[Document]]:
        text = found.text if found.hits else UNAVAILABLE if found.fault else NOTHING_FOUND
        if response_format == "content_and_artifact":
            return text, [hit_to_document(h, context_config) for h in found.hits]
        return text

    def search_memory(query: str, runtime: ToolRuntime[Any, Any]) -> str | tuple[str, list[Document]]:
        user, today = who_and_when(runtime)
        return reply(memory.recall(query, user, today=today, recipe=cfg, k=k, context=context_config, on_error=on_error,
                                   current_only=current_only, as_of=at))

    async def asearch_memory(query: str, runtime: ToolRuntime[Any, Any]) -> str | tuple[str, list[Document]]:
        return await asyncio.to_thread(search_memory, query, runtime)

    func: Callable[..., Any] = search_memory
    coroutine: Callable[..., Awaitable[Any]] = asearch_memory
    return StructuredTool.from_function(func=func, coroutine=coroutine, name=name, description=description,
                                        response_format=response_format)


__all__ = ["NOTHING_FOUND", "UNAVAILABLE", "memory_search_tool"]
