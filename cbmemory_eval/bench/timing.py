"""Timing helpers: percentiles of repeated runs (median over runs), warm-up excluded, and memory readings."""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from .rows import Timing

T = TypeVar("T")
PERCENTILES = (50, 95, 99)


def percentiles(ms: Sequence[float]) -> dict[str, float]:
    """``p50_ms``, ``p95_ms``, ``p99_ms`` (linear interpolation) and ``mean_ms`` of ``ms``."""
    a = np.asarray(ms, dtype=float)
    out = {f"p{p}_ms": round(float(np.percentile(a, p)), 4) for p in PERCENTILES}
    out["mean_ms"] = round(float(a.mean()), 4)
    return out


def median_of_runs(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each statistic is the median of that statistic over the runs."""
    return {key: round(float(np.median([r[key] for r in runs])), 4) for key in runs[0]}


def time_calls(fn: Callable[[T], object], items: Sequence[T], *, repeats: int = 3, warmup: int = 5,
               deadline: float | None = None) -> Timing:
    """Call ``fn`` on every item, ``repeats`` times; each run's percentiles, then their median per statistic.

    The first ``warmup`` items are called once before timing and not counted. With ``deadline`` (a
    ``time.perf_counter()`` value), timing stops early once it passes; ``runs`` and ``queries`` say how much
    was measured, and ``partial`` is true when a run was cut short."""
    for item in items[:warmup]:
        fn(item)
    runs, partial, timed = [], False, 0
    for _ in range(repeats):
        ms: list[float] = []
        for item in items:
            if deadline is not None and time.perf_counter() > deadline:
                partial = True
                break
            t0 = time.perf_counter_ns()
            fn(item)
            ms.append((time.perf_counter_ns() - t0) / 1e6)
        if ms:
            runs.append(percentiles(ms))
            timed = max(timed, len(ms))
        if partial:
            break
    if not runs:
        return Timing(None, None, None, None, runs=0, queries=0, partial=True)
    med = median_of_runs(runs)
    return Timing(med["p50_ms"], med["p95_ms"], med["p99_ms"], med["mean_ms"], len(runs), timed, partial)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (MiB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def current_rss_mb() -> float:
    """This process's resident memory now (MiB), from /proc where there is one, else the peak."""
    try:
        with open(f"/proc/{os.getpid()}/statm") as f:
            pages = int(f.read().split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024), 1)
    except (OSError, ValueError):
        return peak_rss_mb()


__all__ = ["current_rss_mb", "median_of_runs", "peak_rss_mb", "percentiles", "time_calls"]
