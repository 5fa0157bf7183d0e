"""Read time, beside the current-value stage: a later statement of the user's that names a value they gave for the
matter (``named_again``).

A change back (A, then B, then A again) or a fact told again in passing is often told in words of any kind ("my
first morning back as a resident of Lisbon", "the Porto rain again!"): off every kind of fact by its meaning, it
still names a value the user's own claim of the matter named before. The stage reads those claims already
(``cbmemory.claims``, of the question's kind, among the statements the slot's search found); a claim's values are
the write-time rules' (``cbmemory.claims.claim_values``: names, numbers, emails; for diets, commutes and
households their ordinary words; a value in lower case that no rule reads, a pet or a coffee, is not followed).
One full-text search for the values finds the user's statements that name one; of those later than a claim naming
that value, the newest ``VALUED`` the stage does not show already join what it shows.

Cost, for a question the stage answers whose statements claim a value: the values of those claims (the stage passes
only the statements that claim the kind, which it has read already), one full-text search of ``VALUED_DEPTH`` records
and the reading of what those state (both cached, as the stage's own statements are)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache

from ..claims import claim_values, claims
from ..models import MemoryRecord, SearchFilters, conversation_order
from ..store.base import MemoryStore
from ..store.signals import Signal
from .statements import CACHED_CHARS  # a longer statement's values are read again

# Set before any run (experiments/knowledge_updates/README.md, "A value the user gave for the matter, named again"):
VALUED = 1  # one place, as a reserved place adds at most what it shows
VALUED_DEPTH = 64  # records the values' full-text search reads (a value is a rare word: its statements are few)


def _read_values(said: str, kind: str) -> frozenset[str]:
    return frozenset(v for c in claims(said, kind).get(kind, ()) for v in claim_values(c, kind))


_cached_values = lru_cache(maxsize=4096)(_read_values)


def claimed_values(said: str, kind: str) -> frozenset[str]:
    """The values (lower case) that a statement's claims of ``kind`` name (``claims``, ``claim_values``)."""
    return _cached_values(said, kind) if len(said) <= CACHED_CHARS else _read_values(said, kind)


def names_value(said: str, value: str) -> bool:
    """Whether ``said`` names ``value`` (lower case) as a whole sequence of words, in any case."""
    return re.search(rf"(?<![\w@.+-]){re.escape(value)}(?![\w@-])", said, re.I) is not None


def named_again(store: MemoryStore, user_id: str, statements: Sequence[tuple[MemoryRecord, str]], kind: str,
                shown: Collection[str], read: Callable[[MemoryRecord], str], filters: SearchFilters,
                now: datetime | None) -> list[MemoryRecord]:
    """The newest ``VALUED`` of the user's statements that name a value a claim of ``kind`` among ``statements``
    (a record and what it states) named before them, and whose record id is not in ``shown``; ``read``: what a
    found record states for the stage ("" for none of the user's own statements)."""
    first: dict[str, tuple[datetime, str, int]] = {}  # each value's earliest claim
    for r, said in statements:
        for v in claimed_values(said, kind):
            first[v] = min(first.get(v, conversation_order(r)), conversation_order(r))
    if not first:
        return []
    found = store.search_candidates(Signal.BM25, user_id, " ".join(sorted(first)), VALUED_DEPTH,
                                    replace(filters, kinds=("turn",)), now)
    later = []
    for rec in store.read_candidates(found, list(range(len(found)))):
        if rec is None or rec.record_id in shown or not (said := read(rec)):
            continue
        at = conversation_order(rec)
        if any(at > when and names_value(said, v) for v, when in first.items()):
            later.append(rec)
    return sorted(later, key=conversation_order)[-VALUED:] if VALUED > 0 else []


__all__ = ["VALUED", "VALUED_DEPTH", "claimed_values", "named_again", "names_value"]
