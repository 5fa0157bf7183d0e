"""How a context shows a memory that a later one changed (``Hit.changed``, set at read time from the write-time
links ``MemoryRecord.supersedes``): its line ends with a mark that says so and when, and one guidance line under
the header says that later statements on the same matter hold. The line's own date stays first (a small reader
copies the first date on a line); the mark is in square brackets, which only cbmemory writes in a context."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from ..dates import anchor_label
from ..models import Hit

CHANGED_GUIDE = ("Memories marked [changed ...] were replaced by a later statement on the same matter: "
                 "the latest statement holds now; the older ones are history.")


def changed_mark(when: datetime) -> str:
    return f" [changed on {anchor_label(when)}: no longer current]"


def changed_dates(hits: Sequence[Hit]) -> Mapping[str, datetime]:
    """Per record id shown by ``hits``, when a later memory changed it (the earliest date the hits carry)."""
    out: dict[str, datetime] = {}
    for h in hits:
        for rid, when in h.changed.items():
            out[rid] = min(when, out.get(rid, when))
    return out
