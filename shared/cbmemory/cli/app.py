"""The ``cbmemory`` command line: ingest, search, stats, forget, recipes (+ eval, demo and bench).

Every mistake of the user ends the command with one line on stderr and a non-zero exit, never a traceback:
:func:`main` is the one place that turns typed errors (``CbMemoryError``), files that cannot be read
(``OSError``), files that are not JSON, Ctrl-C and a closed output pipe into that line and an exit code
(``USAGE`` 2 for a bad command line or bad input, ``FAILURE`` 1 for anything else, ``INTERRUPTED`` 130).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sqlite3
import sys
import time
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from .errors import (
    CbMemoryError,
    InvalidInputError,
    MissingDependencyError,
    RecipeMismatchWarning,
    StoreUnavailableError,
    WriteConflictError,
)

# Modules that add their own sub-commands through ``register(subparsers)``; imported only when present.
PLUGINS = ("cbmemory.eval.cli", "cbmemory.bench.cli")
USAGE, FAILURE, INTERRUPTED = 2, 1, 130
# Typed errors that are not the user's mistake: a server that does not answer, a write that lost a race, an
# extra that is not installed.
NOT_USAGE: tuple[type[CbMemoryError], ...] = (StoreUnavailableError, WriteConflictError, MissingDependencyError)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, carrying what the interrupted command kept (``main`` says it)."""


class UnknownUserError(InvalidInputError):
    """A search for a user the store holds no records of."""


# ---------------------------------------------------------------------------- the parser
class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default after its help, unless there is none to show (``None``, ``""``, a flag's
    ``False``) or the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default is None or action.default is False or action.default in ("", argparse.SUPPRESS) \
                or "default" in text.lower() or action.required:
            return text
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """argparse with defaults in the help and a mistake said in one line (argparse's exit code, 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: error: {' '.join(message.split())} (see `{self.prog} --help`)\n")


def positive(text: str) -> int:
    """An integer of at least 1 (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def as_of(text: str):
    """A date or time (ISO 8601, or LoCoMo's ``1:56 pm on 8 May, 2023``) as aware UTC (an argparse type)."""
    from .dates import to_utc

    try:
        return to_utc(text)
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ---------------------------------------------------------------------------- shared pieces
def _recipe(text: str):
    """A recipe by name, or read from a JSON file (``cbmemory recipes NAME > mine.json``, edited)."""
    from pathlib import Path

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


def _say(kind: str, message: str) -> None:
    """One line on stderr: ``cbmemory: <kind>: <message>`` (line breaks in the message become spaces)."""
    print(f"cbmemory: {kind}: {' '.join(str(message).split())}", file=sys.stderr)


# ---------------------------------------------------------------------------- ingest
def _dataset(name: str, path: str) -> tuple[str, dict[str, list[tuple[str, Any, Any]]], dict[str, int]]:
    """Read the whole file first (a bad file stores nothing): the noun of its users, each user's sessions
    and turns."""
    if name == "locomo":
        from .datasets.locomo import load_locomo

        conversations = load_locomo(path)
        return ("conversations", {c.sample_id: [(s.session_id, s.messages, s.date) for s in c.sessions]
                                  for c in conversations},
                {c.sample_id: sum(len(s.messages) for s in c.sessions) for c in conversations})
    from .datasets.longmemeval import load_longmemeval

    questions = load_longmemeval(path)
    return ("questions", {q.question_id: [(s.session_id, s.messages, s.date) for s in q.sessions] for q in questions},
            {q.question_id: sum(len(s.messages) for s in q.sessions) for q in questions})


def cmd_ingest(args: argparse.Namespace) -> int:
    from .eval.progress import ingest_label, ingest_with_bar, rate

    noun, batches, turns = _dataset(args.dataset, args.path)
    start = time.perf_counter()
    with _memory(args) as memory:
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
              f"{rate(tally, took, unit)}", file=sys.stderr)
    print(json.dumps({noun: len(batches), "turns": total, "new": tally.inserted, "replaced": tally.replaced,
                      "unchanged": tally.unchanged, "seconds": round(took, 2),
                      "embedded_per_s": round(tally.embedded / took, 1) if tally.embedded and took else None}))
    return 0


