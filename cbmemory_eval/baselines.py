"""Baselines that need no search: the whole conversation (full context) and the evidence sessions only
(oracle). Both are formatted like retrieved memories, so their context tokens and QA scores compare
directly with the recipes'."""

from __future__ import annotations

from cbmemory import Hit, SearchFilters
from cbmemory.store import MemoryStore

from .questions import EvalQuestion

BASELINES = ("oracle", "full_context")


def baseline_hits(name: str, store: MemoryStore, q: EvalQuestion) -> list[Hit]:
    """Every record of the user (``full_context``) or of the gold sessions (``oracle``), in conversation
    order. An oracle for a question without evidence sessions is empty."""
    if name == "full_context":
        records = store.list_records(q.user_id)
    elif name == "oracle":
        if not q.evidence_sessions:
            return []
        records = store.list_records(q.user_id, SearchFilters(session_ids=tuple(q.evidence_sessions)))
    else:
        raise ValueError(f"unknown baseline {name!r}; known: {', '.join(BASELINES)}")
    return [Hit(r, 0.0, recipe=name) for r in records]
