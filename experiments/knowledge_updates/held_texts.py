"""Memory a process holds after reading 3,000 distinct pasted texts of 60 KB: the context's render caches
(``memory_line``), the current-value stage's text caches (what a turn states, whether it claims a kind) and the
full-text index's term ids (``lexical.term_id``), measured with ``tracemalloc`` after a collection (the tokenizer's
own tables, ~12 MB, included).

Before: 241 MB held by rendering (each text a key of ``_line``, and ``_cut``'s binary search filling ``count_tokens``
with one-off heads), 173 MB by the stage's caches, and indexing 3,000 hex dumps of 60 KB (a token each) 516 MB (the
term ids' cache and the stemmer's own). After: 16.6 MB, 0 and 0.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/held_texts.py
"""

import gc
import tracemalloc
from datetime import datetime, timezone

from cbmemory.context.render import memory_line
from cbmemory.models import MemoryRecord
from cbmemory.retrieval import current_value as C
from cbmemory.retrieval.statements import statement
from cbmemory.store import lexical

DAY = datetime(2024, 1, 1, tzinfo=timezone.utc)


def record(i: int, text: str) -> MemoryRecord:
    return MemoryRecord(record_id=f"r{i}", user_id="u", session_id="s", kind="turn", text=text, index_text=text,
                        role="user", occurred_at=DAY, ingested_at=DAY, content_hash=f"h{i}", position=i)


def held(read) -> float:
    read(-1, "warm up: load the tokenizer last week")
    gc.collect()
    tracemalloc.start()
    for i in range(3000):
        read(i, f"I moved {i} last week " + "x " * 30_000)
    gc.collect()
    now = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return round(now / 2**20, 1)


print("rendered, MB held:", held(lambda i, t: memory_line(record(i, t))))
print("read by the stage, MB held:", held(lambda i, t: C._marks(statement(t)[0], "home")))
print("a hex dump's one token indexed, MB held:", held(lambda i, t: lexical.term_ids(f"{i:08x}" * 7500)))
