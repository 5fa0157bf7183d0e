"""The agent boundary: the two calls an agent framework makes around each model call, and the rule that
neither stops the agent.

- ``recall``: what the model reads from memory for this turn. It cuts an over-long query (its last
  ``MAX_QUERY_CHARS`` characters: where a question usually is), widens k by what the prompt already shows
  (at most ``MAX_EXTRA`` more), searches, drops what is shown, cuts to k, fits the recipe's token budget
  once and renders the context stage's text (memories, how to read their dates, "Today is ...").
- ``save``: store the turns of an agent step after the model has answered. What can be stored is stored:
  NUL and other control characters are dropped, lone surrogates replaced, an over-long text cut, a speaker
  cleaned, an id the store cannot take mapped to a stable one (``id:`` + its hash, the same on a retry).
  Nothing a user said is dropped silently: a turn is left out only as a retry (see ``save``), and every
  other change or loss is reported as a ``MemoryFault``.

Both *fail open*: an error (a store that is locked or gone, an input no cleaning can save) is logged as a
warning on the ``cbmemory.agent`` logger and handed to ``on_error`` as a ``MemoryFault``; ``recall`` then
returns no memories (the model is called without them, still told what day it is) and ``save`` stores what
it could. A memory layer may make an answer worse, never stop it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date as date_
from datetime import datetime
from typing import Any, Protocol

from .context import (
    ContextConfig,
    FormattedContext,
    fit,
    format_context,
    memory_prompt,
    shown_records,
    unseen,
)
from .dates import to_utc
from .errors import InvalidDateError, InvalidInputError, StoreUnavailableError
from .ingest import IngestConfig, record_id
from .ingest.echoes import RESTATES, can_echo, restated
from .models import ROLES, Hit, IngestResult, MemoryRecord, Message, SearchFilters
from .pending import MAX_PENDING, pending_for
from .retrieval.recipes import Recipe, get_recipe
from .store.base import MemoryStore
from .store.turns import reads_only, waiting_at_most
from .text import LONE_SURROGATE
from .validation import MAX_ID_CHARS, MAX_QUERY_CHARS, MAX_TEXT_CHARS, check_recall_call, check_save_call


class AgentMemory(Protocol):
    """What the seam needs of ``cbmemory.AgentMemory`` (named here so that this module does not import it)."""

    recipe: Recipe
    clock: Callable[[], datetime]
    store: MemoryStore
    ingest: IngestConfig

    def search(self, query: str, user_id: str, k: int | None = None, filters: Any = None, *,
               recipe: str | Recipe | None = None, reference_date: Any = None, current_only: bool = False,
               as_of: Any = None) -> list[Hit]: ...

    def add_messages(self, user_id: str, session_id: str, messages: Sequence[Message], *,
                     date: Any = None) -> IngestResult: ...

    def session_records(self, user_id: str, session_id: str | None = None, *, limit: int | None = None,
                        newest_first: bool = False) -> list[MemoryRecord]: ...

MAX_EXTRA = 50  # hits asked for beyond k, to make up for those the prompt already shows
MAX_K = 10_000
SAVE_WAIT = 2.0  # seconds a save waits for another connection's write lock; then its turns are held (pending.py)
LOG = logging.getLogger("cbmemory.agent")
_CONTROLS = str.maketrans({c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)})
_ID_CONTROLS = str.maketrans({c: None for c in (*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)})
_CUT = " […]"


@dataclass(frozen=True, slots=True)
class MemoryFault:
    """Something memory could not do for an agent step (it went on without it): ``stage`` is ``recall`` or
    ``save``; ``detail`` says what was lost; ``error`` is the exception, when one was raised."""

    stage: str
    detail: str
    user_id: str | None = None
    session_id: str | None = None
    error: BaseException | None = None


FaultHandler = Callable[[MemoryFault], None]


_PATH = re.compile(r"(?<![\w.])(?:[A-Za-z]:[\\/]|file:/|/)[^\s'\"]+")


def log_text(fault: MemoryFault) -> str:
    """What the warning log says of ``fault``: its detail with file paths and the user's and session's ids
    left out (quoted, or of 4 characters or more), which stay on the fault for ``on_error``."""
    text = _PATH.sub("<path>", fault.detail)
    for value, name in ((fault.user_id, "<user>"), (fault.session_id, "<session>")):
        if value:
            text = text.replace(repr(value), name)
            text = text.replace(value, name) if len(value) >= 4 else text
    return text


def report_fault(fault: MemoryFault, on_error: FaultHandler | None = None) -> None:
    """Log ``fault`` as a warning (``log_text``: no paths, no ids) and hand it to ``on_error`` (whose own
    errors are logged, not raised)."""
    LOG.warning("cbmemory %s: %s", fault.stage, log_text(fault),
                exc_info=fault.error is not None and LOG.isEnabledFor(logging.DEBUG))
    if on_error is not None:
        try:
            on_error(fault)
        except Exception:  # noqa: BLE001 - a failing hook must not stop the agent either
            LOG.exception("cbmemory: the on_error hook raised")


@dataclass(frozen=True, slots=True)
class Recall:
    """What one agent turn gets from memory: ``text`` for the model (empty when there is nothing to say),
    the ``context`` it was made from (its hits in the order shown), its ``hits`` best first, and ``fault``
    when recall failed open. ``step``: this recall's own token; the turns saved with it (``save(...,
    shown=recall)``) are one agent *step*, and a step re-sent with the same recall is stored once."""

    text: str
    context: FormattedContext
    hits: tuple[Hit, ...] = ()
    fault: MemoryFault | None = None
    config: ContextConfig | None = None  # how the memories were shown
    step: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex)


def search_query(text: str) -> str:
    """``text`` as a search can take it: lone surrogates replaced, NUL dropped, its last ``MAX_QUERY_CHARS``."""
    return LONE_SURROGATE.sub("\ufffd", text).replace("\x00", "").strip()[-MAX_QUERY_CHARS:]


def _seen(shown: Iterable[Message]) -> Callable[[MemoryRecord], bool]:
    ids, pairs = set(), set()
    for m in shown:
        if m.turn_id:
            ids.add(m.turn_id)
        pairs.add((m.role, m.content))
    return lambda r: (r.turn_id is not None and r.turn_id in ids) or (r.role, r.text) in pairs


def _when(value: datetime | date_ | str | None, what: str, stage: str, user_id: str, session_id: str | None,
          on_error: FaultHandler | None) -> datetime | None:
    """``value`` parsed as ``add_session`` parses a date (``None`` stays ``None``); one that does not parse is
    reported (a fault) and ``None`` is returned: the memory's clock is used instead, the answer goes on."""
    if value is None:
        return None
    try:
        return to_utc(value)
    except InvalidDateError as exc:
        report_fault(MemoryFault(stage, f"{what} {str(value)[:40]!r} is not a date ({exc}); the memory's clock "
                                 "is used", user_id, session_id, exc), on_error)
        return None


