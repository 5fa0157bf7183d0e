"""``cbmemory bench``: registered by ``cbmemory.cli`` through ``register(subparsers)``. Imports stay light
here; the runner is imported when the command runs."""

from __future__ import annotations

import argparse
import sys


def _ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("sizes must be positive integers")
    return values


def _names(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def cmd_bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..eval.peers import expand
    from ..retrieval.recipes import get_recipe
    from .runner import BenchConfig, run_bench

    recipes = tuple(get_recipe(r).name for r in args.recipes)
    peers = () if args.no_peers else expand(args.peers)
    cfg = BenchConfig(out=Path(args.out), sizes=args.sizes, users=args.users, user_records=args.user_records,
                      recipes=recipes, peers=peers, queries=args.queries, repeats=args.repeats, warmup=args.warmup,
                      k=args.k, embed_turns=args.embed_turns, peer_cap_s=args.peer_cap, seed=args.seed,
                      included=not args.no_included)
    log = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    from .report import format_table

    result = run_bench(cfg, log)
    print(format_table(result))
    print(f"wrote {Path(args.out) / 'bench.json'}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    b = subparsers.add_parser("bench", help="ingest and search speed vs LangChain and LlamaIndex peers",
                              description="Writes OUT/bench.json and OUT/bench.md and prints the table.")
    b.add_argument("--out", required=True, help="output directory")
    b.add_argument("--sizes", type=_ints, default=(1_000, 10_000, 100_000), help="records per user (1000,10000)")
    b.add_argument("--users", type=int, default=1_000, help="users sweep 1, 10, ... up to N in one file (0: off)")
    b.add_argument("--user-records", type=int, default=100, help="records per user in the users sweep")
    b.add_argument("--recipes", type=_names, default=("default", "vector", "bm25", "hybrid", "vector_bm25_rerank_50"))
    b.add_argument("--peers", type=_names, default=("langchain_ensemble", "llamaindex_fusion"),
                   help="peer names or groups: langchain, llamaindex, all")
    b.add_argument("--no-peers", action="store_true")
    b.add_argument("--queries", type=int, default=100, help="queries per size")
    b.add_argument("--repeats", type=int, default=3, help="timed runs; each statistic is their median")
    b.add_argument("--warmup", type=int, default=5, help="untimed queries first")
    b.add_argument("--k", type=int, default=10)
    b.add_argument("--embed-turns", type=int, default=1_000, help="turns ingested with the offline embedder")
    b.add_argument("--peer-cap", type=float, default=300.0, help="seconds per peer and size (build + search)")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--no-included", action="store_true", help="skip the runs that embed each query")
    b.add_argument("--quiet", action="store_true")
    b.set_defaults(func=cmd_bench)
