"""``ScriptedChatModel``: an offline, tool-calling fake chat model for the notebooks and the tests.

It lives beside the notebooks, not in ``langchain_cbmemory``, so the wheel does not ship a test fake. A
notebook imports it as ``from scripted_chat_model import ScriptedChatModel`` (Jupyter starts the kernel in
the notebook's folder); the tests import ``notebooks.scripted_chat_model``.

langchain_core's fake chat models cannot ``bind_tools``, so ``create_agent`` refuses them. This one can,
replies from a script (messages, strings or functions of the prompt) and records every prompt it saw::

    model = ScriptedChatModel(script=[AIMessage("", tool_calls=[...]), "Done."])
    model.seen[0]  # the messages of the first call, system message included
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

Reply = AIMessage | str | Callable[[list[BaseMessage]], AIMessage | str]


class ScriptedChatModel(BaseChatModel):
    """Answers call i with ``script[i]``; once the script is used up, with ``respond(messages)``.

    A reply is an ``AIMessage`` (tool calls allowed), a string, or a function of the prompt returning
    either. ``seen`` holds each prompt; ``tools`` the tools last bound.
    """

    script: list[Any] = Field(default_factory=list)  # Reply items (Any: pydantic must not coerce them)
    respond: Any = None  # Callable[[list[BaseMessage]], AIMessage | str] | None
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    tools: list[Any] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "cbmemory-scripted"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
                   ) -> ScriptedChatModel:
        self.tools = list(tools)
        return self

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        i = len(self.seen)
        self.seen.append(list(messages))
        if i < len(self.script):
            reply = self.script[i]
        elif self.respond is not None:
            reply = self.respond
        else:
            raise IndexError(f"ScriptedChatModel was called {i + 1} times but has {len(self.script)} replies")
        if callable(reply):
            reply = reply(list(messages))
        if isinstance(reply, str):
            return AIMessage(content=reply)
        return reply.model_copy(deep=True)  # the agent's reducer gives messages ids; never share one

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])


__all__ = ["ScriptedChatModel"]
