"""The candidates of a search's signals united into one pool of arrays, fused and rescored there; records
are read only for the few it returns.

A ``Pool`` has one row per record any signal found: its columns (``Candidates``: key, session, kind,
position, date, speaker), each signal's raw score and 1-based rank (``nan`` / 0 where that signal did not
find it) and the fused score. Fusion is a function of the signals' scores and ranks (``fused``); a boost
adds a list of its own (its rows score 1, or their fused score under RRF) and fuses again. The order is the
fused score, then the best rank in any list, then the record id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..models import Hit, MemoryRecord, frozen_mapping
from ..store.base import MemoryStore
from ..store.candidates import Candidates
from .stages import Fusion


def _concat(lists: Sequence[Candidates], field: str) -> np.ndarray:
    parts = [getattr(c, field) for c in lists]
    if field in ("keys", "ids", "sessions", "kinds", "speakers") and any(p.dtype == object for p in parts):
        parts = [p.astype(object) for p in parts]
    return np.concatenate(parts)


@dataclass(frozen=True, eq=False)
class Pool:
    """Rows in order, best first. ``columns``: each row's columns (its ``scores`` are the fused scores);
    ``signals`` / ``ranks``: each list's raw score / rank per row; ``lists`` and ``at``: where each row's
    record can be read (the list it came from first, and its index there)."""

    columns: Candidates
    signals: Mapping[str, np.ndarray]
    ranks: Mapping[str, np.ndarray]
    lists: tuple[Candidates, ...]
    source: np.ndarray  # index into ``lists`` per row
    at: np.ndarray  # index within that list per row

    @property
    def scores(self) -> np.ndarray:
        return self.columns.scores

    def __len__(self) -> int:
        return len(self.columns)

    def take(self, idx: np.ndarray) -> Pool:
        return Pool(self.columns.take(idx), {s: v[idx] for s, v in self.signals.items()},
                    {s: v[idx] for s, v in self.ranks.items()}, self.lists, self.source[idx], self.at[idx])

    def best_rank(self) -> np.ndarray:
        """Each row's best rank in any list (``inf`` for none)."""
        ranks = np.stack([np.where(r > 0, r, np.inf) for r in self.ranks.values()]) if self.ranks else None
        return np.full(len(self), np.inf) if ranks is None else ranks.min(axis=0)

    def records(self, store: MemoryStore | None, rows: Sequence[int]) -> list[MemoryRecord | None]:
        """The records of ``rows`` (``None`` for one deleted since the search): those the lists hold, the
        others read from ``store`` in one read (by the columns' keys, which are the lists' own)."""
        out: list[MemoryRecord | None] = [None] * len(rows)
        unread: list[int] = []
        for i, row in enumerate(rows):
            held = self.lists[int(self.source[row])].records
            if held is not None:
                out[i] = held[int(self.at[row])]
            else:
                unread.append(i)
        if unread:
            if store is None:
                raise ValueError("these candidates hold no records: give the store they came from")
            read = store.read_candidates(self.columns, [int(rows[i]) for i in unread])
            for i, record in zip(unread, read, strict=True):
                out[i] = record
        return out

    def hit(self, row: int, record: MemoryRecord, score: float | None = None,
            extra: Mapping[str, float] | None = None) -> Hit:
        """The hit of ``row``: its record, its fused score (or ``score``), each list's score and rank that
        found it, and the ``extra`` terms as signals."""
        signals = {s: float(v[row]) for s, v in self.signals.items() if self.ranks[s][row] > 0}
        ranks = {s: int(v[row]) for s, v in self.ranks.items() if v[row] > 0}
        return Hit(record, float(self.scores[row]) if score is None else score,
                   frozen_mapping({**signals, **(extra or {})}), frozen_mapping(ranks))

    def hits(self, store: MemoryStore | None, rows: Sequence[int]) -> list[Hit]:
        """Hits of ``rows``, in that order (a record deleted since the search is left out)."""
        return [self.hit(row, record) for row, record in zip(rows, self.records(store, rows), strict=True)
                if record is not None]


