"""The MCP server's tools as data and plain calls: each tool's JSON schema and description, and what a call
does to the memory (no MCP SDK here: ``server`` puts these on the wire).

Every call runs on the agent seam (``cbmemory.agent``): ``remember`` is ``AgentMemory.save`` (never raises;
what it cleaned or left out is said), ``recall`` is ``AgentMemory.recall`` (its ``text``, exactly). A fault
(a store that is locked or gone, an input no cleaning saves) becomes a ``ToolFault``, which the server
returns as an MCP tool error: the host's model reads why, and the server goes on.

Users: with a scope (``cbmemory mcp --user U``) no tool has a ``user_id`` argument and every call is U's;
an argument the schema does not name, ``user_id`` included, is refused. Without one, ``user_id`` is a
required argument of every tool: whoever can call the server can read and erase any user's memory, so a
shared server must be scoped (one process per user) or sit behind something that sets the user
(docs/mcp.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..agent import MemoryFault
from ..dates import to_utc
from ..errors import CbMemoryError, InvalidInputError
from ..models import ROLES, ForgetResult, Hit, IngestResult, MemoryRecord, Message, SearchFilters, Session
from ..validation import MAX_ID_CHARS, MAX_TEXT_CHARS, check_id

MAX_HITS = 50  # hits one call returns at most: a model reads them
MAX_ARG_CHARS = MAX_TEXT_CHARS  # a longer content or query is refused by the schema, not cut silently
DATE_HELP = "an ISO 8601 date or time, e.g. 2023-05-08 or 2023-05-08T13:56:00Z"
DATE: dict[str, Any] = {"type": "string", "maxLength": 64, "description": DATE_HELP}
ID = {"type": "string", "minLength": 1, "maxLength": MAX_ID_CHARS}
STATE: dict[str, Any] = {  # the state reads of recall and search (cbmemory.retrieval.current)
    "current_only": {"type": "boolean", "default": False, "description": "leave out what the user said that a "
                     "later statement of theirs changed (e.g. a former address); the later one stays"},
    "as_of": {**DATE, "description": "memory as it was then (a date alone: to the end of that day): only what "
                                     "was said by then, marked changed only by what was said by then; "
                                     "also the day the question is asked, unless 'today' is given"}}


class ToolFault(Exception):
    """What a tool could not do, in one sentence for the model (returned as an MCP tool error)."""


class Memory(Protocol):
    """What the tools need of ``cbmemory.AgentMemory``."""

    clock: Callable[[], datetime]

    def recall(self, query: str, user_id: str, *, today: datetime | None = None, k: int | None = None,
               on_error: Any = None, current_only: bool = False, as_of: Any = None) -> Any: ...

    def save(self, user_id: str, session_id: str, messages: list[Message], *, date: Any = None,
             on_error: Any = None) -> IngestResult | None: ...

    def search(self, query: str, user_id: str, k: int | None = None, filters: SearchFilters | None = None, *,
               reference_date: Any = None, current_only: bool = False, as_of: Any = None) -> list[Hit]: ...

    def forget(self, user_id: str, session_id: str | None = None) -> ForgetResult: ...

    def sessions(self, user_id: str) -> list[Session]: ...

    def session_records(self, user_id: str, session_id: str | None = None, *, limit: int | None = None,
                        newest_first: bool = False) -> list[MemoryRecord]: ...


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    properties: Mapping[str, Any]
    required: tuple[str, ...] = ()
    read_only: bool = True
    destructive: bool = False

    def schema(self, scoped: bool) -> dict[str, Any]:
        """The tool's input schema: ``user_id`` required unless the server is scoped to one user; nothing
        else than the properties named (``additionalProperties: false``)."""
        props = dict(self.properties)
        required = list(self.required)
        if not scoped:
            props["user_id"] = {**ID, "description": "whose memory (the server serves several users)"}
            required.insert(0, "user_id")
        return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("remember", "Store one message or note in long-term memory: a turn of the conversation (role "
             "user or assistant) or a fact worth keeping. Give the date it was said when it is not today; "
             "relative dates in it ('yesterday', 'next Friday') are resolved against that date at recall.",
             {"content": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_CHARS,
                          "description": "the message or note, verbatim"},
              "role": {"type": "string", "enum": sorted(ROLES), "default": "user",
                       "description": "who said it: user (default), assistant, system or tool"},
              "speaker": {**ID, "description": "the speaker's name, when there are several people"},
              "session": {**ID, "description": "the conversation it belongs to (default: one per day, "
                                               "mcp-YYYY-MM-DD)"},
              "date": {**DATE, "description": "when it was said (default: now), for a new session: a stored "
                                               "session keeps its date; " + DATE_HELP}},
             ("content",), read_only=False),
    ToolSpec("recall", "Recall what memory holds for a question or topic, as text ready to read: dated "
             "memories, relative dates resolved, and 'Today is ...'. Call it before answering anything that "
             "may depend on earlier conversations.",
             {"query": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_CHARS,
                        "description": "the question or topic"},
              "today": {**DATE, "description": "the day the question is asked (default: today)"},
              "k": {"type": "integer", "minimum": 1, "maximum": MAX_HITS, "description": "memories at most "
                    "(default: the recipe's)"}, **STATE},
             ("query",)),
    ToolSpec("search", "Search memory and return the hits as JSON (text, date, session, score, the signals "
             "that found it), best first; for filtering by session or date range.",
             {"query": {"type": "string", "minLength": 1, "maxLength": MAX_ARG_CHARS},
              "k": {"type": "integer", "minimum": 1, "maximum": MAX_HITS, "default": 10},
              "sessions": {"type": "array", "items": ID, "maxItems": 100,
                           "description": "only these sessions"},
              "after": {**DATE, "description": "only memories dated on or after this"},
              "before": {**DATE, "description": "only memories dated on or before this"},
              "today": {**DATE, "description": "the day the question is asked (default: today)"}, **STATE},
             ("query",)),
    ToolSpec("forget", "Erase memory for good: one session, or (with no session) everything of the user. "
             "Needs confirm=true.",
             {"session": {**ID, "description": "the session to erase (default: all of the user's memory)"},
              "confirm": {"type": "boolean", "const": True, "description": "must be true"}},
             ("confirm",), read_only=False, destructive=True),
    ToolSpec("sessions", "List the conversations memory holds, oldest first, with their dates.", {}),
)
SPECS = {t.name: t for t in TOOLS}


def _arg(args: Mapping[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    value = args.get(name, default)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is int):
        raise ToolFault(f"argument {name!r} has the wrong type ({type(value).__name__})")
    return value


def _day(value: str | None, name: str) -> datetime | None:
    return to_utc(value) if value is not None else None


def _state(args: Mapping[str, Any]) -> dict[str, Any]:
    """``current_only`` and ``as_of`` as ``AgentMemory`` takes them (it reads a date alone as its day's end)."""
    return {"current_only": _arg(args, "current_only", bool, False), "as_of": _arg(args, "as_of", str)}


def _record(r: MemoryRecord) -> dict[str, Any]:
    return {"record_id": r.record_id, "session": r.session_id, "turn_id": r.turn_id, "role": r.role,
            "speaker": r.speaker, "text": r.text, "date": r.occurred_at.isoformat()}


def _remember(memory: Memory, user: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    content = _arg(args, "content", str)
    if not content or not content.strip():
        raise ToolFault("nothing to remember: 'content' is empty")
    date = _day(_arg(args, "date", str), "date")
    when = date or memory.clock()
    session = _arg(args, "session", str) or f"mcp-{when.date().isoformat()}"
    check_id(session, "session")
    faults: list[MemoryFault] = []
    turn = Message(_arg(args, "role", str, "user"), content, _arg(args, "speaker", str))
    done = memory.save(user, session, [turn], date=when, on_error=faults.append)
    if done is None and faults:
        raise ToolFault("not stored: " + "; ".join(f.detail for f in faults))
    notes = [f.detail for f in faults]
    last = memory.session_records(user, session, limit=1, newest_first=True)
    day = last[0].occurred_at if last else when  # a stored session keeps its date
    if date is not None and day.date() != date.date():
        notes.append(f"session {session} is dated {day.date()}: a date applies to a new session")
    data = {"stored": done.inserted if done else 0, "session": session, "date": day.isoformat(),
            "record_ids": list(done.record_ids) if done else [], "notes": notes}
    said = "already stored" if not data["stored"] else f"stored in session {session} dated {day.date()}"
    return said + (f" ({'; '.join(notes)})" if notes else ""), data


def _recall(memory: Memory, user: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    query = _arg(args, "query", str)
    if not query or not query.strip():
        raise ToolFault("nothing to recall: 'query' is empty")
    faults: list[MemoryFault] = []
    got = memory.recall(query, user, today=_day(_arg(args, "today", str), "today"), k=_arg(args, "k", int),
                        on_error=faults.append, **_state(args))
    if got.fault is not None:
        raise ToolFault(f"memory could not recall ({got.fault.detail}). {got.text}".strip())
    return got.text, None


def _search(memory: Memory, user: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    query = _arg(args, "query", str)
    if not query or not query.strip():
        raise ToolFault("nothing to search for: 'query' is empty")
    sessions = _arg(args, "sessions", list)
    filters = SearchFilters(session_ids=tuple(sessions) if sessions is not None else None,
                            occurred_after=_arg(args, "after", str), occurred_before=_arg(args, "before", str))
    k = _arg(args, "k", int, 10)
    if not 1 <= k <= MAX_HITS:
        raise ToolFault(f"k must be between 1 and {MAX_HITS}")
    hits = memory.search(query, user, k, filters, reference_date=_day(_arg(args, "today", str), "today"),
                         **_state(args))
    rows = [{**_record(h.record), "score": round(h.score, 6), "signals": dict(h.signals)} for h in hits]
    return json.dumps(rows, ensure_ascii=False), {"hits": rows}


def _forget(memory: Memory, user: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    if _arg(args, "confirm", bool) is not True:
        raise ToolFault("nothing erased: forget needs confirm=true")
    session = _arg(args, "session", str)
    done = memory.forget(user, session)
    data = {"records": done.records, "sessions": done.sessions, "session": session}
    what = f"session {session}" if session else "all memory of this user"
    return f"erased {what}: {done.records} records, {done.sessions} sessions", data


def _sessions(memory: Memory, user: str, args: Mapping[str, Any]) -> tuple[str, Any]:
    rows = [{"session": s.session_id, "date": s.occurred_at.isoformat()}
            for s in sorted(memory.sessions(user), key=lambda s: (s.occurred_at, s.session_id))]
    return json.dumps(rows, ensure_ascii=False), {"sessions": rows}


CALLS: dict[str, Callable[[Memory, str, Mapping[str, Any]], tuple[str, Any]]] = {
    "remember": _remember, "recall": _recall, "search": _search, "forget": _forget, "sessions": _sessions}


def user_of(args: Mapping[str, Any], scope: str | None) -> str:
    """The user a call is for: the scope's, whatever the arguments say (naming one is refused), or the
    required ``user_id`` argument."""
    if scope is not None:
        if "user_id" in args:
            raise ToolFault("this server serves one user: 'user_id' is not an argument")
        return scope
    user = args.get("user_id")
    if not isinstance(user, str):
        raise ToolFault("'user_id' is required (a string): this server serves several users")
    return check_id(user, "user_id")


def call(memory: Memory, name: str, args: Mapping[str, Any] | None, scope: str | None) -> tuple[str, Any]:
    """Run tool ``name``: its text for the model and its structured data (or ``None``). Raises
    ``ToolFault`` for anything it could not do: an unknown tool or argument, bad input, a store fault."""
    spec = SPECS.get(name)
    if spec is None:
        raise ToolFault(f"no tool {name!r}; the tools are {', '.join(SPECS)}")
    args = dict(args or {})
    unknown = sorted(set(args) - set(spec.properties) - {"user_id"})  # user_id: user_of says
    if unknown:
        raise ToolFault(f"{name} takes no argument {', '.join(map(repr, unknown))}")
    try:
        user = user_of(args, scope)
        args.pop("user_id", None)
        return CALLS[name](memory, user, args)
    except ToolFault:
        raise
    except (CbMemoryError, ValueError) as exc:  # a typed error of the memory: the model may fix the call
        raise ToolFault(f"{name} failed: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a fault of the store: said, and the server goes on
        raise ToolFault(f"{name} failed: memory is unavailable ({type(exc).__name__}: {exc})") from None


def recall_prompt(memory: Memory, query: str, user: str, today: str | None = None) -> str:
    """The ``recall`` prompt's text: ``AgentMemory.recall(...).text`` for ``query`` (fails open)."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("the recall prompt needs a query")
    return memory.recall(query, user, today=_day(today, "today")).text


__all__ = ["CALLS", "MAX_HITS", "SPECS", "TOOLS", "Memory", "ToolFault", "ToolSpec", "call", "recall_prompt",
           "user_of"]
