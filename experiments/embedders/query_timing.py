"""Load time, memory, query latency and document throughput of an offline embedder (README.md here).

    .venv/bin/python experiments/embedders/query_timing.py minilm|e5-small [--data LOCOMO] [--n 100]
        [--turns 500]

Runs one embedder in this process: the model's load time (the first call, which loads it), the resident memory
before and after, then the first ``--n`` LoCoMo questions embedded one at a time (after 5 warm-up queries),
median and p95 in ms; then the first ``--turns`` turns of the first conversation ("Speaker: text", no date
prefix) embedded as documents in one call, turns/s; the peak resident memory and the load average at start
and end. One JSON line on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from pathlib import Path

from cbmemory.embedding import E5SmallEmbedder, MiniLMEmbedder


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("embedder", choices=("minilm", "e5-small"))
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--turns", type=int, default=500)
    args = ap.parse_args()
    data = json.loads(Path(args.data).read_text())
    questions = [qa["question"] for conv in data for qa in conv["qa"]]
    turns = [f"{t['speaker']}: {t['text']}" for key, session in data[0]["conversation"].items()
             if key.startswith("session_") and isinstance(session, list) for t in session][: args.turns]
    load_start = os.getloadavg()[0]
    embedder = E5SmallEmbedder() if args.embedder == "e5-small" else MiniLMEmbedder()
    before = rss_mb()
    t = time.perf_counter()
    embedder.embed_query("load the model")
    load_s = time.perf_counter() - t
    after = rss_mb()
    for q in questions[:5]:
        embedder.embed_query(q)
    times = []
    for q in questions[5 : 5 + args.n]:
        t = time.perf_counter()
        embedder.embed_query(q)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    t = time.perf_counter()
    embedder.embed(turns)
    turns_s = len(turns) / (time.perf_counter() - t)
    print(json.dumps({
        "embedder": embedder.name, "load_s_incl_first_query": round(load_s, 3), "rss_mb_before": round(before),
        "rss_mb_after_load": round(after), "queries": len(times), "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 2), "turns": len(turns),
        "turns_per_s": round(turns_s, 1), "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "load_avg_start": round(load_start, 2),
        "load_avg_end": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
