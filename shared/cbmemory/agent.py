"""The agent boundary: the two calls an agent framework makes around each model call, and the rule that
neither stops the agent.

- ``recall``: what the model reads from memory for this turn. It cuts an over-long query (its last
  ``MAX_QUERY_CHARS`` characters: where a question usually is), then reads as ``read_context`` does (the
  one read pipeline, ``AgentMemory.context`` too): widens k by what the prompt already shows (at most
  ``MAX_EXTRA`` more), searches, drops what is shown, cuts to k, fits the context's token budget once and
  renders; then the context stage's text (memories, how to read their dates, "Today is ...").
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
import logging
import re
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date as date_
from datetime import datetime
from typing import Any, Protocol

from .context import (
    DEFAULT_CONTEXT,
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
from .ingest.echoes import can_echo, restated
from .models import Hit, IngestResult, MemoryRecord, Message, SearchFilters
from .pending import MAX_PENDING, pending_for
from .recipes import Recipe, get_recipe
from .store.base import MemoryStore
from .store.turns import reads_only, waiting_at_most
from .validation import (
    MAX_K,
    CleanNotes,
    check_recall_call,
    check_save_call,
    clean_query,
    derived_id,
    storable,
)


class SeamMemory(Protocol):
    """What the seam needs of a memory, ``cbmemory.AgentMemory`` (typed so, this module does not import it)."""

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
SAVE_WAIT = 2.0  # seconds a save waits for another connection's write lock; then its turns are held (pending.py)
LOG = logging.getLogger("cbmemory.agent")
search_query = clean_query  # the name it had here (validation.clean_query)


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
    config: ContextConfig = DEFAULT_CONTEXT  # how the memories were shown (or would have been, on a fault)
    step: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex)


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


def read_context(memory: SeamMemory, query: str, user_id: str, recipe: Recipe, config: ContextConfig, *,
                 shown: Sequence[Message] = (), k: int | None = None, filters: SearchFilters | None = None,
                 reference_date: datetime | None = None, current_only: bool = False,
                 as_of: datetime | date_ | str | None = None) -> tuple[list[Hit], FormattedContext]:
    """The one read pipeline (``recall`` and ``AgentMemory.context``): ``recipe``'s search for ``query``
    widened by what the prompt already shows (``shown``, at most ``MAX_EXTRA`` more; matched by turn id, or
    by role and text), less those, cut to k (``recipe``'s when ``None``), fitted once to ``config``'s token
    budget and rendered as ``config`` says. The hits kept (best first) and their context; raises what the
    search raises."""
    want = k if k is not None else recipe.retrieval.k
    wide = None if want is None else min(want + min(len(shown), MAX_EXTRA), MAX_K)
    # searched without the budget: it is fitted once, below, to what is left once the shown are dropped
    hits = memory.search(query, user_id, wide, filters, recipe=recipe.with_(token_budget=None),
                         reference_date=reference_date, current_only=current_only, as_of=as_of)
    fresh = unseen(hits, _seen(shown)) if shown else hits
    kept = fit(fresh[:want] if want is not None else fresh, config.token_budget, config)
    return kept, format_context(kept, config)


def recall(memory: SeamMemory, query: str, user_id: str, *, shown: Sequence[Message] = (),
           today: datetime | date_ | str | None = None, recipe: str | Recipe | None = None, k: int | None = None,
           filters: SearchFilters | None = None, context: ContextConfig | None = None,
           on_error: FaultHandler | None = None, current_only: bool = False,
           as_of: datetime | date_ | str | None = None) -> Recall:
    """The memories the model should read for ``query`` (see the module docstring). ``shown``: the messages
    the prompt already holds (matched to memories by turn id, or by role and text); ``today``: the day of
    the question ("Today is", and the reference of the recipe's date terms; default: the memory's clock);
    ``context``: how the memories are shown, its token budget included (default: the recipe's; derive one
    with ``recipe.context.with_(...)`` to keep the recipe's budget); ``k``: default the recipe's;
    ``filters``, ``current_only`` and ``as_of``: as ``AgentMemory.search`` takes them (without ``today``,
    ``as_of`` is "Today is" too). ``today`` is parsed as ``add_session`` parses a date; one that does not
    parse is reported and the clock used (an ``as_of`` that does not parse: no memories, a fault). A call
    wrong as written (``query`` not a string, ``user_id`` not a valid id, a wrong type, an unknown recipe)
    raises ``InvalidInputError`` at once; recall never writes to the store (``store.turns.reads_only``).
    ``Recall.config`` is the ``ContextConfig`` used."""
    check_recall_call(query, user_id, k, today, on_error, current_only, as_of)
    cfg = get_recipe(recipe) if recipe is not None else memory.recipe
    given, what = (today, "today") if today is not None else (as_of, "as_of")  # "Today is": as_of, if no today
    day = _when(given, what, "recall", user_id, None, on_error) or memory.clock()
    shows = context if context is not None else cfg.context
    empty = FormattedContext("", 0, ())
    try:
        q = clean_query(query)
        if not q:
            return Recall(memory_prompt(empty, day, shows), empty, config=shows)
        with reads_only():
            kept, found = read_context(memory, q, user_id, cfg, shows, shown=shown, k=k, filters=filters,
                                       reference_date=day, current_only=current_only, as_of=as_of)
        return Recall(memory_prompt(found, day, shows), found, tuple(kept), config=shows)
    except Exception as exc:  # noqa: BLE001 - recall fails open: the model is called without memories
        fault = MemoryFault("recall", f"no memories recalled ({type(exc).__name__}: {exc})", user_id, None, exc)
        report_fault(fault, on_error)
        return Recall(memory_prompt(empty, day, shows), empty, (), fault, config=shows)


def _holds(record: MemoryRecord, turn: Message) -> bool:
    """Whether a stored record is ``turn`` stored before (a round's text starts with its first turn's)."""
    return record.role == turn.role and (record.text == turn.content or record.text.startswith(turn.content + "\n"))


def _stored(memory: SeamMemory, user_id: str, session_id: str, turn_ids: Iterable[str]) -> dict[str, MemoryRecord]:
    keys = {record_id(user_id, session_id, memory.ingest.unit, t): t for t in turn_ids}
    return {keys[r.record_id]: r for r in memory.store.get_records(user_id, list(keys))} if keys else {}


def unsent(memory: SeamMemory, user_id: str, session_id: str, turns: Sequence[Message],
           notes: CleanNotes | None = None) -> list[tuple[int, Message]]:
    """``turns`` (with their index) less the retries: a turn whose id the session already holds with the
    same role and text. A turn whose id the session holds with another text is not a retry: it is given a
    derived id (``<id>~<hash of its text>``, the same on a retry) and noted in ``notes``."""
    stored = _stored(memory, user_id, session_id, {t.turn_id for t in turns if t.turn_id})
    clashes = {t.turn_id: derived_id(t.turn_id, t.content) for t in turns
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
    config = shown.config if shown is not None else DEFAULT_CONTEXT
    return [dataclasses.replace(t, restates=restated(t.content, records, config, role=t.role)
                                if records and can_echo(t) else ()) for t in turns]


def save(memory: SeamMemory, user_id: str, session_id: str, messages: Sequence[Message], *,
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


def _flush(memory: SeamMemory, user_id: str, session_id: str, on_error: FaultHandler | None) -> bool:
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


def _hold(memory: SeamMemory, user_id: str, session_id: str, when: datetime | None, turns: Sequence[Message],
          exc: BaseException, on_error: FaultHandler | None) -> None:
    dropped = pending_for(memory).keep((user_id, session_id), when, tuple(turns)) if turns else []
    report_fault(MemoryFault("save", f"store busy ({type(exc).__name__}: {exc}); {len(turns)} turns held, stored "
                             "first at this session's next save", user_id, session_id, exc), on_error)
    _dropped(dropped, on_error)


def _dropped(dropped: Sequence[tuple[tuple[str, str], int]], on_error: FaultHandler | None) -> None:
    for (user, session), n in dropped:
        report_fault(MemoryFault("save", f"{n} held turns dropped (more than {MAX_PENDING} held)", user, session),
                     on_error)


def _save(memory: SeamMemory, user_id: str, session_id: str, messages: Sequence[Message], date: datetime | None,
          shown: Recall | None, on_error: FaultHandler | None, held: bool) -> IngestResult | None:
    turns: list[Message] = []
    try:
        checked, notes = storable(messages, shown.step if shown is not None else None)
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


def _append(memory: SeamMemory, user_id: str, session_id: str, turns: list[Message],
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


__all__ = ["MAX_EXTRA", "SAVE_WAIT", "FaultHandler", "MemoryFault", "Recall", "SeamMemory", "linked", "read_context",
           "recall", "report_fault", "save", "search_query", "unsent"]
