"""Integration layer (mcp): ``cbmemory mcp`` as the memory of agents that reach it only through MCP: a LangChain
agent (``create_agent``) with the tools ``langchain-mcp-adapters`` loads over stdio, and a LlamaIndex
``FunctionAgent`` with the tools ``llama-index-tools-mcp`` loads over streamable HTTP on 127.0.0.1 (sockets
enabled for loopback only). Both models are scripted: they call ``remember`` and ``recall`` and answer from
the dated memory the tool returned, so what is asserted is what the model saw and what was stored."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from datetime import datetime, timedelta

import pytest

from cbmemory import AgentMemory

from .conftest import http_server, server_args

# a memory line; llama-index-tools-mcp shows the model the repr of the tool's result (its line breaks as "\\n")
# (its session date first, or, for a memory with a relative date as the default layout shows it, last)
_LINE = re.compile(r"(?:\[\w+, (\d{1,2} \w+ \d{4})\] )?user: ([^\n\\]*?)(?: \[said \w+, (\d{1,2} \w+ \d{4})\])?(?=\\n|\n|$)")


def answer_from(memories: str) -> str:
    """What a model would answer to "when did I move?" from the recall block: the day before the dated
    memory that says 'yesterday'."""
    for first, said, last in _LINE.findall(memories):
        day = first or last
        if day and "moved" in said and "yesterday" in said:
            return f"You moved on {datetime.strptime(day, '%d %B %Y') - timedelta(days=1):%-d %B %Y}."
    return "I don't know."


@pytest.mark.process
def test_a_langchain_agent_remembers_and_recalls_through_mcp(seeded_db, minilm):
    pytest.importorskip("langchain_mcp_adapters", reason="needs langchain-mcp-adapters (the dev extra)")
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools

    from notebooks.scripted_chat_model import ScriptedChatModel

    def answer(messages):
        return answer_from(next(m.text for m in reversed(messages) if isinstance(m, ToolMessage)))

    model = ScriptedChatModel(script=[
        AIMessage("", tool_calls=[{"name": "remember", "id": "c1", "args": {
            "content": "I start my new job at the museum on Monday.", "date": "2023-06-01", "session": "a2"}}]),
        AIMessage("", tool_calls=[{"name": "recall", "id": "c2", "args": {
            "query": "When did I move to Lyon?", "today": "2023-06-01"}}]),
        answer])
    client = MultiServerMCPClient({"memory": {"transport": "stdio", "command": sys.executable,
                                              "args": server_args(seeded_db, "--user", "alice"),
                                              "env": os.environ.copy()}})

    async def main():
        async with client.session("memory") as session:
            tools = await load_mcp_tools(session)
            agent = create_agent(model, tools, system_prompt="You are Alice's assistant.")
            result = await agent.ainvoke({"messages": [HumanMessage("When did I move to Lyon?")]})
            return tools, result

    tools, result = asyncio.run(main())
    assert {t.name for t in tools} == {"remember", "recall", "search", "forget", "sessions"}
    seen = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert "stored in session a2 dated 2023-06-01" in seen[0].text
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in seen[1].text
    assert "Today is Thursday, 1 June 2023." in seen[1].text and "Berlin" not in seen[1].text
    assert result["messages"][-1].content == "You moved on 6 May 2023."
    with AgentMemory.open(seeded_db, embedder=minilm) as memory:
        assert [r.text for r in memory.session_records("alice", "a2")] == ["I start my new job at the museum on Monday."]
        assert memory.session_records("bob", "a2") == []


@pytest.mark.process
@pytest.mark.enable_socket
@pytest.mark.allow_hosts(["127.0.0.1"])
@pytest.mark.filterwarnings("ignore:The `__fields__` attribute is deprecated:DeprecationWarning")  # llama-index-tools-mcp
def test_a_llamaindex_agent_remembers_and_recalls_through_mcp_over_http(seeded_db, minilm):
    pytest.importorskip("llama_index.tools.mcp", reason="needs llama-index-tools-mcp (the dev extra)")
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLMWithChatMemoryOfLastCall
    from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

    def generator(messages, **kwargs) -> ChatMessage:
        done = [m for m in messages if m.role == MessageRole.TOOL]
        if len(done) == 0:
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c1", tool_name="remember",
                               tool_kwargs={"user_id": "alice", "content": "I start my new job on Monday.",
                                            "date": "2023-06-01", "session": "a2"})])
        if len(done) == 1:
            return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="c2", tool_name="recall",
                               tool_kwargs={"user_id": "alice", "query": "When did I move?", "today": "2023-06-01"})])
        return ChatMessage(role="assistant", content=answer_from(done[-1].content or ""))

    llm = MockFunctionCallingLLMWithChatMemoryOfLastCall(response_generator=generator)
    with http_server(seeded_db) as url:  # no --user: each call names its user

        async def main():
            tools = await McpToolSpec(client=BasicMCPClient(url)).to_tool_list_async()
            agent = FunctionAgent(llm=llm, tools=tools, system_prompt="You are Alice's assistant.")
            return tools, await agent.run("When did I move?")

        tools, answer = asyncio.run(main())
    assert {t.metadata.name for t in tools} == {"remember", "recall", "search", "forget", "sessions"}
    seen = [m.content or "" for m in llm.last_chat_messages if m.role == MessageRole.TOOL]
    assert "stored in session a2 dated 2023-06-01" in seen[0]
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in seen[1]
    assert "Berlin" not in seen[1]
    assert str(answer) == "You moved on 6 May 2023."
    with AgentMemory.open(seeded_db, embedder=minilm) as memory:
        assert [r.text for r in memory.session_records("alice", "a2")] == ["I start my new job on Monday."]
