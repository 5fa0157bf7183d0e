"""``cbmemory mcp``: the memory as an MCP server, on stdio or streamable HTTP (``cbmemory.mcp_server``)."""

from __future__ import annotations

import argparse
import os
import sys

from .common import open_memory, say


def host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (an argparse type); ``[::1]:8000`` for an IPv6 host."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT such as 127.0.0.1:8000, got {text!r}")
    return host, int(port)


def cmd_mcp(args: argparse.Namespace) -> int:
    import anyio

    from ..mcp_server import server
    from ..validation import check_id

    if args.user is not None:
        check_id(args.user, "user")
    server._sdk()  # the SDK missing: said before the model loads
    with open_memory(args) as memory:
        if args.http is None:
            anyio.run(server.serve_stdio, memory, args.user)
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - the protocol closed stdout: nothing more goes there
        else:
            host, port = args.http
            if args.user is None and host not in server.LOOPBACK:
                say("warning", f"serving every user's memory on {host}:{port} to whoever can reach it: each call "
                               "names its user_id; see docs/mcp.md for a shared server's isolation")
            say("note", f"MCP on http://{host}:{port}/mcp" + (f" for user {args.user!r}" if args.user else ""))
            anyio.run(server.serve_http, memory, host, port, args.user)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    m = sub.add_parser("mcp", help="serve the memory to MCP hosts (stdio, or streamable HTTP)",
                       description="An MCP server over one memory file: tools remember, recall, search, forget "
                       "and sessions, and a recall prompt (docs/mcp.md). Needs pip install 'cbmemory[mcp]'.")
    m.add_argument("--db", required=True, help="the memory file (created if missing)")
    m.add_argument("--user", help="serve this user only: no tool takes a user_id (default: each call names one)")
    m.add_argument("--recipe", default="default", help="recall and search with this recipe")
    m.add_argument("--http", type=host_port, metavar="HOST:PORT",
                   help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    m.set_defaults(func=cmd_mcp)


__all__ = ["cmd_mcp", "host_port", "register"]
