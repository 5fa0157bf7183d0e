"""A first-person recall over a memory holding one 64 KiB statement with a long run of spaces, which the current-value
stage parts into clauses (``text.clauses``) looking for a change told in passing: the recall's time and each clauses
call's (length, seconds). Before f90b3bb the split was quadratic in the run: 338 s on 2 cores; after it 0.6 s.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/spaces_recall.py
"""

import os
import tempfile
import time

import cbmemory.retrieval.current_value as C
from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder

calls: list[tuple[int, float]] = []
real = C.clauses


def spy(text: str) -> list[str]:
    t0 = time.perf_counter()
    out = real(text)
    calls.append((len(text), round(time.perf_counter() - t0, 3)))
    return out


C.clauses = spy
with AgentMemory.open(os.path.join(tempfile.mkdtemp(), "m.db"), embedder=MiniLMEmbedder()) as m:
    # the oldest statement, off the matter, with the run; twelve newer ones on it, each of one clause, so the stage
    # picks those and looks for a change told in passing down to the oldest
    text = "Work was hectic today" + " " * (64 * 1024 - 60) + "the weekend is fine now, thanks"
    m.add_session("u", "s0", [{"role": "user", "content": text}], date="2024-01-01")
    for i in range(12):
        m.add_session("u", f"s{i + 1}", [{"role": "user", "content": f"I really love living in Lisbon {i}"}],
                      date=f"2024-02-{i + 1:02d}")
    m.recall("What is my favourite food?", "u")  # loads the model and the descriptions
    t0 = time.perf_counter()
    m.recall("Which city do I live in these days?", "u")
    print("recall s", round(time.perf_counter() - t0, 2), "message chars", len(text), "clauses calls", calls)
