"""Reliability layer: another process binds the sparse encoder to a store this process is writing (issue 22,
break 2). Real processes on one real SQLite file; the hash embedder for the dense vectors (the binding is
under test) and the real SPLADE-tiny encoder for the sparse ones. The live writer, opened before the
binding, keeps writing valid input without an error, and its later records carry sparse vectors that the
other process's sparse search finds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cbmemory import AgentMemory

from .workers import HashEmbedder

ROOT = Path(__file__).resolve().parents[2]
# process B: opens the file with the sparse recipe, searches once (which binds SPLADE and fills the records
# already there), then on each line of stdin answers a search through the sparse list alone
SCRIPT = """
import sys
from cbmemory import AgentMemory
from cbmemory.retrieval import RetrievalConfig
from cbmemory.recipes import RECIPES, Recipe
from tests.reliability.workers import HashEmbedder
only = Recipe("sparse_only", ingest=RECIPES["default_sparse"].ingest, retrieval=RetrievalConfig(signals=("sparse",), k=3))
m = AgentMemory.open(sys.argv[1], embedder=HashEmbedder(), recipe="default_sparse")
m.search("support group", "alice")
print("bound", m.store.bound_sparse_encoder, len(m.store.users_missing_sparse()), flush=True)
for line in sys.stdin:
    hits = m.search(line.strip(), "alice", recipe=only)
    print(hits[0].record.text if hits else "-", flush=True)
m.close()
"""
CAR = "I bought a new car last week, a red Toyota."
PUPPY = "I also adopted a puppy named Biscuit."


@pytest.mark.process
def test_a_live_writer_keeps_writing_after_another_process_binds_the_sparse_encoder(tmp_path):
    path = tmp_path / "shared.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with AgentMemory.open(path, embedder=HashEmbedder()) as a:  # process A: the default recipe
        a.add_session("alice", "s1", [{"role": "user", "content": "I went to the support group yesterday."}],
                      date="2023-05-08")
        b = subprocess.Popen([sys.executable, "-c", SCRIPT, str(path)], cwd=ROOT, env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            assert b.stdout.readline().split() == ["bound", "splade-tiny-f16-top128", "0"]
            a.add_messages("alice", "s1", [{"role": "user", "content": CAR}])  # valid input: written
            a.add_session("alice", "s2", [{"role": "user", "content": PUPPY}], date="2023-05-09")
            assert a.store.records_without_sparse("alice") == [] and a.store.count("alice") == 3
            answers = []
            for question in ("Which vehicle did Melanie purchase?", "pet dog"):
                b.stdin.write(question + "\n")
                b.stdin.flush()
                answers.append(b.stdout.readline().strip())
            assert answers == [CAR, PUPPY]  # B's sparse search finds A's new records
            b.stdin.close()
            assert b.wait(timeout=120) == 0
        finally:
            if b.poll() is None:
                b.kill()