# ---------------------------------------------------------------------------- search
def _check_user(store, db: str, user: str) -> None:
    if user not in store.users():
        raise UnknownUserError(f"{db} holds no user {user!r}; `cbmemory stats --db {db}` lists its users")


def _records_ingest(memory, user: str, recipe) -> None:
    """Set the memory's ingest settings to those its records were made with (as far as they tell), so that a
    search with a recipe expecting other records warns (``RecipeMismatchWarning``)."""
    from .retrieval.recipes import RECIPES
    from .stored_ingest import records_ingest

    others = list({r.ingest.key: r.ingest for r in (RECIPES["default"], *RECIPES.values())}.values())
    found = records_ingest(memory.store, user, recipe.ingest, others)
    if found is not None:
        memory.ingest = found


def _mismatch(memory, args: argparse.Namespace, recipe) -> str:
    """Why ``recipe`` does not fit the user's records, in one sentence (for a ``RecipeMismatchWarning``)."""
    from .eval.progress import ingest_label
    from .ingest import RAW_KINDS
    from .models import SearchFilters

    missing = [k for k in recipe.retrieval.kinds or () if k not in RAW_KINDS
               and not memory.store.list_records(args.user, SearchFilters(kinds=(k,)), limit=1)]
    if missing:
        return (f"recipe {recipe.name!r} searches {' and '.join(missing)} records, which {args.db} does not hold "
                f"for {args.user!r}, so it finds nothing (an ingest-time LLM makes them: an AgentMemory with an "
                "Enricher, or `cbmemory eval --enrich-llm`)")
    return (f"recipe {recipe.name!r} expects records made with {ingest_label(recipe.ingest)}, but those of "
            f"{args.user!r} in {args.db} were made with {ingest_label(memory.ingest)}, so its results are not the "
            f"ones it was measured with (`cbmemory ingest ... --recipe {recipe.name}` into another file makes "
            "records its way)")


