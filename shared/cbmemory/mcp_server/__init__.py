"""The MCP server over one memory (``cbmemory mcp``, docs/mcp.md): ``tools`` holds the tools as data and plain
calls, ``server`` puts them on the MCP SDK (loaded on first use: ``pip install 'cbmemory[mcp]'``)."""

from .tools import SPECS, TOOLS, ToolFault, ToolSpec, call

__all__ = ["SPECS", "TOOLS", "ToolFault", "ToolSpec", "call"]
