"""Fusing ranked lists. Both methods run over the union of every list's candidates.

- Reciprocal-rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009): score(d) = sum_s w_s / (c + rank_s(d)),
  with c = 60 in the paper. Only ranks matter, so lists on different scales combine safely.
- Weighted score fusion: each list's scores min-max normalised to [0, 1], then summed with weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Hit, frozen_mapping


def _merge(lists: Mapping[str, Sequence[Hit]]) -> tuple[dict[str, Hit], dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    first: dict[str, Hit] = {}
    scores: dict[str, dict[str, float]] = {}
    ranks: dict[str, dict[str, int]] = {}
    for signal, hits in lists.items():
        for rank, h in enumerate(hits, 1):
            rid = h.record.record_id
            first.setdefault(rid, h)
            scores.setdefault(rid, {})[signal] = h.score
            ranks.setdefault(rid, {})[signal] = rank
    return first, scores, ranks


def _finish(first: dict[str, Hit], fused: dict[str, float], scores: Mapping[str, Mapping[str, float]],
            ranks: Mapping[str, Mapping[str, int]]) -> list[Hit]:
    order = sorted(fused, key=lambda rid: (-fused[rid], min(ranks[rid].values()), rid))
    return [Hit(first[rid].record, fused[rid], frozen_mapping(scores[rid]), frozen_mapping(ranks[rid]))
            for rid in order]


def rrf(lists: Mapping[str, Sequence[Hit]], *, c: int = 60, weights: Mapping[str, float] | None = None) -> list[Hit]:
    w = weights or {}
    first, scores, ranks = _merge(lists)
    fused = {rid: sum(w.get(s, 1.0) / (c + r) for s, r in ranks[rid].items()) for rid in first}
    return _finish(first, fused, scores, ranks)


def weighted(lists: Mapping[str, Sequence[Hit]], *, weights: Mapping[str, float] | None = None) -> list[Hit]:
    w = weights or {}
    first, scores, ranks = _merge(lists)
    bounds = {}
    for signal, hits in lists.items():
        vals = [h.score for h in hits]
        if vals:
            bounds[signal] = (min(vals), max(vals))
    fused = {}
    for rid in first:
        total = 0.0
        for s, v in scores[rid].items():
            lo, hi = bounds[s]
            total += w.get(s, 1.0) * ((v - lo) / (hi - lo) if hi > lo else 1.0)
        fused[rid] = total
    return _finish(first, fused, scores, ranks)
