"""What replacing a stored session means, for every backend (a pure rule; no storage here)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from ..models import RAW_KINDS


def leftovers(stored: Iterable[tuple[str, str]], batch_ids: Collection[str], changed: bool) -> list[str]:
    """Ids of a session's ``stored`` ``(record_id, kind)`` records to delete when the session is replaced
    by a batch holding ``batch_ids``: its raw records the batch no longer has and, when the session
    changed at all (``changed``, or a raw record gone), the records derived from its old content."""
    gone = [(rid, kind) for rid, kind in stored if rid not in batch_ids]
    changed = changed or any(kind in RAW_KINDS for _, kind in gone)
    return [rid for rid, kind in gone if changed or kind in RAW_KINDS]
