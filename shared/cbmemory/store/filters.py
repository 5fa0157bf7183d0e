"""What ``SearchFilters`` mean, written once: :func:`admits`. Pure; no storage here.

Every backend translates filters into its own language (SQLite SQL and numpy masks, Couchbase Search
queries and SQL++); each translation must admit exactly the records :func:`admits` admits, and one
property test (tests/contract/test_filter_semantics.py) checks every one of them against it. User scoping
is not a filter: every store method takes exactly one ``user_id`` and checks it separately.

Times are compared as instants (aware UTC datetimes, microsecond precision). Stores that keep epoch
seconds as float64 (SQLite, the SQL++ ``*_ts`` fields) agree exactly between years 1698 and 2242, where a
float64 step is under a microsecond; outside that window two instants less than one step apart (at most
about 30 microseconds, near year 9999) compare equal there.
"""

from __future__ import annotations

from datetime import datetime

from ..models import MemoryRecord, SearchFilters


def is_live(record: MemoryRecord, now: datetime) -> bool:
    """Not expired: no ``expires_at``, or one after ``now`` (a record expiring at ``now`` is gone)."""
    return record.expires_at is None or record.expires_at > now


def admits_nothing(filters: SearchFilters) -> bool:
    """True when the filters admit no record at all (an empty tuple of sessions or of kinds)."""
    return filters.session_ids == () or filters.kinds == ()


def admits(record: MemoryRecord, filters: SearchFilters, now: datetime) -> bool:
    """Whether a search at ``now`` with ``filters`` may return ``record`` (of the queried user).

    - live: ``expires_at`` is None or after ``now``;
    - ``session_ids`` / ``kinds``: ``None`` admits any; a tuple admits its members only (an empty one,
      nothing); values are matched exactly (case, spaces and every character count);
    - time bounds are inclusive: ``occurred_after <= occurred_at <= occurred_before``, likewise for
      ``ingested_at``; an absent bound does not restrict;
    - ``annotations``: every pair must be among the record's annotations, exactly.
    """
    if not is_live(record, now):
        return False
    if filters.session_ids is not None and record.session_id not in filters.session_ids:
        return False
    if filters.kinds is not None and record.kind not in filters.kinds:
        return False
    for value, lo, hi in ((record.occurred_at, filters.occurred_after, filters.occurred_before),
                          (record.ingested_at, filters.ingested_after, filters.ingested_before)):
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return False
    return all(record.annotations.get(k) == v for k, v in filters.annotations.items())
