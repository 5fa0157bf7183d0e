"""Retrieval metrics: pure functions over gold evidence ids and a ranked list of hits.

A ranked list is a sequence of *units*, one per hit, each the set of ids that hit covers: one turn id for a
turn record, several for a round, one session id at session level. For gold evidence ``E`` and the first
``k`` units (REFERENCE.md section 4; LongMemEval's and the LoCoMo paper's definitions):

- ``recall@k``      = |E ∩ covered| / |E|   (the LoCoMo paper's evidence recall)
- ``recall_all@k``  = 1 if E ⊆ covered else 0
- ``recall_any@k``  = 1 if E ∩ covered ≠ ∅ else 0
- ``ndcg@k``        binary relevance: a unit is relevant when it covers gold not covered by an earlier
  unit (so a session hit twice counts once); DCG = Σ rel_i / log2(i + 1), ideal DCG puts min(|E|, k)
  relevant units first.

Every function returns ``None`` when ``E`` is empty: such questions are skipped and counted, not scored.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence

KS = (1, 3, 5, 10, 20, 30, 50)
Unit = Collection[str]


def _covered(ranked: Sequence[Unit], k: int) -> set[str]:
    out: set[str] = set()
    for unit in ranked[:k]:
        out.update(unit)
    return out


def recall(gold: Collection[str], ranked: Sequence[Unit], k: int) -> float | None:
    if not gold:
        return None
    g = set(gold)
    return len(g & _covered(ranked, k)) / len(g)


def recall_all(gold: Collection[str], ranked: Sequence[Unit], k: int) -> float | None:
    if not gold:
        return None
    return 1.0 if set(gold) <= _covered(ranked, k) else 0.0


def recall_any(gold: Collection[str], ranked: Sequence[Unit], k: int) -> float | None:
    if not gold:
        return None
    return 1.0 if set(gold) & _covered(ranked, k) else 0.0


def ndcg(gold: Collection[str], ranked: Sequence[Unit], k: int) -> float | None:
    if not gold:
        return None
    g = set(gold)
    seen: set[str] = set()
    dcg = 0.0
    for i, unit in enumerate(ranked[:k]):
        new = (g & set(unit)) - seen
        if new:
            dcg += 1.0 / math.log2(i + 2)
            seen |= new
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(g), k)))
    return dcg / ideal


def retrieval_metrics(gold: Collection[str], ranked: Sequence[Unit], ks: Iterable[int], *,
                      prefix: str = "") -> dict[str, float | None]:
    """``{prefix}recall@k``, ``recall_all@k``, ``recall_any@k`` and ``ndcg@k`` for every k."""
    out: dict[str, float | None] = {}
    for k in ks:
        out[f"{prefix}recall@{k}"] = recall(gold, ranked, k)
        out[f"{prefix}recall_all@{k}"] = recall_all(gold, ranked, k)
        out[f"{prefix}recall_any@{k}"] = recall_any(gold, ranked, k)
        out[f"{prefix}ndcg@{k}"] = ndcg(gold, ranked, k)
    return out


def session_units(sessions: Sequence[str]) -> list[frozenset[str]]:
    """Session-level units of a ranked turn list (``sessions[i]`` is hit i's session)."""
    return [frozenset((s,)) for s in sessions]


def mean(values: Iterable[float | None]) -> float | None:
    """Mean of the values that are not ``None`` (``None`` if there are none)."""
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def percentile(values: Iterable[float | None], q: float) -> float | None:
    """Linear-interpolated percentile (``q`` in [0, 100]) of the values that are not ``None``."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    pos = (len(vals) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def aggregate(rows: Sequence[Mapping[str, float | None]]) -> dict[str, float | None]:
    """Per-metric mean over rows (each a metric -> value mapping; ``None`` values are skipped)."""
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r))
    return {n: mean(r.get(n) for r in rows) for n in names}
