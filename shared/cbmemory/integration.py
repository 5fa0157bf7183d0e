"""What a framework adapter needs beside the root namespace: the core's helpers that ``langchain_cbmemory``,
``llamaindex_cbmemory`` and other integrations (an agent framework's memory, retriever or tool) build on. An
application needs none of them (``import cbmemory`` names what it does); an adapter imports from ``cbmemory``
and from here only (``tests/unit/test_public_namespace.py``; ``docs/adapters.md``).

- the context stage's rendering, for adapters that show a memory in their own objects (a node, a document):
  ``memory_line``, ``passage``, ``resolved_text``, ``inline``, ``format_context``, ``memory_prompt``,
  ``count_tokens``, ``DEFAULT_CONTEXT``, and ``distinct_passages`` (each turn shown once across separate nodes
  or documents);
- turn ids made from a turn's content, for messages without an id: ``plan_turns`` (which turns to store, with
  their ids) and ``stored_copies`` (what it needs of the session, read without the rest of it);
- the agent seam's fault reporting: ``report_fault``, ``FaultHandler``;
- dates (``anchor_label``, ``iso``, ``to_utc``), input checks (``check_id``, ``check_k``, ``check_unicode``,
  ``check_reads``) and their limits (``MAX_K``, ``MAX_QUERY_CHARS``, ``MAX_ANNOTATION_CHARS``), and the raw
  record kinds (``RAW_KINDS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .agent import FaultHandler, report_fault
from .context import (
    DEFAULT_CONTEXT,
    count_tokens,
    distinct_passages,
    format_context,
    inline,
    memory_line,
    memory_prompt,
    passage,
    resolved_text,
)
from .dates import anchor_label, iso, to_utc
from .ingest import RAW_KINDS, record_id
from .ingest.turn_ids import content_key, plan_turns
from .models import MemoryRecord
from .validation import (
    MAX_ANNOTATION_CHARS,
    MAX_K,
    MAX_QUERY_CHARS,
    check_id,
    check_k,
    check_reads,
    check_unicode,
)

if TYPE_CHECKING:
    from .memory import AgentMemory

PROBE = 8  # ids of one turn looked up at once by stored_copies (then 16, 32, ...)


def stored_copies(memory: AgentMemory, user_id: str, session_id: str, turns: Sequence[tuple[str, str]], *,
                  prefix: str) -> list[MemoryRecord]:
    """What :func:`plan_turns` needs of a session to number an append of ``turns`` (``(role, text)`` pairs),
    read without the rest of it: for each distinct turn, the records of the ids its copies get
    (``<prefix><key>:0``, ``:1``, ...), looked up by record id in ranges doubling from ``PROBE`` until one
    holds none. So an append reads the stored copies of what it stores, not the session. A memory that
    stores rounds (``ingest.unit="round"``: a round's record carries its first message's id only) is read
    whole."""
    kind = memory.ingest.unit
    if kind != "turn":
        return list(memory.session_records(user_id, session_id))
    found: list[MemoryRecord] = []
    for key in dict.fromkeys(content_key(role, text) for role, text in turns):
        start, size = 0, PROBE
        while got := memory.store.get_records(user_id, [record_id(user_id, session_id, kind, f"{prefix}{key}:{n}")
                                                        for n in range(start, start + size)]):
            found += got
            start, size = start + size, size * 2
    return found


__all__ = [
    "DEFAULT_CONTEXT", "MAX_ANNOTATION_CHARS", "MAX_K", "MAX_QUERY_CHARS", "RAW_KINDS", "FaultHandler",
    "anchor_label", "check_id", "check_k", "check_reads", "check_unicode", "count_tokens", "distinct_passages",
    "format_context", "inline", "iso", "memory_line", "memory_prompt", "passage", "plan_turns", "report_fault",
    "resolved_text", "stored_copies", "to_utc",
]