def _search(memory, args: argparse.Namespace, recipe) -> tuple[list, bool]:
    """The hits, and whether a ``RecipeMismatchWarning`` was said (as one line, not Python's warning output)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RecipeMismatchWarning)
        hits = memory.search(args.query, args.user, args.k, reference_date=args.as_of)
    warned = False
    for w in caught:
        if issubclass(w.category, RecipeMismatchWarning):
            _say("warning", _mismatch(memory, args, recipe))
            warned = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return hits, warned


def _explained(hits) -> list[dict[str, Any]]:
    """Per hit, each signal the recipe ran: its rank and raw score (``None`` where it did not find the hit)."""
    from .retrieval.engine import explain

    signals = sorted({s for h in hits for s in h.ranks})
    return [{s: {"rank": row[f"{s}_rank"], "score": row[f"{s}_score"]} for s in signals} for row in explain(hits)]


def _print_explained(hits) -> None:
    signals = sorted({s for h in hits for s in h.ranks})
    widths = [max(len(s), 4) for s in signals]
    head = "  ".join(f"{s:>{w}}" for s, w in zip(signals, widths, strict=True))
    print(f"rank     score  {head}  {'turn':>8}  date        text")
    for i, (h, row) in enumerate(zip(hits, _explained(hits), strict=True), 1):
        ranks = "  ".join(f"{'-' if row[s]['rank'] is None else row[s]['rank']:>{w}}"
                          for s, w in zip(signals, widths, strict=True))
        who = h.record.speaker or h.record.role
        print(f"{i:>4}  {h.score:8.4f}  {ranks}  {h.record.turn_id or '-':>8}  {h.record.occurred_at.date()}  "
              f"{who}: {' '.join(h.record.text.split())}")


def cmd_search(args: argparse.Namespace) -> int:
    if not args.query.strip():
        raise InvalidInputError("the query is empty; give the words to search for, e.g. "
                                "cbmemory search \"where did I go last week\" --db ... --user ...")
    recipe = _recipe(args.recipe)
    if recipe.retrieval.future_filter and args.as_of is None:
        raise InvalidInputError(f"recipe {recipe.name!r} keeps only memories dated up to the question's date: "
                                "give that date with --as-of DATE (e.g. --as-of 2023-06-01)")
    with _memory(args, create=False, read_only=True) as memory:
        _check_user(memory.store, args.db, args.user)
        _records_ingest(memory, args.user, recipe)
        hits, warned = _search(memory, args, recipe)  # k None: the recipe's own (or scale-aware) k
    if args.json:
        rows = [{"turn_id": h.record.turn_id, "session_id": h.record.session_id, "score": h.score,
                 "text": h.record.text, "occurred_at": h.record.occurred_at.isoformat(),
                 "speaker": h.record.speaker, "recipe": h.recipe, "signals": dict(h.signals),
                 "ranks": dict(h.ranks),
                 "context": [{"turn_id": r.turn_id, "position": r.position, "speaker": r.speaker, "role": r.role,
                              "text": r.text} for r in h.context]} for h in hits]
        if args.explain:
            for row, signals in zip(rows, _explained(hits), strict=True):
                row["explain"] = signals
        print(json.dumps(rows, ensure_ascii=False))
    elif args.explain:
        _print_explained(hits)
    else:
        from .context import passage

        for h in hits:  # the hit's window, if the recipe has one, around it and indented
            for r in passage(h):
                lead = f"{h.score:8.4f}" if r is h.record else " " * 6 + "··"
                print(f"{lead}  {r.turn_id or '-':>8}  {r.occurred_at.date()}  {r.speaker or r.role}: {r.text}")
    if not hits and not warned:
        _say("note", f"no memory of {args.user!r} matches with recipe {recipe.name!r}")
    return 0


# ---------------------------------------------------------------------------- stats, forget, recipes
def cmd_stats(args: argparse.Namespace) -> int:
    from .store.sqlite import SQLiteStore

    with SQLiteStore(args.db, create=False, read_only=True) as store:
        out = store.stats()
        out["by_user"] = [{"user": u, "records": store.count(u), "sessions": len(store.list_sessions(u))}
                          for u in store.users()]
    print(json.dumps(out, indent=2, default=str))
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
        _say("warning", f"another connection is reading {args.db}, so the erased bytes remain in the file until "
                        "its next write or close")
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
    p = Parser(prog="cbmemory", description="Agent memory with date-anchored recall.")
    sub = p.add_subparsers(dest="command", required=True)

    ing = sub.add_parser("ingest", help="ingest a dataset (one user per conversation or question)",
                         description="Store a benchmark file in a memory file, one user per LoCoMo conversation "
                         "or LongMemEval question. Sessions already stored unchanged are skipped.")
    ing.add_argument("dataset", choices=["locomo", "longmemeval"], help="the file's format")
    ing.add_argument("path", help="the dataset file (official JSON format)")
    ing.add_argument("--db", required=True, help="the memory file (created if missing)")
    ing.add_argument("--no-dates", action="store_true", help="turn temporal anchoring off")
    ing.add_argument("--unit", choices=["turn", "round"], help="record unit (default: the recipe's)")
    ing.add_argument("--recipe", default="default",
                     help="ingest the way this recipe expects (a name, or a recipe's JSON file)")
    ing.add_argument("--quiet", action="store_true", help="no progress bar and no summary line")
    ing.set_defaults(func=cmd_ingest)

    s = sub.add_parser("search", help="search one user's memory",
                       description="The best memories of one user for a query, best first.")
    s.add_argument("query", help="what to search for (not empty)")
    s.add_argument("--db", required=True, help="the memory file (never created or written)")
    s.add_argument("--user", required=True, help="whose memory (`cbmemory stats --db FILE` lists the users)")
    s.add_argument("--k", type=positive, default=None, help="hits returned (default: the recipe's own k, or for a "
                   "recipe with k=None one chosen from the number of the user's sessions)")
    s.add_argument("--recipe", default="default", help="a recipe name (`cbmemory recipes`), or a recipe's JSON file")
    s.add_argument("--as-of", type=as_of, metavar="DATE", help="the date the question is asked on, e.g. "
                   "2023-06-01: recipes that filter out later memories (future_filter) or weigh dates need it "
                   "(default: none, i.e. today for date weighting)")
    s.add_argument("--json", action="store_true", help="the hits as one JSON list")
    s.add_argument("--explain", action="store_true",
                   help="each hit's text beside its rank per signal (vector, bm25, ...); with --json, each hit "
                   "gets an 'explain' object of ranks and scores")
    s.set_defaults(func=cmd_search)

    st = sub.add_parser("stats", help="what a store file holds, with each user's record and session counts")
    st.add_argument("--db", required=True, help="the memory file (opened read-only)")
    st.set_defaults(func=cmd_stats)

    f = sub.add_parser("forget", help="erase a user's memory, or one session of it")
    f.add_argument("--db", required=True, help="the memory file")
    f.add_argument("--user", required=True, help="whose memory to erase")
    f.add_argument("--session", help="erase only this session (default: all of the user's)")
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


# ---------------------------------------------------------------------------- the one place errors end
def _os_error(exc: OSError) -> tuple[int, str]:
    if exc.filename is None:
        return FAILURE, str(exc.strerror or exc)
    name = exc.filename
    if isinstance(exc, FileNotFoundError):
        return USAGE, f"{name}: no such file or directory"
    if isinstance(exc, IsADirectoryError):
        return USAGE, f"{name} is a directory; expected a file"
    if isinstance(exc, FileExistsError):
        return USAGE, f"{name} exists and is not a folder"
    if isinstance(exc, NotADirectoryError):
        return USAGE, f"{name}: a part of the path is not a directory"
    if isinstance(exc, PermissionError):
        return USAGE, f"{name}: permission denied"
    return FAILURE, f"{name}: {exc.strerror or exc}"


# What ``main`` turns into one line: typed errors, unreadable files, files that are not JSON or not text, and
# as a last resort SQLite's own errors.
ENDS = (CbMemoryError, OSError, json.JSONDecodeError, UnicodeDecodeError, sqlite3.Error)


def failure(exc: BaseException, args: argparse.Namespace | None = None) -> tuple[int, str]:
    """The exit code and the one-line message for an exception of ``ENDS``."""
    if isinstance(exc, CbMemoryError):
        return (FAILURE if isinstance(exc, NOT_USAGE) else USAGE), str(exc) or type(exc).__name__
    if isinstance(exc, OSError):
        return _os_error(exc)
    if isinstance(exc, json.JSONDecodeError):
        return USAGE, f"a file is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, UnicodeDecodeError):
        return USAGE, f"a file is not UTF-8 text ({exc.reason} at byte {exc.start})"
    return FAILURE, f"{getattr(args, 'db', 'the store')}: SQLite error: {exc}"  # the store types those it knows


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that Python's own flush at exit does not fail again (the reader of the
    pipe has gone: ``cbmemory recipes | head``)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured by a test)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code. A bad command line exits (``SystemExit`` 2) from argparse."""
    args: argparse.Namespace | None = None
    try:
        args = build_parser().parse_args(argv)
        code = int(args.func(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return FAILURE
    except KeyboardInterrupt as exc:  # an ``Interrupted`` says what its command kept
        print(f"cbmemory: interrupted; {str(exc) or 'every write is one transaction: what was written stays'}",
              file=sys.stderr)
        return INTERRUPTED
    except ENDS as exc:
        code, message = failure(exc, args)
        _say("error", message)
        return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
