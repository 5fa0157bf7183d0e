"""Integration layer (mcp): ``cbmemory mcp`` as a process, driven by the MCP SDK's own client
(``ClientSession`` over ``stdio_client``) as an MCP host drives it: the tools it lists, ``remember`` and
``recall`` with dates (``recall`` returns exactly ``AgentMemory.recall(...).text``), the recall prompt and the
sessions resource, ``--user`` scoping no argument escapes, and hostile arguments answered as tool errors by a
server that goes on."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import datetime, timezone

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from cbmemory import AgentMemory
from cbmemory.store import SQLiteStore

from .conftest import server_args

TOOLS = {"remember", "recall", "search", "forget", "sessions"}


def with_client(db, *extra, body):
    """Run ``body(session)`` against a fresh ``cbmemory mcp --db DB ...`` process; return what it returns."""
    params = StdioServerParameters(command=sys.executable, args=server_args(db, *extra), env=os.environ.copy())

    async def main():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)

    return asyncio.run(main())


def text(result) -> str:
    return "\n".join(c.text for c in result.content)


@pytest.mark.process
def test_a_client_lists_the_tools_remembers_and_recalls_with_dates(seeded_db, minilm):
    async def body(s):
        tools = (await s.list_tools()).tools
        out = {"tools": {t.name: t for t in tools}}
        out["remember"] = await s.call_tool("remember", {"content": "Biscuit has a vet appointment next Friday.",
                                                         "date": "2023-05-20", "session": "a2"})
        out["into_a1"] = await s.call_tool("remember", {"content": "The flat has a balcony.", "session": "a1",
                                                        "date": "2023-06-01"})
        out["recall"] = await s.call_tool("recall", {"query": "When did I move to Lyon?", "today": "2023-06-01"})
        out["search"] = await s.call_tool("search", {"query": "vet appointment", "k": 2})
        out["prompt"] = await s.get_prompt("recall", {"query": "When did I move to Lyon?", "today": "2023-06-01"})
        out["resources"] = (await s.list_resources()).resources
        out["sessions"] = await s.read_resource("memory://sessions")
        return out

    got = with_client(seeded_db, "--user", "alice", body=body)
    assert set(got["tools"]) == TOOLS
    for tool in got["tools"].values():
        assert tool.description and tool.inputSchema["additionalProperties"] is False
        assert "user_id" not in tool.inputSchema["properties"]  # scoped: no argument names a user
    assert got["tools"]["forget"].annotations.destructiveHint is True
    assert not got["remember"].isError and "dated 2023-05-20" in text(got["remember"])
    assert "dated 2023-05-07" in text(got["into_a1"]) and "a date applies to a new session" in text(got["into_a1"])
    recalled = text(got["recall"])
    assert not got["recall"].isError
    assert "user: I moved to Lyon yesterday [Saturday, 6 May 2023], the flat is near the river. [said Sunday, 7 May 2023]" in recalled
    assert "Today is Thursday, 1 June 2023." in recalled
    assert "Berlin" not in recalled  # bob's memory stays bob's
    hits = got["search"].structuredContent["hits"]
    assert hits[0]["text"] == "Biscuit has a vet appointment next Friday." and hits[0]["date"].startswith("2023-05-20")
    assert got["prompt"].messages[0].content.text == recalled
    assert [str(r.uri) for r in got["resources"]] == ["memory://sessions"]
    assert [s["session"] for s in json.loads(got["sessions"].contents[0].text)] == ["a1", "a2"]
    # exactly what the memory itself recalls for the question
    with AgentMemory.open(seeded_db, embedder=minilm) as memory:
        mine = memory.recall("When did I move to Lyon?", "alice", today=datetime(2023, 6, 1, tzinfo=timezone.utc))
        assert recalled == mine.text
        stored = memory.session_records("alice", "a2")
        assert [(r.text, r.occurred_at.date().isoformat()) for r in stored] == [
            ("Biscuit has a vet appointment next Friday.", "2023-05-20")]


HOSTILE = [
    ("recall", {"query": "Berlin", "user_id": "bob"}),  # another user's id under --user
    ("search", {"query": "Berlin", "user_id": "bob"}),
    ("forget", {"confirm": True, "user_id": "bob"}),
    ("sessions", {"user_id": "bob"}),
    ("remember", {"content": "I live in Berlin now.", "user_id": "bob"}),
    ("search", {"query": "vet", "k": "3"}),  # types
    ("search", {"query": "vet", "k": 10**12}),
    ("search", {"query": "vet", "k": 0}),
    ("search", {"query": "vet", "k": True}),
    ("recall", {"query": None}),
    ("recall", {"query": ["a", "b"]}),
    ("recall", {}),
    ("recall", {"query": "x" * 100_001}),  # sizes
    ("remember", {"content": "y" * 100_001}),
    ("remember", {"content": ""}),
    ("remember", {"content": "   "}),
    ("remember", {"content": "hi", "session": "s" * 300}),  # ids
    ("remember", {"content": "hi", "session": "a\x00b"}),
    ("remember", {"content": "hi", "role": "root"}),
    ("remember", {"content": "hi", "date": "the day after never"}),
    ("search", {"query": "vet", "after": "not a date"}),
    ("search", {"query": "vet", "sessions": "a1"}),
    ("forget", {}),  # no confirmation
    ("forget", {"confirm": False}),
    ("forget", {"confirm": "yes"}),
    ("drop_tables", {}),  # no such tool
]


@pytest.mark.process
def test_hostile_arguments_are_tool_errors_and_the_server_goes_on(seeded_db):
    async def body(s):
        answers = [await s.call_tool(name, args) for name, args in HOSTILE]
        sneaky = await s.call_tool("search", {"query": "Berlin dog Rex", "sessions": ["b1"]})
        # bob's words, and one alice shares ("moved": past the relevance floor), so alice has hits to show
        broad = await s.call_tool("search", {"query": "moved to Berlin, dog Rex", "k": 50})
        listed = await s.call_tool("sessions", {})
        still = await s.call_tool("recall", {"query": "Where do I live?", "today": "2023-06-01"})
        return answers, sneaky, broad, listed, still

    answers, sneaky, broad, listed, still = with_client(seeded_db, "--user", "alice", body=body)
    for (name, args), answer in zip(HOSTILE, answers, strict=True):
        assert answer.isError, (name, str(args)[:80], text(answer)[:200])
    assert sneaky.structuredContent["hits"] == []  # bob's session id names nothing of alice's
    assert broad.structuredContent["hits"] and all(h["session"] == "a1" for h in broad.structuredContent["hits"])
    assert [s["session"] for s in listed.structuredContent["sessions"]] == ["a1"]
    assert not still.isError and "Lyon" in text(still)
    with SQLiteStore(seeded_db) as store:  # nothing of bob's was read, written or erased; nothing half-stored
        assert [r.text for r in store.list_records("bob")] == [
            "I moved to Berlin last month and adopted a dog named Rex."]
        assert store.count("alice") == 2


@pytest.mark.process
def test_without_user_every_call_names_its_user(seeded_db):
    async def body(s):
        tools = (await s.list_tools()).tools
        missing = await s.call_tool("recall", {"query": "Where do I live?"})
        empty = await s.call_tool("recall", {"query": "Where do I live?", "user_id": ""})
        long = await s.call_tool("recall", {"query": "Where do I live?", "user_id": "u" * 300})
        bob = await s.call_tool("recall", {"query": "Where do I live?", "user_id": "bob", "today": "2023-06-01"})
        resources = (await s.list_resources()).resources
        return tools, missing, empty, long, bob, resources

    tools, missing, empty, long, bob, resources = with_client(seeded_db, body=body)
    assert all(t.inputSchema["required"][0] == "user_id" for t in tools)
    assert missing.isError and empty.isError and long.isError
    assert not bob.isError and "Berlin" in text(bob) and "Lyon" not in text(bob)
    assert resources == []  # a shared server lists no user's sessions to whoever asks
