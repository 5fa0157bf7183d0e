"""Integration layer (mcp): ``cbmemory mcp --http 127.0.0.1:PORT`` as a process, driven by the MCP SDK's
streamable HTTP client (sockets enabled for loopback only): a scoped server answers only its user whatever a
call says; an unscoped one answers the user each call names (what a shared server trusts); a request whose
Host or Origin is not loopback is refused (DNS rebinding)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from .conftest import http_server

pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]


def calls(url: str, *todo):
    async def main():
        async with streamable_http_client(url) as (read, write, _), ClientSession(read, write) as session:
            await session.initialize()
            return [await session.call_tool(name, args) for name, args in todo]

    return asyncio.run(main())


@pytest.mark.process
def test_a_scoped_and_an_unscoped_server_over_http(seeded_db):
    with http_server(seeded_db, "--user", "alice") as url:
        own, other = calls(url, ("recall", {"query": "Where do I live?", "today": "2023-06-01"}),
                           ("recall", {"query": "Where do I live?", "user_id": "bob"}))
        rebinding = [httpx.post(url, headers=h, json={}, timeout=30).status_code for h in (
            {"Host": "evil.example:80", "Content-Type": "application/json", "Accept": "application/json"},
            {"Origin": "http://evil.example", "Content-Type": "application/json", "Accept": "application/json"})]
    assert not own.isError and "Lyon" in own.content[0].text and "Berlin" not in own.content[0].text
    assert other.isError and "user_id" in other.content[0].text
    assert rebinding == [421, 403]
    with http_server(seeded_db) as url:
        bob, nobody = calls(url, ("recall", {"query": "Where do I live?", "user_id": "bob", "today": "2023-06-01"}),
                            ("recall", {"query": "Where do I live?"}))
    assert not bob.isError and "Berlin" in bob.content[0].text and "Lyon" not in bob.content[0].text
    assert nobody.isError