def recall(memory: AgentMemory, query: str, user_id: str, *, shown: Sequence[Message] = (),
           today: datetime | date_ | str | None = None, recipe: str | Recipe | None = None, k: int | None = None,
           filters: SearchFilters | None = None, context: ContextConfig | None = None,
           on_error: FaultHandler | None = None, current_only: bool = False,
           as_of: datetime | date_ | str | None = None) -> Recall:
    """The memories the model should read for ``query`` (see the module docstring). ``shown``: the messages
    the prompt already holds (matched to memories by turn id, or by role and text); ``today``: the day of
    the question ("Today is", and the reference of the recipe's date terms; default: the memory's clock);
    ``context``: how the memories are shown (default: the recipe's); ``k``: default the recipe's;
    ``filters``, ``current_only`` and ``as_of``: as ``AgentMemory.search`` takes them (without ``today``,
    ``as_of`` is "Today is" too). ``today`` is parsed as ``add_session`` parses a date; one that does not
    parse is reported and the clock used (an ``as_of`` that does not parse: no memories, a fault). A call wrong as written (``query`` not a string,
    ``user_id`` not a valid id, a wrong type, an unknown recipe) raises ``InvalidInputError`` at once; recall
    never writes to the store (``store.turns.reads_only``)."""
    check_recall_call(query, user_id, k, today, on_error, current_only, as_of)
    cfg = get_recipe(recipe) if recipe is not None else memory.recipe
    given, what = (today, "today") if today is not None else (as_of, "as_of")  # "Today is": as_of, if no today
    day = _when(given, what, "recall", user_id, None, on_error) or memory.clock()
    empty = FormattedContext("", 0, ())
    try:
        shows = context if context is not None else cfg.context
        q = search_query(query)
        if not q:
            return Recall(memory_prompt(empty, day, shows), empty)
        want = k if k is not None else cfg.retrieval.k
        wide = None if want is None else min(want + min(len(shown), MAX_EXTRA), MAX_K)
        # searched without the budget: it is fitted once, below, to what is left once the shown are dropped
        with reads_only():
            hits = memory.search(q, user_id, wide, filters, recipe=cfg.with_(token_budget=None), reference_date=day,
                                 current_only=current_only, as_of=as_of)
        fresh = unseen(hits, _seen(shown)) if shown else hits
        kept = fit(fresh[:want] if want is not None else fresh, cfg.retrieval.token_budget, shows)
        found = format_context(kept, shows)
        return Recall(memory_prompt(found, day, shows), found, tuple(kept), config=shows)
    except Exception as exc:  # noqa: BLE001 - recall fails open: the model is called without memories
        fault = MemoryFault("recall", f"no memories recalled ({type(exc).__name__}: {exc})", user_id, None, exc)
        report_fault(fault, on_error)
        return Recall(memory_prompt(empty, day, context or ContextConfig()), empty, (), fault)


