"""``CbMemoryRetriever``: one user's memory as a LangChain retriever, and a tool made from it.

    retriever = CbMemoryRetriever(memory=memory, user_id="alice", recipe="hybrid", k=5)
    docs = retriever.invoke("Where does Alice live?")
    docs[0].metadata  # turn_id, session_id, session_date, date_label, score, role, speaker, recipe, ...

Every search keyword can also be given per call, the same in ``invoke`` and ``ainvoke``:
``retriever.invoke(query, k=3, session_ids=["s1"], occurred_after=datetime(2023, 5, 1))``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, create_retriever_tool
from pydantic import ConfigDict

from cbmemory import AgentMemory, ContextConfig, Recipe, SearchFilters, get_recipe
from cbmemory.integration import FaultHandler, to_utc

from ._convert import hit_to_document

DateLike = datetime | str


class CbMemoryRetriever(BaseRetriever):
    """Searches ``user_id``'s memory with a cbmemory recipe; documents come back best first.

    - ``recipe``: a recipe name or ``Recipe`` (the memory's default when ``None``).
    - ``k``: how many documents (the recipe's k when ``None``).
    - ``session_ids``: only these sessions; ``occurred_after`` / ``occurred_before``: only sessions dated
      in that range (inclusive). ``reference_date``: the question's date, for recipes with a future filter.
    - ``current_only``: leave out memories a later statement of the user changed; ``as_of``: the memory as it
      was on that date (and the question's date when ``reference_date`` is None); ``AgentMemory.search``.
    - A long query is cut, not refused; a search that cannot run returns no documents, logs a warning and
      calls ``on_error`` with the ``cbmemory.agent.MemoryFault`` (the chain answers without memories).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: AgentMemory
    user_id: str
    recipe: str | Recipe | None = None
    k: int | None = None
    session_ids: tuple[str, ...] | None = None
    occurred_after: DateLike | None = None
    occurred_before: DateLike | None = None
    reference_date: DateLike | None = None
    current_only: bool = False
    as_of: DateLike | None = None
    on_error: FaultHandler | None = None

    def _search_args(self, query: str, overrides: dict[str, Any]) -> dict[str, Any]:
        """``AgentMemory.search`` arguments: the retriever's fields, with per-call values taking over."""
        given = {key: value for key, value in overrides.items() if value is not None}
        pick = {name: given.get(name, getattr(self, name)) for name in (
            "user_id", "recipe", "k", "session_ids", "occurred_after", "occurred_before", "reference_date",
            "current_only", "as_of")}
        after, before = pick["occurred_after"], pick["occurred_before"]
        sessions = pick["session_ids"]
        filters = SearchFilters(
            session_ids=(sessions,) if isinstance(sessions, str) else tuple(sessions) if sessions is not None else None,
            occurred_after=to_utc(after) if after is not None else None,
            occurred_before=to_utc(before) if before is not None else None,
        )
        return {"query": query, "user_id": pick["user_id"], "k": pick["k"], "filters": filters,
                "recipe": pick["recipe"], "reference_date": pick["reference_date"],
                "current_only": pick["current_only"], "as_of": pick["as_of"]}

    def _context_config(self, recipe: str | Recipe | None) -> ContextConfig:
        """How the searching recipe says memories are shown to a model (its ``context`` settings)."""
        return (get_recipe(recipe) if recipe is not None else self.memory.recipe).context

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
        recipe: str | Recipe | None = None,
        session_ids: tuple[str, ...] | list[str] | None = None,
        occurred_after: DateLike | None = None,
        occurred_before: DateLike | None = None,
        reference_date: DateLike | None = None,
        current_only: bool | None = None,
        as_of: DateLike | None = None,
    ) -> list[Document]:
        args = self._search_args(query, {
            "k": k, "user_id": user_id, "recipe": recipe, "session_ids": session_ids,
            "occurred_after": occurred_after, "occurred_before": occurred_before, "reference_date": reference_date,
            "current_only": current_only, "as_of": as_of})
        ref = args["reference_date"]
        found = self.memory.recall(  # the query never stops a chain: cut if long; fails open (logged)
            query, args["user_id"], k=args["k"], filters=args["filters"], recipe=args["recipe"],
            today=ref, on_error=self.on_error,  # parsed by recall: a bad date falls back to the clock, reported
            current_only=args["current_only"], as_of=args["as_of"])
        return [hit_to_document(h, self._context_config(args["recipe"])) for h in found.hits]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        user_id: str | None = None,
        recipe: str | Recipe | None = None,
        session_ids: tuple[str, ...] | list[str] | None = None,
        occurred_after: DateLike | None = None,
        occurred_before: DateLike | None = None,
        reference_date: DateLike | None = None,
        current_only: bool | None = None,
        as_of: DateLike | None = None,
    ) -> list[Document]:
        return await asyncio.to_thread(
            self._get_relevant_documents, query, run_manager=run_manager.get_sync(), k=k, user_id=user_id,
            recipe=recipe, session_ids=session_ids, occurred_after=occurred_after, occurred_before=occurred_before,
            reference_date=reference_date, current_only=current_only, as_of=as_of)


MEMORY_TOOL_DESCRIPTION = (
    "Search the user's memory of earlier conversations. Each result starts with the date of the "
    "conversation it comes from: a relative date in it ('yesterday', 'last week') is relative to that date, "
    "and where it could be worked out, the date it means follows it in brackets."
)
DOCUMENT_PROMPT = PromptTemplate.from_template("{memory}")  # the context stage's line


def create_memory_tool(
    retriever: CbMemoryRetriever,
    *,
    name: str = "search_memory",
    description: str = MEMORY_TOOL_DESCRIPTION,
    response_format: Literal["content", "content_and_artifact"] = "content",
) -> BaseTool:
    """A tool (``create_retriever_tool``) that searches the retriever's user and shows each memory with its
    session date: ``[Sunday, 7 May 2023] user: I moved to Lyon yesterday.`` The user is fixed when the
    retriever is built; for an agent serving many users, ``memory_search_tool`` reads it from the runtime
    context on every call."""
    return create_retriever_tool(retriever, name, description, document_prompt=DOCUMENT_PROMPT,
                                 response_format=response_format)


__all__ = ["CbMemoryRetriever", "create_memory_tool"]
