"""Fusing ranked lists of hits (the engine fuses its candidates' arrays the same way: pool.py).

- Reciprocal-rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009): score(d) = sum_s w_s / (c + rank_s(d)),
  with c = 60 in the paper. Only ranks matter, so lists on different scales combine safely.
- Weighted score fusion: each list's scores min-max normalised to [0, 1], then summed with weights.

Both run over the union of every list's hits (a record's first list gives its record); ties go to the
better rank in any list, then the record id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Hit
from ..store.candidates import Candidates
from .pool import fused, unite
from .stages import Fusion


def _fuse(lists: Mapping[str, Sequence[Hit]], weights: Mapping[str, float] | None, method: Fusion,
          c: int) -> list[Hit]:
    pool = fused(unite({s: Candidates.from_hits("", hits) for s, hits in lists.items()}), weights or {},
                 method, c, one_as_is=False)
    rows = range(len(pool))
    return [pool.hit(i, r) for i, r in zip(rows, pool.records(None, rows), strict=True) if r is not None]


def rrf(lists: Mapping[str, Sequence[Hit]], *, c: int = 60, weights: Mapping[str, float] | None = None) -> list[Hit]:
    return _fuse(lists, weights, Fusion.RRF, c)


def weighted(lists: Mapping[str, Sequence[Hit]], *, weights: Mapping[str, float] | None = None) -> list[Hit]:
    return _fuse(lists, weights, Fusion.WEIGHTED, 60)
