"""``CbMemoryLegacyMemory``: cbmemory as a classic ``BaseMemory`` for pre-1.0 chains (needs langchain-classic).

    memory_ = CbMemoryLegacyMemory(memory=memory, user_id="alice", session_id="s2")
    memory_.load_memory_variables({"input": "What is my puppy called?"})
    # {"history": "Relevant memories ...\n[Sunday, 7 May 2023] user: ...\nToday is Thursday, 1 June 2023."}

LangChain 1.x agents take memory as middleware instead: use ``CbMemoryMiddleware`` there.
"""

from __future__ import annotations

import asyncio
from typing import Any

from cbmemory import (
    AgentMemory,
    ContextConfig,
    InvalidInputError,
    Message,
    MissingDependencyError,
    Recall,
    Recipe,
    get_recipe,
)
from cbmemory.integration import FaultHandler

try:
    from langchain_classic.base_memory import BaseMemory
except ImportError as exc:  # the extra is not installed
    raise MissingDependencyError(
        "CbMemoryLegacyMemory needs langchain-classic (LangChain's legacy BaseMemory): "
        "pip install 'cbmemory[langchain-classic]'. For LangChain 1.x agents use CbMemoryMiddleware instead."
    ) from exc

from pydantic import ConfigDict, PrivateAttr


def _only_key(values: dict[str, Any], given: str | None, skip: set[str], what: str) -> str:
    if given is not None:
        return given
    keys = [k for k in values if k not in skip]
    if len(keys) != 1:
        raise InvalidInputError(f"cannot tell which {what} key to store among {sorted(keys)}; set {what}_key")
    return keys[0]


class CbMemoryLegacyMemory(BaseMemory):
    """Loads the memories relevant to the chain's input (dated, plus "Today is ...") into ``memory_key``;
    saves each input/output pair as a user and an assistant turn of ``session_id``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: AgentMemory
    user_id: str
    session_id: str
    recipe: str | Recipe | None = None
    k: int | None = None
    memory_key: str = "history"
    input_key: str | None = None
    output_key: str | None = None
    say_today: bool = True
    on_error: FaultHandler | None = None  # called with each cbmemory.agent.MemoryFault (the chain goes on)
    _recalled: Recall | None = PrivateAttr(default=None)

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    def _query(self, inputs: dict[str, Any]) -> str:
        return str(inputs[_only_key(inputs, self.input_key, {self.memory_key, "stop"}, "input")])

    def _turns(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> list[Message]:
        out_key = _only_key(outputs, self.output_key, set(), "output")
        return [Message("user", self._query(inputs)), Message("assistant", str(outputs[out_key]))]

    @property
    def _context_config(self) -> ContextConfig:
        """The recipe's context settings, with "Today is" switched off when ``say_today`` is False."""
        recipe = get_recipe(self.recipe) if self.recipe is not None else self.memory.recipe
        return recipe.context.with_(say_today=recipe.context.say_today and self.say_today)

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """The memories for the chain's input (fails open: no memories when recall cannot run)."""
        found = self.memory.recall(self._query(inputs), self.user_id, recipe=self.recipe, k=self.k,
                                   context=self._context_config, on_error=self.on_error)
        self._recalled = found  # linked to the turns saved next (an echo of it is not searched)
        return {self.memory_key: found.text}

    async def aload_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        return await asyncio.to_thread(self.load_memory_variables, inputs)

    def save_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        """Store the input and output as a user and an assistant turn (never raises: ``AgentMemory.save``)."""
        self.memory.save(self.user_id, self.session_id, self._turns(inputs, outputs), shown=self._recalled,
                         on_error=self.on_error)

    async def asave_context(self, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
        await asyncio.to_thread(self.save_context, inputs, outputs)

    def clear(self) -> None:
        self.memory.forget(self.user_id, self.session_id)

    async def aclear(self) -> None:
        await self.memory.aforget(self.user_id, self.session_id)


__all__ = ["CbMemoryLegacyMemory"]
