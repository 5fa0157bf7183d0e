"""A first-person recall over a memory holding one pasted 64 KiB statement, which the current-value stage parts into
clauses (``text.clauses``) looking for a change told in passing: the slot question's time and each clauses call's
(length, seconds).

- ``spaces``: a long run of spaces. Before f90b3bb the split was quadratic in the run: 338 s on 2 cores; 0.6 s after.
- ``document``: 2,544 short clauses. Before ``CLAUSES_READ`` the first such question embedded them all:
  4.1 s on 2 cores; 0.5 s after.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/hostile_recall.py {spaces,document}
"""

import os
import random
import sys
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


def pasted(shape: str) -> str:
    if shape == "spaces":
        return "Work was hectic today" + " " * (64 * 1024 - 60) + "the weekend is fine now, thanks"
    rng = random.Random(0)
    vocab = "work train late office lunch coffee meeting report garden dog walk park rain sun book film cook".split()
    text = ""
    while len(text) < 60_000:
        text += " ".join(rng.choice(vocab) for _ in range(4)) + ", " + " ".join(rng.choice(vocab) for _ in range(4)) + ". "
    return text


C.clauses = spy
text = pasted(sys.argv[1] if len(sys.argv) > 1 else "spaces")
with AgentMemory.open(os.path.join(tempfile.mkdtemp(), "m.db"), embedder=MiniLMEmbedder()) as m:
    # the oldest statement, off the matter, pasted; twelve newer ones on it, each of one clause, so the stage picks
    # those and looks for a change told in passing down to the oldest
    m.add_session("u", "s0", [{"role": "user", "content": text}], date="2024-01-01")
    for i in range(12):
        m.add_session("u", f"s{i + 1}", [{"role": "user", "content": f"I really love living in Lisbon {i}"}],
                      date=f"2024-02-{i + 1:02d}")
    m.recall("Hello there", "u")  # loads the model
    t0 = time.perf_counter()
    m.recall("Which city do I live in these days?", "u")
    print("slot question s", round(time.perf_counter() - t0, 2), "pasted chars", len(text),
          "clauses calls (chars, s)", calls[-3:], "clauses of the pasted one", len(real(text)))
