"""Reliability layer: processes appending to the same session of one SQLite file at once. Real files and
processes; the hash embedder (the store is under test). Each append's positions are checked when it
commits; one that lost the race is built again after the winner's turns, so none is lost or doubled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cbmemory import AgentMemory

from .workers import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
from cbmemory import AgentMemory
from tests.reliability.workers import HashEmbedder
m = AgentMemory.open(sys.argv[1], embedder=HashEmbedder())
print("ready", flush=True)
sys.stdin.readline()
for i in range(int(sys.argv[3])):
    m.add_messages("u", "s", [{"role": "user", "content": "ok"}, {"role": "assistant", "content": sys.argv[2]}])
m.close()
"""


@pytest.mark.process
def test_appends_from_several_processes_keep_every_turn_at_its_own_position(tmp_path):
    path = tmp_path / "race.db"
    with AgentMemory.open(path, embedder=HashEmbedder()) as m:
        m.add_session("u", "s", [{"role": "user", "content": "start"}], date="2023-05-07")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, str(path), f"writer {w}", "12"], cwd=ROOT, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for w in range(3)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:  # released together, so their appends interleave
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        assert p.wait(timeout=120) == 0
    with AgentMemory.open(path, embedder=HashEmbedder()) as m:
        got = m.session_records("u", "s")
    assert len(got) == 1 + 3 * 12 * 2
    assert sorted(r.position for r in got) == list(range(len(got)))
    assert sum(r.text == "ok" for r in got) == 36  # the same text 36 times: 36 turns
    for w in range(3):  # each writer's pair stays together: its reply follows its own "ok"
        mine = [r.position for r in got if r.text == f"writer {w}"]
        assert len(mine) == 12 and all(got[p - 1].text == "ok" for p in mine)