def _clean_text(text: str) -> str:
    text = LONE_SURROGATE.sub("\ufffd", text).translate(_CONTROLS)
    return text if len(text) <= MAX_TEXT_CHARS else text[: MAX_TEXT_CHARS - len(_CUT)] + _CUT


def _clean_id(value: str) -> str:
    return LONE_SURROGATE.sub("\ufffd", value).translate(_ID_CONTROLS).strip()[:MAX_ID_CHARS]


def _stable_id(value: str) -> str:
    """An id the store takes for a message id it does not (too long, control characters, ``#...``)."""
    clean = _clean_id(value)
    if clean == value and not value.startswith("#"):
        return value
    return "id:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _derived(turn_id: str, text: str) -> str:
    """The id a text is stored under when its own id already holds another text (the same on a retry)."""
    digest = hashlib.sha256(f"{turn_id}\x1f{text}".encode("utf-8", "surrogatepass")).hexdigest()
    alt = f"{turn_id}~{digest[:12]}"
    return alt if len(alt) <= MAX_ID_CHARS else "id:" + digest[:32]


def _step_id(step: str, role: str, text: str, nth: int) -> str:
    """The id of a turn given without one in the step ``step``: the same when the step is re-sent."""
    return "step:" + hashlib.sha256(f"{step}\x1f{role}\x1f{text}\x1f{nth}".encode("utf-8", "surrogatepass")
                                    ).hexdigest()[:32]


@dataclass(slots=True)
class _Notes:
    """What ``save`` reports: ``lost`` (turns not stored, always reported) and ``changed`` (turn index ->
    how it is stored, reported only for the turns that were stored)."""

    lost: list[str] = dataclasses.field(default_factory=list)
    changed: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def change(self, turn: int, note: str) -> None:
        self.changed.setdefault(turn, []).append(note)


def _storable(messages: Iterable[Message], step: str | None) -> tuple[list[Message], _Notes]:
    """The messages as the store can take them (see the module docstring), and what was changed or left
    out. ``step``: the token of the step's ``Recall``; a turn without an id is given one made of it, its role
    and text (``step:...``), so that the same step re-sent is stored once."""
    out: list[Message] = []
    notes = _Notes()
    taken: dict[str, tuple[str, str]] = {}
    nth: Counter[tuple[str, str]] = Counter()
    for i, m in enumerate(messages):
        if m.role not in ROLES:
            notes.lost.append(f"message {i}: role {m.role!r} is not stored")
            continue
        text = _clean_text(m.content)
        if not text.strip():
            notes.lost.append(f"message {i}: no text left to store, not stored")
            continue
        at = len(out)
        if text != m.content:
            notes.change(at, f"message {i}: text stored cleaned or cut")
        speaker = (_clean_id(m.speaker) or None) if m.speaker is not None else None
        turn_id = None
        if m.turn_id:
            turn_id = _stable_id(m.turn_id)
            if turn_id != m.turn_id:
                notes.change(at, f"message {i}: id {m.turn_id[:40]!r} stored as {turn_id!r}")
        elif step:
            nth[(m.role, text)] += 1
            turn_id = _step_id(step, m.role, text, nth[(m.role, text)])
        if turn_id is not None and turn_id in taken:
            if taken[turn_id] == (m.role, text):
                notes.lost.append(f"message {i}: the same id and text sent twice in one step, stored once")
                continue
            old, turn_id = turn_id, _derived(turn_id, text)
            notes.change(at, f"message {i}: id {old[:40]!r} used twice in one step for different texts; this "
                         f"one stored as {turn_id!r}")
        if turn_id is not None:
            taken[turn_id] = (m.role, text)
        out.append(Message(m.role, text, speaker, turn_id, restates=m.restates))
    return out, notes


