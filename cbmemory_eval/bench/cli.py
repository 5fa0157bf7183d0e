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


_OFF = ("off", "none", "")


def _sizes(text: str) -> tuple[int, ...]:
    """``_ints``, or ``0`` / ``off`` for none (skip the per-size rows)."""
    return () if text.strip().lower() in (*_OFF, "0") else _ints(text)


def _users(text: str) -> int | tuple[int, ...]:
    """``N`` (1, 10, 100, ... up to N; 0 is off) or the exact counts ``1,10,100``."""
    if text.strip().lower() in _OFF:
        return 0
    if "," not in text:
        try:
            n = int(text.replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of users or a comma-separated list, got {text!r}") \
                from None
        if n < 0:
            raise argparse.ArgumentTypeError("the number of users cannot be negative")
        return n
    return _ints(text)


def _neighbours(text: str) -> tuple[int, ...]:
    """Neighbour tenant sizes (0: none) or ``off``."""
    if text.strip().lower() in _OFF:
        return ()
    try:
        values = tuple(int(x.replace("_", "")) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers or 'off', got {text!r}") from None
    if min(values, default=0) < 0:
        raise argparse.ArgumentTypeError("neighbour sizes cannot be negative")
    return values


def _turns(text: str) -> int:
    """A number of turns, or ``0`` / ``off`` for none."""
    if text.strip().lower() in _OFF:
        return 0
    try:
        n = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of turns or 'off', got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("the number of turns cannot be negative")
    return n


def _names(text: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in text.split(",") if x.strip())


def cmd_bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cbmemory import InvalidInputError
    from cbmemory.recipes import get_recipe
    from cbmemory.retrieval import Signal

    from ..peers import expand
    from .runner import BenchConfig, run_bench
    from .sparse_encoding import sparse_encoder_of

    neighbours = [r.name for r in map(get_recipe, args.neighbour_recipes) if r.retrieval.uses(Signal.SPARSE)]
    if neighbours:  # its file is written without sparse vectors
        raise InvalidInputError(f"the tenant-neighbour row does not run recipes with the sparse signal "
                                f"({', '.join(neighbours)}); give them to --recipes")
    try:  # the sizes' sparse recipes share one copy of each file: one sparse encoder
        sparse_encoder_of([get_recipe(r) for r in args.recipes])
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from None
    recipes = tuple(get_recipe(r).name for r in args.recipes)
    neighbour_recipes = tuple(get_recipe(r).name for r in args.neighbour_recipes)
    peers = () if args.no_peers or not args.sizes else expand(args.peers)
    cfg = BenchConfig(out=Path(args.out), sizes=args.sizes, users=args.users, user_records=args.user_records,
                      neighbour=args.neighbour, neighbour_user_records=args.neighbour_user_records,
                      neighbour_recipes=neighbour_recipes, neighbour_words=args.neighbour_words,
                      long_session=args.long_session, keep=args.keep,
                      recipes=recipes, peers=peers, queries=args.queries, repeats=args.repeats, warmup=args.warmup,
                      k=args.k, embed_turns=args.embed_turns, peer_cap_s=args.peer_cap, seed=args.seed,
                      included=not args.no_included, sparse_max_size=args.sparse_max_size)
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
    b.add_argument("--sizes", type=_sizes, default=(1_000, 10_000, 100_000),
                   help="records per user (1000,10000); 0 or off: skip the per-size rows and the peers")
    b.add_argument("--users", type=_users, default=1_000,
                   help="users sweep in one file: N for 1, 10, ... up to N, or exact counts 1,100,10000 (0: off)")
    b.add_argument("--user-records", type=int, default=100, help="records per user in the users sweep")
    b.add_argument("--neighbour", type=_neighbours, default=(0, 100_000),
                   help="tenant-neighbour row: records of another tenant in the same file, holding the measured "
                        "user's query words (default 0,100000; 1000000 writes a file of about 4 GB; off: skip)")
    b.add_argument("--neighbour-user-records", type=int, default=1_000, help="records of the measured user")
    b.add_argument("--neighbour-recipes", type=_names, default=("default", "bm25"))
    b.add_argument("--neighbour-words", type=int, default=3, help="query words each neighbour turn holds")
    b.add_argument("--long-session", type=_turns, default=20_000,
                   help="turns of the long-session row: one user whose turns are one session, `default` vs "
                        "`default_no_window` (0: off)")
    b.add_argument("--keep", action="store_true", help="keep the SQLite files under OUT/work (several GB)")
    b.add_argument("--recipes", type=_names, default=("default", "vector", "bm25", "hybrid", "vector_bm25_rerank_50"),
                   help="recipes timed at each size; one with the sparse signal (default_sparse) searches a copy "
                        "of the size's file given real SPLADE-tiny vectors, up to --sparse-max-size records")
    b.add_argument("--sparse-max-size", type=int, default=10_000,
                   help="largest size at which recipes with the sparse signal are measured (their documents are "
                        "encoded with the real encoder: about 90 records/s on 2 cores)")
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
