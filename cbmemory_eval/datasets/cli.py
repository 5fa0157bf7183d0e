"""``cbmemory ingest-dataset locomo|longmemeval FILE --db DB``: a benchmark file into a memory file, one user
per LoCoMo conversation or LongMemEval question. Registered in the core's ``cbmemory`` command through the
entry-point group ``cbmemory.commands``; your own chat logs go through ``cbmemory ingest``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from cbmemory.cli import Interrupted, add_ingest_options, open_memory


def _dataset(name: str, path: str) -> tuple[str, dict[str, list[tuple[str, Any, Any]]], dict[str, int]]:
    """Read the whole file first (a bad file stores nothing): the noun of its users, each user's sessions
    and turns."""
    if name == "locomo":
        from .locomo import load_locomo

        conversations = load_locomo(path)
        return ("conversations", {c.sample_id: [(s.session_id, s.messages, s.date) for s in c.sessions]
                                  for c in conversations},
                {c.sample_id: sum(len(s.messages) for s in c.sessions) for c in conversations})
    from .longmemeval import load_longmemeval

    questions = load_longmemeval(path)
    return ("questions", {q.question_id: [(s.session_id, s.messages, s.date) for s in q.sessions] for q in questions},
            {q.question_id: sum(len(s.messages) for s in q.sessions) for q in questions})


def cmd_ingest_dataset(args: argparse.Namespace) -> int:
    from cbmemory.ingest import embed_rate, ingest_label, ingest_with_bar

    noun, batches, turns = _dataset(args.dataset, args.path)
    start = time.perf_counter()
    with open_memory(args) as memory:
        label = ingest_label(memory.ingest)

        def one(user: str):
            return memory.add_sessions(user, batches[user])  # one transaction per user

        try:
            tally = ingest_with_bar([(u, turns[u]) for u in batches], one, label=label, enabled=not args.quiet,
                                    mininterval=0.2 if sys.stderr.isatty() else 15.0)
        except KeyboardInterrupt:
            kept = set(memory.store.users()) & set(batches)  # asked of the store: a commit may have just ended
            raise Interrupted(f"{len(kept)} of {len(batches)} {noun} are stored in {args.db}, each whole (one "
                              "transaction each); running the same command again stores the rest and skips "
                              "what is there") from None
        unit = memory.ingest.unit
    took = time.perf_counter() - start
    total = sum(turns.values())
    if not args.quiet:
        users = f"{len(batches):,} {noun if len(batches) != 1 else noun[:-1]}"
        print(f"ingested {users} ({total:,} turns) into {args.db}, {label}: {tally} {unit}s in {took:.1f} s"
              f"{embed_rate(tally, took, unit)}", file=sys.stderr)
    print(json.dumps({noun: len(batches), "turns": total, "new": tally.inserted, "replaced": tally.replaced,
                      "unchanged": tally.unchanged, "seconds": round(took, 2),
                      "embedded_per_s": round(tally.embedded / took, 1) if tally.embedded and took else None}))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("ingest-dataset", help="ingest a benchmark file (one user per conversation or "
                              "question)", description="Store a benchmark file in a memory file, one user per "
                              "LoCoMo conversation or LongMemEval question. Sessions already stored unchanged are "
                              "skipped. Your own chat logs: `cbmemory ingest`.")
    p.add_argument("dataset", choices=["locomo", "longmemeval"], help="the file's format")
    p.add_argument("path", help="the dataset file (official JSON format)")
    add_ingest_options(p)
    p.set_defaults(func=cmd_ingest_dataset)


__all__ = ["cmd_ingest_dataset", "register"]