def _holds(record: MemoryRecord, turn: Message) -> bool:
    """Whether a stored record is ``turn`` stored before (a round's text starts with its first turn's)."""
    return record.role == turn.role and (record.text == turn.content or record.text.startswith(turn.content + "\n"))


def _stored(memory: AgentMemory, user_id: str, session_id: str, turn_ids: Iterable[str]) -> dict[str, MemoryRecord]:
    keys = {record_id(user_id, session_id, memory.ingest.unit, t): t for t in turn_ids}
    return {keys[r.record_id]: r for r in memory.store.get_records(user_id, list(keys))} if keys else {}


def unsent(memory: AgentMemory, user_id: str, session_id: str, turns: Sequence[Message],
           notes: _Notes | None = None) -> list[tuple[int, Message]]:
    """``turns`` (with their index) less the retries: a turn whose id the session already holds with the
    same role and text. A turn whose id the session holds with another text is not a retry: it is given a
    derived id (``<id>~<hash of its text>``, the same on a retry) and noted in ``notes``."""
    stored = _stored(memory, user_id, session_id, {t.turn_id for t in turns if t.turn_id})
    clashes = {t.turn_id: _derived(t.turn_id, t.content) for t in turns
               if t.turn_id in stored and not _holds(stored[t.turn_id], t)}
    stored.update(_stored(memory, user_id, session_id, clashes.values()))
    kept = []
    for i, t in enumerate(turns):
        if t.turn_id in clashes:
            alt = clashes[t.turn_id]
            if notes is not None:
                notes.change(i, f"id {t.turn_id[:40]!r} already holds another text in this session; this text "
                             f"stored as {alt!r}")
            t = dataclasses.replace(t, turn_id=alt)
        if t.turn_id in stored and _holds(stored[t.turn_id], t):
            continue  # a retry: stored already, as it is
        kept.append((i, t))
    return kept


def linked(turns: Sequence[Message], shown: Recall | None) -> list[Message]:
    """``turns`` with ``restates`` set from what the model was shown in their step (``shown``): only by it,
    a link given with a turn is dropped (an echo is hidden from retrieval: no caller marks one)."""
    records = shown_records(shown.context.hits) if shown is not None else []
    config = (shown.config if shown is not None else None) or ContextConfig()
    return [dataclasses.replace(t, restates=restated(t.content, records, config, role=t.role)
                                if records and can_echo(t) else ()) for t in turns]


def save(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[Message], *,
         date: datetime | date_ | str | None = None, shown: Recall | None = None,
         on_error: FaultHandler | None = None) -> IngestResult | None:
    """Append an agent step's turns to the session (``AgentMemory.add_messages``), never raising: what
    cannot be stored is reported (``MemoryFault``) and the rest is stored. ``None`` when nothing was stored.

    ``shown``: the ``Recall`` the model answered from. The turns saved with it are one agent **step**; a turn
    that only says again what it showed is stored linked to those memories (``cbmemory.ingest.echoes``), and
    retrieval shows the memories, not the echo. Retries are stored once, and only these: a turn whose id the
    session already holds with the same role and text, and a turn without an id re-sent in the same step
    (saved again with the same ``Recall``). Everything else is stored, repeats included ("yes" three times,
    under three ids or none); a turn whose id already holds another text is stored under a derived id
    (``<id>~<hash>``) and reported.

    A call wrong as written (ids not valid ids, ``messages`` not a list of ``Message``, a wrong type) raises
    ``InvalidInputError`` at once; a ``date`` that does not parse (as ``add_session`` parses dates) is
    reported and the clock used. Writes wait at most ``SAVE_WAIT`` (2 s) for another connection's write lock
    (the embedded store waits without blocking the process's reads); when it is held longer, the turns are
    held in this process (``cbmemory.pending``: at most ``MAX_PENDING`` per store) and stored first, in
    order, by the next save of the same user and session; the fault says so, and a held turn dropped is
    reported too."""
    check_save_call(user_id, session_id, messages, date, on_error)
    when = _when(date, "date", "save", user_id, session_id, on_error)
    with waiting_at_most(SAVE_WAIT):
        held = _flush(memory, user_id, session_id, on_error)
        return _save(memory, user_id, session_id, messages, when, shown, on_error, held)


