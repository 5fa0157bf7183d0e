"""``cbmemory search``, ``stats``, ``forget`` and ``recipes``."""

from __future__ import annotations

import argparse
import json
import warnings
from typing import Any

from ..errors import InvalidInputError, RecipeMismatchWarning
from .common import UnknownSessionError, UnknownUserError, as_of, open_memory, positive, recipe_arg, say


# ---------------------------------------------------------------------------- search
def _check_user(store, db: str, user: str) -> None:
    if user not in store.users():
        raise UnknownUserError(f"{db} holds no user {user!r}; `cbmemory stats --db {db}` lists its users")


def _records_ingest(memory, user: str, recipe) -> None:
    """Set the memory's ingest settings to those its records were made with (as far as they tell), so that a
    search with a recipe expecting other records warns (``RecipeMismatchWarning``)."""
    from ..recipes import RECIPES, all_recipes
    from ..stored_ingest import records_ingest

    others = list({r.ingest.key: r.ingest for r in (RECIPES["default"], *all_recipes().values())}.values())
    found = records_ingest(memory.store, user, recipe.ingest, others)
    if found is not None:
        memory.ingest = found


def _mismatch(memory, args: argparse.Namespace, recipe) -> str:
    """Why ``recipe`` does not fit the user's records, in one sentence (for a ``RecipeMismatchWarning``)."""
    from ..ingest import RAW_KINDS, ingest_label
    from ..models import SearchFilters

    missing = [k for k in recipe.retrieval.filters.kinds or () if k not in RAW_KINDS
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
        hits = memory.search(args.query, args.user, args.k, current_only=args.current_only, as_of=args.as_of)
    warned = False
    for w in caught:
        if issubclass(w.category, RecipeMismatchWarning):
            say("warning", _mismatch(memory, args, recipe))
            warned = True
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return hits, warned


def _explained(hits) -> list[dict[str, Any]]:
    """Per hit, each signal the recipe ran: its rank and raw score (``None`` where it did not find the hit)."""
    from ..retrieval import explain

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
    recipe = recipe_arg(args.recipe)
    if recipe.retrieval.filters.drop_future and args.as_of is None:
        raise InvalidInputError(f"recipe {recipe.name!r} keeps only memories dated up to the question's date: "
                                "give that date with --as-of DATE (e.g. --as-of 2023-06-01)")
    with open_memory(args, create=False, read_only=True) as memory:
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
        from ..context import passage

        for h in hits:  # the hit's window, if the recipe has one, around it and indented
            for r in passage(h):
                lead = f"{h.score:8.4f}" if r is h.record else " " * 6 + "··"
                print(f"{lead}  {r.turn_id or '-':>8}  {r.occurred_at.date()}  {r.speaker or r.role}: {r.text}")
    if not hits and not warned:
        say("note", f"no memory of {args.user!r} matches with recipe {recipe.name!r}")
    return 0


# ---------------------------------------------------------------------------- stats, forget, recipes
def cmd_stats(args: argparse.Namespace) -> int:
    from ..store import SQLiteStore

    with SQLiteStore(args.db, create=False, read_only=True) as store:
        out = store.stats()
        out["by_user"] = [{"user": u, "records": store.count(u), "sessions": len(store.list_sessions(u))}
                          for u in store.users()]
    print(json.dumps(out, indent=2, default=str))
    return 0


def _missing(store, args: argparse.Namespace) -> str | None:
    """What of ``--user`` / ``--session`` the file does not hold, in words; ``None`` when it holds both."""
    if args.user not in store.users():
        return f"{args.db} holds no user {args.user!r}"
    if args.session is not None and store.get_session(args.user, args.session) is None:
        return f"{args.db} holds no session {args.session!r} of user {args.user!r}"
    return None


def cmd_forget(args: argparse.Namespace) -> int:
    from ..store import SQLiteStore
    from ..validation import check_id

    check_id(args.user, "user")
    if args.session is not None:
        check_id(args.session, "session")
    with SQLiteStore(args.db, create=False) as store:
        missing = _missing(store, args)
        if missing is not None and not args.ignore_missing:
            kind = UnknownUserError if args.user not in store.users() else UnknownSessionError
            raise kind(f"{missing}, so nothing was erased (`cbmemory stats --db {args.db}` lists its users; "
                       "--ignore-missing makes this no error)")
        erased = store.forget(args.user, args.session)
    print(json.dumps({"forgotten_records": erased.records, "forgotten_sessions": erased.sessions,
                      "wiped": erased.wiped, "user": args.user, "session": args.session}))
    if missing is not None:
        say("note", f"{missing}; nothing to erase")
    elif not erased.wiped:
        say("warning", f"another connection is reading {args.db}, so the erased bytes remain in the file until "
                       "its next write or close")
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    from ..recipes import RECIPES, all_recipes, plugin_recipes

    if args.name:  # one recipe as JSON: a file --recipe reads back
        print(recipe_arg(args.name).to_json(indent=2))
    elif args.json:
        print(json.dumps({name: r.to_dict() for name, r in all_recipes().items()}, indent=2, ensure_ascii=False))
    else:
        added = plugin_recipes()
        width = max(map(len, all_recipes()))
        for name, r in RECIPES.items():
            print(f"{name:<{width}}  {r.description}")
        for source, recipes in added.items():
            print(f"\nfrom {source}{' (the study)' if source == 'cbmemory-eval' else ''}:")
            for name, r in recipes.items():
                print(f"{name:<{width}}  {r.description}")
        if not added:
            print("\n(the study's recipes come with `pip install cbmemory-eval`)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("search", help="search one user's memory",
                       description="The best memories of one user for a query, best first.")
    s.add_argument("query", help="what to search for (not empty)")
    s.add_argument("--db", required=True, help="the memory file (never created or written)")
    s.add_argument("--user", required=True, help="whose memory (`cbmemory stats --db FILE` lists the users)")
    s.add_argument("--k", type=positive, default=None, help="hits returned (default: the recipe's own k, or for a "
                   "recipe with k=None one chosen from the number of the user's sessions)")
    s.add_argument("--recipe", default="default", help="a recipe name (`cbmemory recipes`), or a recipe's JSON file")
    s.add_argument("--as-of", type=as_of, metavar="DATE", help="the memory as it was on DATE, e.g. 2023-06-01 "
                   "(to the end of that day): only memories said by then, marked changed only by what was said "
                   "by then; it is also the date the question is asked on, which recipes that filter out later "
                   "memories (future_filter) or weigh dates need (default: none, i.e. now)")
    s.add_argument("--current-only", action="store_true", help="leave out memories a later statement of the "
                   "user changed (links made at write time with link_updates); the later one stays")
    s.add_argument("--json", action="store_true", help="the hits as one JSON list")
    s.add_argument("--explain", action="store_true",
                   help="each hit's text beside its rank per signal (vector, bm25, ...); with --json, each hit "
                   "gets an 'explain' object of ranks and scores")
    s.set_defaults(func=cmd_search)

    st = sub.add_parser("stats", help="what a store file holds, with each user's record and session counts")
    st.add_argument("--db", required=True, help="the memory file (opened read-only)")
    st.set_defaults(func=cmd_stats)

    f = sub.add_parser("forget", help="erase a user's memory, or one session of it",
                       description="Erase a user's memory, or one session of it. A user or session the file "
                       "does not hold is an error (exit 2) unless --ignore-missing is given.")
    f.add_argument("--db", required=True, help="the memory file")
    f.add_argument("--user", required=True, help="whose memory to erase")
    f.add_argument("--session", help="erase only this session (default: all of the user's)")
    f.add_argument("--ignore-missing", action="store_true",
                   help="a user or session the file does not hold erases nothing and exits 0")
    f.set_defaults(func=cmd_forget)

    r = sub.add_parser("recipes", help="list the named recipes, or print one as JSON")
    r.add_argument("name", nargs="?", help="print this recipe (a name or a JSON file) as JSON")
    r.add_argument("--json", action="store_true", help="every named recipe as one JSON object")
    r.set_defaults(func=cmd_recipes)


__all__ = ["cmd_forget", "cmd_recipes", "cmd_search", "cmd_stats", "register"]
