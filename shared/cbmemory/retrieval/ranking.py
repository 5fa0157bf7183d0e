"""The candidates in their final order before any record is read: ``Ranking``. Retrieval picks which of
them it returns (the first n, or the first k that no earlier pick's window shows) from their places alone,
and reads only the records of those."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..models import Hit, frozen_mapping, place_kind
from ..store.base import MemoryStore
from ..store.candidates import Candidates
from .pool import Pool

Place = tuple[str, str, int]  # (session_id, kind, position)


def apart(places: Iterator[Place], k: int, window: int) -> list[int]:
    """The indices of the first ``k`` places, leaving out each inside the window of an earlier one kept (its
    session and kind, at most ``window`` positions away): the reader gets it there already."""
    kept: list[int] = []
    near: set[Place] = set()
    for i, (session, kind, position) in enumerate(places):
        if len(kept) == k:
            break
        if (session, kind, position) in near:
            continue
        kept.append(i)
        near.update((session, kind, position + d) for d in range(-window, window + 1))
    return kept


@dataclass(frozen=True, eq=False)
class Ranking:
    """``order``: indices best first; an index below ``len(pool)`` is a pool row, one above it a turn that
    joined the candidates (row ``i - len(pool)`` of ``joined``). ``scores`` and each of ``terms``: one value
    per index (pool rows, then joined turns); the terms become signals of the hits."""

    pool: Pool
    order: np.ndarray
    scores: np.ndarray
    terms: Mapping[str, np.ndarray]
    joined: Candidates | None = None

    @classmethod
    def of(cls, pool: Pool) -> Ranking:
        """A pool's own order and scores."""
        return cls(pool, np.arange(len(pool)), pool.scores, {})

    def above(self, floor: float, similarity: np.ndarray, unranked: float,
              matched: np.ndarray | None = None) -> Ranking:
        """This ranking less the candidates below ``floor``: ``similarity`` per pool row (``nan`` where the
        signal did not rank it), ``unranked`` for those and for the joined turns (the most they can be).
        ``matched`` (a bool per pool row): rows that pass whatever their similarity."""
        n = len(self.pool)
        value = np.full(len(self.scores), unranked, dtype=float)
        value[:n] = np.where(np.isnan(similarity), unranked, similarity)
        if matched is not None:
            value[:n][matched] = np.inf
        return Ranking(self.pool, self.order[value[self.order] >= floor], self.scores, self.terms, self.joined)

    def places(self) -> Iterator[Place]:
        """Where each candidate sits, in order (each passage of a long message a place of its own: they share
        their message's position but not their text)."""
        n = len(self.pool)
        for i in self.order.tolist():
            c, at = (self.pool.columns, i) if i < n or self.joined is None else (self.joined, i - n)
            yield c.sessions[at], place_kind(c.kinds[at], c.ids[at]), int(c.positions[at])

    def hits(self, store: MemoryStore, at: Sequence[int]) -> list[Hit]:
        """The hits at positions ``at`` of the order (a record deleted since the search is left out); their
        records are read now, once per list they came from."""
        n = len(self.pool)
        chosen = [int(self.order[j]) for j in at]
        records = iter(self.pool.records(store, [i for i in chosen if i < n]))
        joined = [i - n for i in chosen if i >= n]
        extra = iter(store.read_candidates(self.joined, joined) if joined and self.joined is not None else [])
        out: list[Hit] = []
        for i in chosen:
            terms = {name: float(v[i]) for name, v in self.terms.items()}
            if i < n:
                record = next(records)
                if record is not None:
                    out.append(self.pool.hit(i, record, float(self.scores[i]), terms))
            elif (record := next(extra)) is not None:
                out.append(Hit(record, float(self.scores[i]), frozen_mapping(terms)))
        return out


__all__ = ["Place", "Ranking", "apart"]
