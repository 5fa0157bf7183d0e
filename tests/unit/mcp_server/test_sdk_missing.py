"""Unit layer (mcp_server): without the MCP SDK, ``cbmemory mcp`` ends in one line naming the extra to install
(exit 1, a ``MissingDependencyError``) before it opens the memory file."""

import sys

from cbmemory.cli import main

NOWHERE = "/nonexistent-cbmemory-dir/memory.db"  # never opened: the SDK is missing first


def test_cbmemory_mcp_without_the_sdk_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mcp", None)  # ``import mcp`` raises ImportError
    monkeypatch.setitem(sys.modules, "mcp.types", None)
    assert main(["mcp", "--db", NOWHERE]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'cbmemory[mcp]'" in err
