"""The ``cbmemory`` command line: ingest, search, stats, forget, recipes (+ eval, demo and bench)."""

from __future__ import annotations

import argparse
import importlib
import json
import sqlite3
import sys
import time
from collections.abc import Sequence

from .errors import CbMemoryError

# Modules that add their own sub-commands through ``register(subparsers)``; imported only when present.
PLUGINS = ("cbmemory.eval.cli", "cbmemory.bench.cli")


def _recipe(text: str):
    """A recipe by name, or read from a JSON file (``cbmemory recipes NAME > mine.json``, edited)."""
    from pathlib import Path

    from .errors import InvalidInputError
    from .retrieval.recipes import Recipe, get_recipe

    if not text.endswith(".json"):
        return get_recipe(text)
    try:
        return Recipe.from_json(Path(text).read_bytes())
    except OSError as exc:
        raise InvalidInputError(f"cannot read the recipe file {text}: {exc.strerror or exc}") from None


def _memory(args: argparse.Namespace, **kw):
    from dataclasses import replace

    from .memory import AgentMemory

    recipe = _recipe(getattr(args, "recipe", "default"))
    ingest = recipe.ingest
    if getattr(args, "no_dates", False):
        ingest = replace(ingest, anchor_dates=False)
    if getattr(args, "unit", None):
        ingest = replace(ingest, unit=args.unit)
    return AgentMemory.open(args.db, ingest=ingest, recipe=recipe, **kw)


def cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    if args.dataset == "locomo":
        from .datasets.locomo import load_locomo

        conversations = load_locomo(args.path)
        turns = sum(len(s.messages) for c in conversations for s in c.sessions)
        start = time.perf_counter()
        with _memory(args) as memory:
            for conv in tqdm(conversations, desc="ingest locomo", unit="conv", file=sys.stderr,
                             disable=args.quiet):
                memory.add_sessions(conv.sample_id, [(s.session_id, s.messages, s.date) for s in conv.sessions])
        took = time.perf_counter() - start
        print(json.dumps({"conversations": len(conversations), "turns": turns, "seconds": round(took, 2),
                          "turns_per_s": round(turns / took, 1)}))
        return 0
    from .datasets.longmemeval import load_longmemeval

    questions = load_longmemeval(args.path)
    start, turns = time.perf_counter(), 0
    with _memory(args) as memory:
        for q in tqdm(questions, desc="ingest longmemeval", unit="question", file=sys.stderr, disable=args.quiet):
            sessions = [(s.session_id, s.messages, s.date) for s in q.sessions]
            turns += sum(len(s.messages) for s in q.sessions)
            memory.add_sessions(q.question_id, sessions)
    took = time.perf_counter() - start
    print(json.dumps({"questions": len(questions), "turns": turns, "seconds": round(took, 2),
                      "turns_per_s": round(turns / took, 1) if took else None}))
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from .retrieval.engine import explain

    with _memory(args, create=False, read_only=True) as memory:
        hits = memory.search(args.query, args.user, args.k)  # k None: the recipe's own (or scale-aware) k
    if args.json:
        rows = [{"turn_id": h.record.turn_id, "session_id": h.record.session_id, "score": h.score,
                 "text": h.record.text, "occurred_at": h.record.occurred_at.isoformat(),
                 "speaker": h.record.speaker, "recipe": h.recipe, "signals": dict(h.signals),
                 "ranks": dict(h.ranks)} for h in hits]
        print(json.dumps(rows, ensure_ascii=False))
    elif args.explain:
        for row in explain(hits):
            print(json.dumps(row))
    else:
        for h in hits:
            print(f"{h.score:8.4f}  {h.record.turn_id or '-':>8}  {h.record.occurred_at.date()}  "
                  f"{h.record.speaker or h.record.role}: {h.record.text}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from .store.sqlite import SQLiteStore

    with SQLiteStore(args.db, create=False, read_only=True) as store:
        print(json.dumps(store.stats(), indent=2, default=str))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    from .store.sqlite import SQLiteStore
    from .validation import check_id

    check_id(args.user, "user")
    with SQLiteStore(args.db, create=False) as store:
        erased = store.forget(args.user, args.session)
    print(json.dumps({"forgotten_records": erased.records, "forgotten_sessions": erased.sessions,
                      "wiped": erased.wiped, "user": args.user, "session": args.session}))
    if not erased.wiped:
        print(f"cbmemory: warning: another connection is reading {args.db}, so the erased bytes remain in the "
              "file until its next write or close", file=sys.stderr)
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    from .retrieval.recipes import RECIPES

    if args.name:  # one recipe as JSON: a file --recipe reads back
        print(_recipe(args.name).to_json(indent=2))
    elif args.json:
        print(json.dumps({name: r.to_dict() for name, r in RECIPES.items()}, indent=2, ensure_ascii=False))
    else:
        width = max(map(len, RECIPES))
        for name, r in RECIPES.items():
            print(f"{name:<{width}}  {r.description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cbmemory", description="Agent memory with date-anchored recall.")
    sub = p.add_subparsers(dest="command", required=True)

    ing = sub.add_parser("ingest", help="ingest a dataset (one user per conversation or question)")
    ing.add_argument("dataset", choices=["locomo", "longmemeval"])
    ing.add_argument("path")
    ing.add_argument("--db", required=True)
    ing.add_argument("--no-dates", action="store_true", help="turn temporal anchoring off")
    ing.add_argument("--unit", choices=["turn", "round"], help="record unit (default: the recipe's)")
    ing.add_argument("--recipe", default="default",
                     help="ingest the way this recipe expects (a name, or a recipe's JSON file)")
    ing.add_argument("--quiet", action="store_true")
    ing.set_defaults(func=cmd_ingest)

    s = sub.add_parser("search", help="search one user's memory")
    s.add_argument("query")
    s.add_argument("--db", required=True)
    s.add_argument("--user", required=True)
    s.add_argument("--k", type=int, default=None, help="hits returned (default: the recipe's own k, or for a "
                   "recipe with k=None one chosen from the number of the user's sessions)")
    s.add_argument("--recipe", default="default", help="a recipe name, or a recipe's JSON file")
    s.add_argument("--json", action="store_true")
    s.add_argument("--explain", action="store_true", help="each signal's rank and score per hit")
    s.set_defaults(func=cmd_search)

    st = sub.add_parser("stats", help="what a store file holds")
    st.add_argument("--db", required=True)
    st.set_defaults(func=cmd_stats)

    f = sub.add_parser("forget", help="erase a user's memory, or one session of it")
    f.add_argument("--db", required=True)
    f.add_argument("--user", required=True)
    f.add_argument("--session")
    f.set_defaults(func=cmd_forget)

    r = sub.add_parser("recipes", help="list the named recipes, or print one as JSON")
    r.add_argument("name", nargs="?", help="print this recipe (a name or a JSON file) as JSON")
    r.add_argument("--json", action="store_true", help="every named recipe as one JSON object")
    r.set_defaults(func=cmd_recipes)

    for name in PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if not name.startswith(exc.name or "?"):
                raise
            continue
        module.register(sub)
    return p


def _error(message: str) -> int:
    """One line on stderr, exit code 2 (argparse's own for a bad command line)."""
    print(f"cbmemory: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CbMemoryError as exc:
        return _error(str(exc) or type(exc).__name__)
    except sqlite3.Error as exc:  # a last resort: the store types the errors it knows about
        return _error(f"{getattr(args, 'db', 'the store')}: SQLite error: {exc}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
