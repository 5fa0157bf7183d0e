"""Needle at depth (issue 29, item 4): is a fact inside a long message found (in the hits) and shown (in
what the model reads), on each model path? A fact at 10 %, 50 %, 90 % of messages of 2k, 10k and 50k
characters, three facts per cell, each long message in a memory with four short sessions (some on the
facts' topics) and 20 everyday sessions of 8 turns; the three long messages of a cell share one
memory. Real SQLite file, the offline MiniLM embedder, the default recipe.

    PYTHONPATH=shared:.:packages/llama-index-memory-cbmemory python experiments/long_memories/needle_at_depth.py

Prints one row per (length, depth): found / shown on each path, out of the facts; then the ingest time of
one 50k-character message (median of 3, fresh memory each; ``--no-ingest-time`` skips it).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from cbmemory import AgentMemory
from langchain_cbmemory._convert import hit_metadata
from llamaindex_cbmemory.convert import hits_to_nodes
from tests.support.needles import (
    DEPTHS,
    LENGTHS,
    LONG_SESSION_DATE,
    NEEDLES,
    OTHER_SESSIONS,
    Needle,
    background,
    long_session,
    with_needle,
)

PATHS = ("recall", "context", "langchain", "llamaindex")


def load(memory: AgentMemory, user: str, length: int, depth: float) -> None:
    """20 everyday sessions, 4 short ones on the facts' topics, and one long message per fact."""
    for sid, date, turns in (*background(), *OTHER_SESSIONS):
        memory.add_session(user, sid, [{"role": "user", "content": t} for t in turns], date=date)
    for i, needle in enumerate(NEEDLES):
        memory.add_session(user, long_session(i), [{"role": "user", "content": with_needle(length, depth, needle, i)}],
                           date=LONG_SESSION_DATE)


def probe(memory: AgentMemory, user: str, i: int, needle: Needle) -> dict[str, bool]:
    """found: the long message is a hit of the search; each path: the answer is in what the model reads."""
    q = needle.question
    hits = memory.search(q, user)
    found = memory.recall(q, user)
    shown = memory.recipe.context
    return {
        "found": any(h.record.session_id == long_session(i) for h in hits),
        "recall": needle.answer in found.text,
        "context": needle.answer in memory.context(q, user).text,
        "langchain": any(needle.answer in hit_metadata(h, shown)["memory"] for h in found.hits),
        "llamaindex": any(needle.answer in n.node.get_content(metadata_mode="llm")
                          for n in hits_to_nodes(list(found.hits), shown)),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        memory = AgentMemory.open(str(Path(tmp) / "needles.db"))
        print(f"{'length':>7} {'depth':>5}  found  " + "  ".join(f"{p:>10}" for p in PATHS))
        for n in LENGTHS:
            for d in DEPTHS:
                user = f"u{n}-{int(d * 100)}"
                load(memory, user, n, d)
                rows = [probe(memory, user, i, needle) for i, needle in enumerate(NEEDLES)]
                def count(key: str, rows: list[dict[str, bool]] = rows) -> str:
                    return f"{sum(r[key] for r in rows)}/{len(rows)}"
                print(f"{n:>7} {int(d * 100):>4}%  {count('found'):>5}  "
                      + "  ".join(f"{count(p):>10}" for p in PATHS), flush=True)
        memory.close()
    if "--no-ingest-time" in sys.argv:
        return
    times = []
    for i in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            memory = AgentMemory.open(str(Path(tmp) / "ingest.db"))
            memory.add_session("warm", "w", [{"role": "user", "content": "warm up the model"}], date="2024-01-01")
            text = with_needle(50_000, 0.5, NEEDLES[0], seed=10 + i)
            start = time.perf_counter()
            memory.add_session("u", "s-long", [{"role": "user", "content": text}], date=LONG_SESSION_DATE)
            times.append(time.perf_counter() - start)
            memory.close()
    print(f"ingest of one 50k-character message: median {statistics.median(times):.3f} s "
          f"(runs {', '.join(f'{t:.3f}' for t in times)})")


if __name__ == "__main__":
    sys.exit(main())
