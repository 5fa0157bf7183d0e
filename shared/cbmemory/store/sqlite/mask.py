"""Which of a user's in-memory records a search may return: ``filters.admits`` over the columns of
``cache.UserColumns``, as a boolean mask.

Sessions, kinds, times and expiry are compared on the columns. Annotation filters use the user's
annotation pairs (annotation_index.py), read from the file on the first search with an annotation filter
(one JSON parse per distinct annotations text of the records that hold any) and, after that, only for the
records appended since: a filter's cost is then its pairs' lookups and the records they find, however large
the records' annotations are.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from ...models import SearchFilters
from .annotation_index import AnnotationIndex
from .cache import UserColumns
from .sql import ANNOTATIONS_AFTER

_ROWS = 1_024  # records' annotations read at a time


def annotation_pairs(c: sqlite3.Connection, user_id: str, m: UserColumns) -> AnnotationIndex:
    """The user's annotation pairs, indexed for every record of ``m`` (the ones not yet indexed are read now,
    through ``c`` inside the read transaction ``m`` was brought up to date in)."""
    pairs = m.pairs
    if pairs.n < m.n:
        after = int(m.rowids[pairs.n - 1]) if pairs.n else 0
        cur = c.execute(ANNOTATIONS_AFTER, (user_id, after, m.max_rowid))
        while rows := cur.fetchmany(_ROWS):  # in slices: never every record's annotations at once
            at = np.searchsorted(m.rowids[: m.n], [r[0] for r in rows]).tolist()
            pairs.add(zip(at, (r[1] for r in rows), strict=True), at[-1] + 1)
        pairs.add((), m.n)
    return pairs


def column_mask(c: sqlite3.Connection, user_id: str, m: UserColumns, filters: SearchFilters, now: float,
                at: np.ndarray | slice | None = None) -> np.ndarray:
    """Which of the user's records pass ``filters`` at ``now`` (epoch seconds): all of them, or those at
    positions ``at``. Ids are compared as Python strings (object arrays): a numpy string array would drop
    trailing NULs."""
    at = slice(0, m.n) if at is None else at
    mask = m.expires[at] > now
    if filters.session_ids is not None:
        mask &= np.isin(m.sessions[at], np.array(filters.session_ids, dtype=object))
    if filters.kinds is not None:
        mask &= np.isin(m.kinds[at], np.array(filters.kinds, dtype=object))
    for arr, lo, hi in ((m.occurred, filters.occurred_after, filters.occurred_before),
                        (m.ingested, filters.ingested_after, filters.ingested_before)):
        if lo is not None:
            mask &= arr[at] >= lo.timestamp()
        if hi is not None:
            mask &= arr[at] <= hi.timestamp()
    if filters.annotations:
        mask &= annotation_pairs(c, user_id, m).mask(filters.annotations, m.n)[at]
    return mask


__all__ = ["annotation_pairs", "column_mask"]