def _flush(memory: AgentMemory, user_id: str, session_id: str, on_error: FaultHandler | None) -> bool:
    """Store the turns held for this session (``_hold``), oldest first; whether some are still held."""
    queue = pending_for(memory)
    key = (user_id, session_id)
    batches = queue.take(key)
    for i, (when, turns) in enumerate(batches):
        try:
            memory.add_messages(user_id, session_id, list(turns), date=when)
        except StoreUnavailableError:
            for batch in reversed(batches[i:]):
                _dropped(queue.keep(key, *batch, first=True), on_error)
            return True
        except Exception as exc:  # noqa: BLE001 - reported, and the save goes on
            report_fault(MemoryFault("save", f"{len(turns)} held turns not stored ({type(exc).__name__}: {exc})",
                                     user_id, session_id, exc), on_error)
    return False


def _hold(memory: AgentMemory, user_id: str, session_id: str, when: datetime | None, turns: Sequence[Message],
          exc: BaseException, on_error: FaultHandler | None) -> None:
    dropped = pending_for(memory).keep((user_id, session_id), when, tuple(turns)) if turns else []
    report_fault(MemoryFault("save", f"store busy ({type(exc).__name__}: {exc}); {len(turns)} turns held, stored "
                             "first at this session's next save", user_id, session_id, exc), on_error)
    _dropped(dropped, on_error)


def _dropped(dropped: Sequence[tuple[tuple[str, str], int]], on_error: FaultHandler | None) -> None:
    for (user, session), n in dropped:
        report_fault(MemoryFault("save", f"{n} held turns dropped (more than {MAX_PENDING} held)", user, session),
                     on_error)


def _save(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[Message], date: datetime | None,
          shown: Recall | None, on_error: FaultHandler | None, held: bool) -> IngestResult | None:
    turns: list[Message] = []
    try:
        checked, notes = _storable(messages, shown.step if shown is not None else None)
        if notes.lost:
            report_fault(MemoryFault("save", "; ".join(notes.lost), user_id, session_id), on_error)
        fresh = unsent(memory, user_id, session_id, checked, notes)
        turns = linked([t for _, t in fresh], shown)  # only what is stored is checked for echoes
        if not turns:
            return None
        if held:  # turns said before these wait for the store: these wait behind them
            _hold(memory, user_id, session_id, date, turns,
                  StoreUnavailableError("the store is still locked: earlier turns of this session are held"), on_error)
            return None
        result, failed = _append(memory, user_id, session_id, turns, date)
        done = [n for j, (i, _) in enumerate(fresh) if j not in failed for n in notes.changed.get(i, ())]
        if done:
            report_fault(MemoryFault("save", "; ".join(done), user_id, session_id), on_error)
        for j, exc in failed.items():
            report_fault(MemoryFault("save", f"turn {j + 1} of {len(turns)} not stored ({type(exc).__name__}: "
                                     f"{exc})", user_id, session_id, exc), on_error)
        return result
    except StoreUnavailableError as exc:  # locked past SAVE_WAIT (or gone): held for the next save
        _hold(memory, user_id, session_id, date, turns, exc, on_error)
        return None
    except Exception as exc:  # noqa: BLE001 - the model has answered: the turn must not be lost to an error
        report_fault(MemoryFault("save", f"turns not stored ({type(exc).__name__}: {exc})", user_id, session_id, exc),
                     on_error)
        return None


def _append(memory: AgentMemory, user_id: str, session_id: str, turns: list[Message],
            date: datetime | None) -> tuple[IngestResult | None, dict[int, Exception]]:
    """``add_messages`` of ``turns``; when the store refuses one (``InvalidInputError``), the others one by one,
    in order. The result, and the turns not stored (their index: the error). A store that stays locked
    (``StoreUnavailableError``) is raised: the caller holds the turns."""
    try:
        return memory.add_messages(user_id, session_id, turns, date=date), {}
    except InvalidInputError as exc:
        if len(turns) == 1:
            return None, {0: exc}
    failed: dict[int, Exception] = {}
    done = []
    for i, t in enumerate(turns):
        try:
            done.append(memory.add_messages(user_id, session_id, [t], date=date))
        except InvalidInputError as exc:
            failed[i] = exc
    result = IngestResult(sum(r.inserted for r in done), sum(r.replaced for r in done),
                          sum(r.unchanged for r in done), tuple(i for r in done for i in r.record_ids)) if done else None
    return result, failed


__all__ = ["MAX_EXTRA", "RESTATES", "SAVE_WAIT", "FaultHandler", "MemoryFault", "Recall", "can_echo", "linked", "recall",
           "report_fault", "restated", "save", "search_query", "unsent"]
