"""Fixtures for the MCP server tests: a memory file seeded with two users' dated sessions (written in-process,
closed before a server opens it), and how to start ``cbmemory mcp`` as a process: over stdio for the SDK's
client, over streamable HTTP on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from cbmemory import AgentMemory

pytest.importorskip("mcp", reason="the MCP server needs the 'mcp' extra")

ROOT = Path(__file__).resolve().parents[3]
CLI = [sys.executable, "-m", "cbmemory.cli"]
SESSIONS = {
    "alice": [("a1", "2023-05-07", [("user", "I moved to Lyon yesterday, the flat is near the river."),
                                    ("assistant", "Congratulations on the move to Lyon!")])],
    "bob": [("b1", "2023-05-07", [("user", "I moved to Berlin last month and adopted a dog named Rex.")])],
}


def _clock() -> datetime:
    return datetime(2023, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def seeded_db(tmp_path, minilm) -> Path:
    """A memory file holding alice's and bob's sessions (closed: the server opens it)."""
    db = tmp_path / "memory.db"
    with AgentMemory.open(db, embedder=minilm, clock=_clock) as memory:
        for user, sessions in SESSIONS.items():
            for sid, date, turns in sessions:
                memory.add_session(user, sid, [{"role": r, "content": t} for r, t in turns], date=date)
    return db


def server_args(db: Path, *extra: str) -> list[str]:
    """The arguments after the interpreter: ``-m cbmemory.cli mcp --db DB ...``."""
    return [*CLI[1:], "mcp", "--db", str(db), *extra]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def http_server(db: Path, *extra: str) -> Iterator[str]:
    """``cbmemory mcp --http 127.0.0.1:PORT`` as a process; yields its URL once it accepts connections."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, *server_args(db, "--http", f"127.0.0.1:{port}", *extra)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"the server exited {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if time.monotonic() > deadline:
                raise AssertionError("the server did not listen within 120 s")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
