"""``cbmemory ingest``: a user's own chat logs into a memory file.

The file is JSON (a list of messages) or JSON Lines (one message per line). Each message is an object::

    {"user": "alice", "session": "2024-05-01", "date": "2024-05-01T09:30:00Z", "role": "user",
     "content": "I moved to Lyon last week.", "speaker": "Alice", "turn_id": "m1"}

``user`` (the user id), ``session`` (the session id), ``date`` (the session's date: the same on every message
of a session), ``role`` (user, assistant, system or tool) and ``content`` are required; ``speaker``,
``turn_id`` and ``annotations`` (string keys and values) are optional. Messages are grouped by user, then by
session, in the order they first appear, and stored with ``AgentMemory.add_sessions``: each user's sessions
in one transaction, a session given again replaced by what the file holds now (so a rerun stores nothing
twice). With ``--append`` they are appended to the sessions they name (``add_messages``, one transaction per
session; turns whose ``turn_id`` is already stored are skipped). The whole file is read and checked first: a
mistake names its line (or item) and field, raises ``ChatLogError`` and stores nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..errors import InvalidInputError
from ..models import IngestResult
from .common import Interrupted, add_ingest_options, open_memory

REQUIRED = ("user", "session", "date", "role", "content")
OPTIONAL = ("speaker", "turn_id", "annotations")
EXAMPLE = ('{"user": "alice", "session": "s1", "date": "2024-05-01", "role": "user", '
           '"content": "I moved to Lyon."}')


class ChatLogError(InvalidInputError):
    """A chat-log file that cannot be stored as it is: not JSON / JSON Lines, or a message that is not one."""


@dataclass
class LogSession:
    """One session of the file: its date and messages (``Message`` fields), where it first appears."""

    date: datetime
    where: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    turn_ids: dict[str, str] = field(default_factory=dict)  # turn_id -> where it was given


def _items(path: str, fmt: str) -> Iterator[tuple[str, Any]]:
    """``(where, item)`` for each message of the file: ``line N`` (JSON Lines) or ``item N`` (a JSON list)."""
    text = Path(path).read_text(encoding="utf-8")
    if fmt == "auto":
        fmt = "json" if text.lstrip().startswith("[") else "jsonl"
    if fmt == "json":
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ChatLogError(f"{path} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
        if not isinstance(items, list):
            raise ChatLogError(f"{path} holds a JSON {type(items).__name__}; expected a list of messages (or one "
                               f"message per line, JSON Lines), each like {EXAMPLE}")
        yield from ((f"{path} item {i}", item) for i, item in enumerate(items))
        return
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ChatLogError(f"{path} line {n} is not JSON ({exc.msg} at column {exc.colno}); expected one "
                               f"message per line (JSON Lines), each like {EXAMPLE}") from None
        yield f"{path} line {n}", item


def _message(where: str, item: Any) -> tuple[str, str, datetime, dict[str, Any]]:
    """``(user, session, date, message)`` of one item, each field checked."""
    from ..dates import to_utc
    from ..ingest import validate_messages
    from ..validation import check_id

    if not isinstance(item, dict):
        raise ChatLogError(f"{where} is a JSON {type(item).__name__}, not an object like {EXAMPLE}")
    unknown = sorted(set(item) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        dataset = ("; a LoCoMo or LongMemEval file goes in with `cbmemory ingest-dataset` (cbmemory-eval)"
                   if {"conversation", "haystack_sessions"} & set(unknown) else "")
        raise ChatLogError(f"{where} has unknown fields {unknown}; a message has {', '.join(REQUIRED)} and "
                           f"optionally {', '.join(OPTIONAL)}{dataset}")
    absent = [f for f in REQUIRED if item.get(f) is None]
    if absent:
        raise ChatLogError(f"{where} has no {' and no '.join(repr(f) for f in absent)}; each message needs "
                           f"{', '.join(REQUIRED)}, e.g. {EXAMPLE}")
    try:
        user = check_id(item["user"], "user")
        session = check_id(item["session"], "session")
        date = to_utc(item["date"])
        msg = {k: item[k] for k in ("role", "content", *OPTIONAL) if item.get(k) is not None}
        validate_messages([msg])
    except InvalidInputError as exc:
        raise ChatLogError(f"{where}: {str(exc).replace('message 0 ', '')}") from None
    return user, session, date, msg


def read_chat_log(path: str, fmt: str = "auto") -> dict[str, dict[str, LogSession]]:
    """Every message of the file, checked, by user and session (in the order they first appear)."""
    users: dict[str, dict[str, LogSession]] = {}
    for where, item in _items(path, fmt):
        user, session_id, date, msg = _message(where, item)
        sessions = users.setdefault(user, {})
        session = sessions.setdefault(session_id, LogSession(date, where))
        if date != session.date:
            raise ChatLogError(f"{where}: session {session_id!r} of user {user!r} is dated {session.date.isoformat()} "
                               f"({session.where}) and {date.isoformat()} here; a session has one date: give each of "
                               "its messages the session's date")
        turn_id = msg.get("turn_id")
        if turn_id is not None:
            if turn_id in session.turn_ids:
                raise ChatLogError(f"{where}: turn_id {turn_id!r} is given twice in session {session_id!r} of "
                                   f"user {user!r} (first at {session.turn_ids[turn_id]})")
            session.turn_ids[turn_id] = where
        session.messages.append(msg)
    if not users:
        raise ChatLogError(f"{path} holds no messages; expected a list of messages or one per line, each like "
                           f"{EXAMPLE}")
    return users


def cmd_ingest(args: argparse.Namespace) -> int:
    from ..ingest import embed_rate, ingest_label, ingest_with_bar

    log = read_chat_log(args.path, args.format)  # the whole file first: a mistake stores nothing
    turns = {u: sum(len(s.messages) for s in sessions.values()) for u, sessions in log.items()}
    start = time.perf_counter()
    with open_memory(args) as memory:
        label = ingest_label(memory.ingest)

        def one(user: str):
            sessions = log[user]
            if not args.append:  # one transaction per user; sessions given again are replaced
                return memory.add_sessions(user, [(sid, s.messages, s.date) for sid, s in sessions.items()])
            results = [memory.add_messages(user, sid, s.messages, date=s.date) for sid, s in sessions.items()]
            return IngestResult(sum(r.inserted for r in results), sum(r.replaced for r in results),
                                sum(r.unchanged for r in results), tuple(i for r in results for i in r.record_ids))

        try:
            tally = ingest_with_bar([(u, turns[u]) for u in log], one, label=label, enabled=not args.quiet,
                                    mininterval=0.2 if sys.stderr.isatty() else 15.0)
        except KeyboardInterrupt:
            kept = set(memory.store.users()) & set(log)  # asked of the store: a commit may have just ended
            how = ("each session appended whole; running the same command again skips the turns with a turn_id "
                   "that are stored" if args.append else "each whole (one transaction each); running the same "
                   "command again stores the rest and skips what is there")
            raise Interrupted(f"{len(kept)} of {len(log)} users are stored in {args.db}, {how}") from None
        unit = memory.ingest.unit
    took = time.perf_counter() - start
    total = sum(turns.values())
    sessions = sum(len(s) for s in log.values())
    if not args.quiet:
        print(f"ingested {len(log):,} user{'s' if len(log) != 1 else ''} ({sessions:,} sessions, {total:,} turns) "
              f"into {args.db}, {label}: {tally} {unit}s in {took:.1f} s{embed_rate(tally, took, unit)}",
              file=sys.stderr)
    print(json.dumps({"users": len(log), "sessions": sessions, "turns": total, "new": tally.inserted,
                      "replaced": tally.replaced, "unchanged": tally.unchanged, "seconds": round(took, 2),
                      "embedded_per_s": round(tally.embedded / took, 1) if tally.embedded and took else None}))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="store your chat logs (JSON or JSON Lines of messages)",
                       description="Store chat logs in a memory file. The file is a JSON list of messages or "
                       "JSON Lines (one per line), each an object with user, session, date (the session's "
                       "date), role and content, and optionally speaker, turn_id and annotations, e.g. "
                       f"{EXAMPLE}. The whole file is checked first: a mistake stores nothing. Sessions given "
                       "again are replaced (a rerun stores nothing twice) unless --append.")
    p.add_argument("path", help="the chat-log file")
    p.add_argument("--format", choices=["auto", "json", "jsonl"], default="auto",
                   help="json: one list of messages; jsonl: one message per line; auto: json when the file starts "
                   "with '['")
    p.add_argument("--append", action="store_true",
                   help="append the messages to the sessions they name instead of replacing those sessions "
                   "(turns whose turn_id is stored already are skipped)")
    add_ingest_options(p)
    p.set_defaults(func=cmd_ingest)


__all__ = ["ChatLogError", "cmd_ingest", "read_chat_log", "register"]
