"""The MCP server over one memory (``cbmemory mcp``): the tools of ``tools`` on the official SDK's low-level
server, which checks every call's arguments against the tool's JSON schema before it runs; a ``recall``
prompt (the recall block, for hosts that insert prompts); with a user scope, a ``memory://sessions``
resource. Served on stdio, or on streamable HTTP for a shared server.

The SDK (``pip install 'cbmemory[mcp]'``) loads when a server is built, never at import. Each call runs the
synchronous memory in a worker thread; a fault is an MCP tool error (``isError``), never the end of the
server.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

from ..errors import MissingDependencyError
from .tools import SPECS, TOOLS, Memory, ToolFault, call, recall_prompt, user_of

NAME = "cbmemory"
SESSIONS_URI = "memory://sessions"
INSTRUCTIONS = ("Long-term memory of past conversations, with dates. Call `recall` with the user's question "
                "before answering anything that may depend on what was said before; call `remember` with each "
                "message or fact worth keeping (with the date it was said, when not today).")


def _sdk() -> Any:
    try:
        import mcp.types
        from mcp.server.lowlevel import Server
        from mcp.server.lowlevel.helper_types import ReadResourceContents
    except ImportError as exc:
        raise MissingDependencyError(
            f"the MCP server needs the MCP SDK: pip install 'cbmemory[mcp]' ({exc})") from exc
    return mcp.types, Server, ReadResourceContents


LOOPBACK = ("127.0.0.1", "localhost", "::1")  # hosts a server may listen on without serving the network

def build_server(memory: Memory, user: str | None = None) -> Any:
    """The SDK's low-level ``Server`` serving ``memory``: every tool call for ``user`` when given (no tool
    then has a ``user_id`` argument), else for the call's required ``user_id``."""
    types, Server, ReadResourceContents = _sdk()
    server = Server(NAME, instructions=INSTRUCTIONS)
    scoped = user is not None

    @server.list_tools()
    async def list_tools() -> list[Any]:
        return [types.Tool(name=t.name, description=t.description, inputSchema=t.schema(scoped),
                           annotations=types.ToolAnnotations(readOnlyHint=t.read_only, destructiveHint=t.destructive,
                                                             idempotentHint=t.name != "remember",
                                                             openWorldHint=False))
                for t in TOOLS]

    @server.call_tool()  # the arguments are checked against the tool's schema before this runs
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        try:
            text, data = await anyio.to_thread.run_sync(call, memory, name, arguments, user)
        except ToolFault as fault:
            return types.CallToolResult(content=[types.TextContent(type="text", text=str(fault))], isError=True)
        content = [types.TextContent(type="text", text=text)]
        return (content, data) if data is not None else content

    @server.list_prompts()
    async def list_prompts() -> list[Any]:
        args = [types.PromptArgument(name="query", description="the question or topic", required=True),
                types.PromptArgument(name="today", description="the day it is asked (ISO 8601)", required=False)]
        if not scoped:
            args.insert(0, types.PromptArgument(name="user_id", description="whose memory", required=True))
        return [types.Prompt(name="recall", description="What memory holds for a question, as a block to put "
                             "before it: dated memories, resolved dates and 'Today is ...'.", arguments=args)]

    @server.get_prompt()
    async def get_prompt(name: str, arguments: dict[str, str] | None) -> Any:
        args = dict(arguments or {})
        if name != "recall":
            raise ValueError(f"no prompt {name!r}; the prompt is 'recall'")
        unknown = set(args) - {"query", "today", "user_id"}
        if unknown:
            raise ValueError(f"the recall prompt takes no argument {sorted(unknown)}")
        try:
            who = user_of(args, user)
            text = await anyio.to_thread.run_sync(recall_prompt, memory, args.get("query", ""), who,
                                                  args.get("today"))
        except (ToolFault, ValueError) as exc:  # InvalidInputError is a ValueError
            raise ValueError(str(exc)) from None
        return types.GetPromptResult(description="memories for the question", messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

    @server.list_resources()
    async def list_resources() -> list[Any]:
        if not scoped:  # which users there are is nobody's business on a shared server
            return []
        return [types.Resource(uri=SESSIONS_URI, name="sessions", mimeType="application/json",
                               description="the conversations memory holds, with their dates")]

    @server.read_resource()
    async def read_resource(uri: Any) -> Any:
        if not scoped or str(uri) != SESSIONS_URI:
            raise ValueError(f"no resource {uri}")
        try:
            _, data = await anyio.to_thread.run_sync(call, memory, "sessions", {}, user)
        except ToolFault as fault:
            raise ValueError(str(fault)) from None
        return [ReadResourceContents(json.dumps(data["sessions"], ensure_ascii=False), "application/json")]

    return server


async def serve_stdio(memory: Memory, user: str | None = None) -> None:
    """Serve on stdin/stdout until the client closes them."""
    from mcp.server.stdio import stdio_server

    server = build_server(memory, user)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(memory: Memory, user: str | None = None, host: str = "127.0.0.1") -> Any:
    """The Starlette app serving MCP on streamable HTTP at ``/mcp`` (stateless: each request stands alone).
    On a loopback host, requests whose Host or Origin header is not loopback are refused (DNS rebinding)."""
    import contextlib

    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    security = None
    if host in LOOPBACK:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
    manager = StreamableHTTPSessionManager(app=build_server(memory, user), stateless=True,
                                           security_settings=security)

    class Endpoint:  # an ASGI app, not a function: Starlette passes it the request as it came (no redirect)
        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await manager.handle_request(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    return Starlette(routes=[Route("/mcp", endpoint=Endpoint())], lifespan=lifespan)


async def serve_http(memory: Memory, host: str, port: int, user: str | None = None) -> None:
    """Serve on streamable HTTP at ``http://HOST:PORT/mcp`` until stopped."""
    import uvicorn

    config = uvicorn.Config(http_app(memory, user, host), host=host, port=port, log_level="warning")
    await uvicorn.Server(config).serve()


__all__ = ["INSTRUCTIONS", "NAME", "SESSIONS_URI", "SPECS", "build_server", "http_app", "serve_http", "serve_stdio"]
