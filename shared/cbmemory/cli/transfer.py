"""``cbmemory export`` and ``cbmemory import``: memory files that move (``cbmemory.memory.transfer``)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from types import SimpleNamespace

from .common import UnknownSessionError, UnknownUserError, open_memory, recipe_arg, say


def cmd_export(args: argparse.Namespace) -> int:
    from ..dates import utcnow
    from ..memory.transfer import export_to
    from ..store import SQLiteStore
    from ..validation import check_id

    if args.session is not None and args.user is None:
        raise UnknownUserError("--session needs --user: a session belongs to one user")
    if args.user is not None:
        check_id(args.user, "user")
    recipe = recipe_arg(args.recipe)
    started = time.perf_counter()
    with SQLiteStore(args.db, create=False, read_only=True) as store:
        if args.user is not None and args.user not in store.users():
            raise UnknownUserError(f"{args.db} holds no user {args.user!r}; `cbmemory stats --db {args.db}` lists them")
        if args.session is not None and store.get_session(args.user, args.session) is None:
            raise UnknownSessionError(f"{args.db} holds no session {args.session!r} of user {args.user!r}")
        bound = store.bound_embedder  # the file's vectors are the store's: no model is loaded to export
        embedder = SimpleNamespace(name=bound[0] if bound else "none", dimension=bound[1] if bound else 0)
        memory = SimpleNamespace(store=store, embedder=embedder, recipe=recipe, ingest=recipe.ingest, clock=utcnow)
        out = args.out if args.out not in (None, "-") else sys.stdout
        result = export_to(memory, out, args.user, args.session, vectors=not args.no_vectors)
    if not args.quiet:
        say("note", f"exported {result.records} records of {result.sessions} sessions ({result.users} users, "
                    f"{result.bytes} bytes) in {time.perf_counter() - started:.1f}s"
                    + (f" to {args.out}" if out is not sys.stdout else ""))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..memory.transfer import import_from

    source = sys.stdin if args.file == "-" else args.file
    started = time.perf_counter()
    with open_memory(args) as memory:
        result = import_from(memory, source, args.user)
    seconds = time.perf_counter() - started
    print(json.dumps({"sessions": result.sessions, "records": result.records, "inserted": result.inserted,
                      "replaced": result.replaced, "unchanged": result.unchanged, "vectors": result.vectors,
                      "seconds": round(seconds, 2)}))
    if result.vectors == "embedded" and not args.quiet:
        say("note", f"the file's vectors come from another embedder than {args.db}'s (or were left out): "
                    "every record was embedded again with this store's")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    e = sub.add_parser("export", help="write a memory file (JSON Lines) of a store, a user or a session",
                       description="Write the memories of a store file, of one user or of one session as JSON "
                       "Lines: a header (format version, embedder, recipe), then each session and its records "
                       "with every field, links, TTL and vector (docs/cli.md). `cbmemory import` reads it back.")
    e.add_argument("--db", required=True, help="the memory file (opened read-only)")
    e.add_argument("--user", help="export only this user's memories (default: every user's)")
    e.add_argument("--session", help="export only this session of --user")
    e.add_argument("--out", help="write here (written whole, then moved into place; default: stdout)")
    e.add_argument("--no-vectors", action="store_true",
                   help="leave the embeddings out (a smaller file; the importer embeds every record again)")
    e.add_argument("--recipe", default="default", help="the recipe named in the header (informative)")
    e.add_argument("--quiet", action="store_true", help="no summary line on stderr")
    e.set_defaults(func=cmd_export)

    i = sub.add_parser("import", help="read a memory file into a store (idempotent)",
                       description="Read a memory file written by `cbmemory export` into a store file (created "
                       "if missing). The whole file is checked before anything is written; each session is "
                       "written in one transaction; importing it again changes nothing. The file's vectors are "
                       "kept when its embedder is the store's, else every record is embedded again.")
    i.add_argument("file", help="the memory file ('-': stdin)")
    i.add_argument("--db", required=True, help="the memory file to import into (created if missing)")
    i.add_argument("--user", help="import only this user's memories (default: every user's)")
    i.add_argument("--recipe", default="default", help="open the store the way this recipe expects")
    i.add_argument("--quiet", action="store_true", help="no note on stderr")
    i.set_defaults(func=cmd_import)


__all__ = ["cmd_export", "cmd_import", "register"]
