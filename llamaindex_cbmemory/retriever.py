"""``CbMemoryRetriever``: one user's cbmemory as a LlamaIndex retriever, and a tool made from it.

    retriever = CbMemoryRetriever(memory, "alice", recipe="hybrid", k=8)   # or similarity_top_k=8
    nodes = await retriever.aretrieve("Where does Alice live?")
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
    tool = make_retriever_tool(retriever)

Each node's text is the stored message (its relative dates resolved in place when the recipe says so);
its metadata holds ``date`` (the session date, readable) and ``speaker``, which the LLM sees, and
``session_id``, ``session_date`` (ISO 8601), ``turn_id``, ``record_id``, ``role``, ``score``, ``recipe`` and
``verbatim``, which it does not. With a recipe that has a window (the default), a node's text is the hit's
passage instead: the adjacent turns of its session and itself, one ``[date] speaker: text`` line each, each
turn in one node only (``convert.hits_to_nodes``); ``context_record_ids`` names the adjacent turns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.tools import RetrieverTool

from cbmemory import AgentMemory, ContextConfig, InvalidInputError, Recipe, SearchFilters, get_recipe
from cbmemory.integration import FaultHandler, check_id, check_k, check_reads, to_utc

from .convert import hits_to_nodes

DateLike = datetime | str

TOOL_NAME = "search_memory"
TOOL_DESCRIPTION = (
    "Search the user's memory of earlier conversations. Input: what to look for, in plain words. Each "
    "result is a message from a past conversation (with the messages around it, when the recipe shows them) "
    "with the date of that conversation: a relative date in it "
    "('yesterday', 'last week') is relative to that date, not to today, and where it could be worked out, "
    "the date it means follows it in brackets."
)


class CbMemoryRetriever(BaseRetriever):
    """Searches one user's memory with a recipe; optionally only some sessions or a time range.

    ``k``: how many memories (None: the recipe's own); ``similarity_top_k`` is the same setting under the
    name LlamaIndex's retrievers give it (pass either; both with different values is an error). ``session_ids``: one session id or several (None: every session). ``occurred_after`` /
    ``occurred_before``: inclusive bounds on the session date. ``reference_date``: the question's date, for
    recipes with the future filter. ``current_only``: leave out memories a later statement of the user
    changed; ``as_of``: the memory as it was on that date (and the question's date when ``reference_date`` is
    None; ``AgentMemory.search``). A long query is cut, not refused; a search that cannot run returns no
    nodes, logs a warning and calls ``on_error`` with the ``cbmemory.agent.MemoryFault`` (the agent answers
    without memories).
    """

    def __init__(
        self,
        memory: AgentMemory,
        user_id: str,
        *,
        recipe: str | Recipe | None = None,
        k: int | None = None,
        similarity_top_k: int | None = None,
        session_ids: str | Sequence[str] | None = None,
        occurred_after: DateLike | None = None,
        occurred_before: DateLike | None = None,
        reference_date: DateLike | None = None,
        current_only: bool = False,
        as_of: DateLike | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        on_error: FaultHandler | None = None,
    ) -> None:
        if not isinstance(memory, AgentMemory):
            raise InvalidInputError(f"memory must be a cbmemory.AgentMemory, got {type(memory).__name__}")
        self.memory = memory
        self.user_id = check_id(user_id, "user_id")
        self.recipe = get_recipe(recipe) if recipe is not None else None
        if k is not None and similarity_top_k is not None and k != similarity_top_k:
            raise InvalidInputError(f"k={k} and similarity_top_k={similarity_top_k} disagree: they are one "
                                    "setting, pass one of them")
        k = k if k is not None else similarity_top_k
        self.k = check_k(k) if k is not None else None
        if isinstance(session_ids, str):
            session_ids = (session_ids,)
        self.filters = SearchFilters(
            session_ids=tuple(check_id(s, "session_id") for s in session_ids) if session_ids is not None else None,
            occurred_after=to_utc(occurred_after) if occurred_after is not None else None,
            occurred_before=to_utc(occurred_before) if occurred_before is not None else None,
        )
        self.reference_date = to_utc(reference_date) if reference_date is not None else None
        self.current_only, self.as_of = current_only, check_reads(current_only, as_of)
        self.on_error = on_error
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def similarity_top_k(self) -> int | None:
        """``k`` under LlamaIndex's name for it."""
        return self.k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int | None) -> None:
        self.k = check_k(value) if value is not None else None

    @property
    def _context_config(self) -> ContextConfig:
        """How the searching recipe shows memories to a model (its ``context`` settings)."""
        return (self.recipe or self.memory.recipe).context

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = self.memory.recall(query_bundle.query_str, self.user_id, k=self.k, filters=self.filters,
                                   recipe=self.recipe, today=self.reference_date, on_error=self.on_error,
                                   current_only=self.current_only, as_of=self.as_of)
        return hits_to_nodes(list(found.hits), self._context_config)  # fails open: no nodes when recall cannot run

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        """Runs the search in a worker thread: the event loop keeps going."""
        return await asyncio.to_thread(self._retrieve, query_bundle)


def make_retriever_tool(retriever: CbMemoryRetriever, *, name: str = TOOL_NAME,
                        description: str = TOOL_DESCRIPTION) -> RetrieverTool:
    """A ``RetrieverTool`` an agent can call to search memory; results show each memory's date."""
    return RetrieverTool.from_defaults(retriever=retriever, name=name, description=description)


__all__ = ["TOOL_DESCRIPTION", "TOOL_NAME", "CbMemoryRetriever", "make_retriever_tool"]