def unite(lists: Mapping[str, Candidates]) -> Pool:
    """One row per record any list holds (columns from the first list holding it), with every list's
    scores and ranks; unordered and unscored (``fused`` scores and orders it)."""
    names = [n for n, c in lists.items() if len(c)]
    found = tuple(lists[n] for n in names)
    if not found:
        empty = Candidates.empty("")
        none = np.empty(0, np.int64)
        return Pool(empty, {n: np.empty(0) for n in lists}, {n: none for n in lists}, (empty,), none, none)
    keys = _concat(found, "keys")
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    source = np.repeat(np.arange(len(found)), [len(c) for c in found])
    at = np.concatenate([np.arange(len(c)) for c in found])
    ids = _concat(found, "ids")[first]
    columns = Candidates(found[0].user_id, uniq, ids, np.zeros(uniq.size), _concat(found, "sessions")[first],
                         _concat(found, "kinds")[first], _concat(found, "positions")[first],
                         _concat(found, "occurred")[first], _concat(found, "speakers")[first],
                         _concat(found, "echoes")[first])
    signals: dict[str, np.ndarray] = {}
    ranks: dict[str, np.ndarray] = {}
    offset = 0
    for name in lists:
        signals[name] = np.full(uniq.size, np.nan)
        ranks[name] = np.zeros(uniq.size, np.int64)
        if name in names:
            c = lists[name]
            rows = inverse[offset: offset + len(c)]
            signals[name][rows] = c.scores
            ranks[name][rows] = np.arange(1, len(c) + 1)
            offset += len(c)
    return Pool(columns, signals, ranks, found, source[first], at[first])


def fused(pool: Pool, weights: Mapping[str, float], method: Fusion, rrf_k: int, *, one_as_is: bool = True
          ) -> Pool:
    """``pool`` scored and ordered by its lists: one list's own scores (``one_as_is``); else fused by reciprocal rank
    (sum of weight / (rrf_k + rank)) or by weighted score (each list min-max normalised to [0, 1] over its
    rows, a list of equal scores counting 1, summed with the weights)."""
    present = [s for s, r in pool.ranks.items() if (r > 0).any()]
    if len(pool.ranks) == 1 and one_as_is:
        total = np.nan_to_num(next(iter(pool.signals.values())), nan=0.0)
    else:
        total = np.zeros(len(pool))
        for s in present:
            w, inside = weights.get(s, 1.0), pool.ranks[s] > 0
            if method is Fusion.RRF:
                total[inside] += w / (rrf_k + pool.ranks[s][inside])
            else:
                v = pool.signals[s][inside]
                lo, hi = v.min(), v.max()
                total[inside] += w * ((v - lo) / (hi - lo) if hi > lo else 1.0)
    scored = replace(pool, columns=replace(pool.columns, scores=total))
    return scored.take(ranked_order(total, scored.best_rank(), scored.columns.ids))


def ranked_order(scores: np.ndarray, best_rank: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Rows by score (higher first), then best rank, then record id (compared only where the first two tie)."""
    order = np.lexsort((best_rank, -scores))
    s, r = scores[order], best_rank[order]
    tied = (s[1:] == s[:-1]) & (r[1:] == r[:-1])
    if tied.any():  # only the rows of a tie are compared by id: their places among themselves suffice
        members = order[np.concatenate([tied, [False]]) | np.concatenate([[False], tied])]
        rank = np.zeros(ids.size, np.int64)
        rank[members] = _id_rank(ids[members])
        order = np.lexsort((rank, best_rank, -scores))
    return order


def _id_rank(ids: np.ndarray) -> np.ndarray:
    """Each row's place among ``ids`` in order (Python's string order: sorting the list is about twice as
    fast as numpy's sort of an object array)."""
    keys = ids.tolist()
    rank = np.empty(len(keys), np.int64)
    rank[sorted(range(len(keys)), key=keys.__getitem__)] = np.arange(len(keys))
    return rank


def with_list(pool: Pool, name: str, rows: np.ndarray, method: Fusion) -> Pool:
    """``pool`` (ordered) with one more list, ``rows`` in pool order: each scores 1 there (weighted fusion:
    the list's weight is added to it) or, under RRF, its fused score at its rank in the list."""
    score = np.full(len(pool), np.nan)
    rank = np.zeros(len(pool), np.int64)
    score[rows] = 1.0 if method is Fusion.WEIGHTED else pool.scores[rows]
    rank[rows] = np.arange(1, rows.size + 1)
    return replace(pool, signals={**pool.signals, name: score}, ranks={**pool.ranks, name: rank})


__all__ = ["Pool", "fused", "ranked_order", "unite", "with_list"]
