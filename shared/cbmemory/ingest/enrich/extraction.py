"""LLM calls for enrichment: the prompts (with ``PROMPT_VERSION``), the cache keyed by (user, prompt
version, input hash), and a bounded runner: a concurrency limit, a per-session call budget, retries with backoff,
JSON mode where the server supports it and the tolerant parser (``parsing``) otherwise.

Any LangChain chat model works (``ChatOpenAI`` for OpenAI, or with ``base_url`` for a local
OpenAI-compatible server); anything with ``invoke(messages)`` returning an object with ``content`` (or a
string) does. Nothing here imports LangChain: the model is handed in.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...dates import anchor_label
from ...llm import model_name
from ..config import PROMPT_VERSION
from ..slots import KEYS
from .cache import ExtractionCache, MemoryCache
from .parsing import (
    MalformedReplyError,
    parse_reply,
    validate_events,
    validate_round_summaries,
    validate_summary,
)

TASKS = ("summary", "round_summaries", "events")
RAW_EXCERPT = 2_000  # characters of a failed reply kept in the failure record

_JSON_ONLY = "Reply with one JSON object and nothing else: no prose, no Markdown."

SUMMARY_SYSTEM = (
    "You summarise one conversation session for a long-term memory system. Keep every name, place, title, "
    "number, date and recommendation exactly as said (write 'a tech-for-good convention', never just 'a "
    "convention'). Turn relative dates ('yesterday', 'last week') into absolute ones using the session "
    "date. Say who said or did what. At most {sentences} sentences. " + _JSON_ONLY +
    ' Shape: {{"summary": "..."}}'
)
ROUNDS_SYSTEM = (
    "You summarise each exchange (round) of a conversation for a long-term memory system, one or two "
    "sentences per round. Keep names, places, titles, numbers and recommendations exactly as said; turn "
    "relative dates into absolute ones using the session date. " + _JSON_ONLY +
    ' Shape: {"summaries": [{"round": "R1", "summary": "..."}]} with one entry per round label.'
)
EVENTS_SYSTEM = (
    "You extract events and facts from conversation lines for a long-term memory system. An event is "
    "something a person did, will do, or experienced; a fact is something lasting about a person (job, "
    "family, home, plans, likes, possessions). " + _JSON_ONLY + " Shape:\n"
    '{"events": [{"who": "name", "what": "one self-contained sentence", "when": "the time words as '
    'written, or null", "date": "YYYY-MM-DD, YYYY-MM or YYYY, or null", "where": "place or null", '
    '"key": "snake_case name of the matter, or null", "value": "what it is now, or null", "turns": ["T1"]}]}\n'
    "Rules: keep names, titles, places and numbers exactly as said. 'when' copies the time words from "
    "the line ('yesterday', 'last week', 'in June'); 'date' is what they mean counted from the session "
    "date. 'turns' lists the labels of the lines the event comes from. 'key' and 'value' only for a "
    "lasting fact about the speaker of the line themself, not about someone they mention: 'key' names the "
    "matter, never its value, and the same matter always gets the same key: one of " + ", ".join(KEYS) +
    " when the fact is one of these, else a short snake_case name; 'value' is what it is now ('Porto'); "
    "otherwise both null. Extract only from lines labelled "
    'T1, T2, ...; lines labelled C are earlier context. Nothing to extract: {"events": []}.'
)


@dataclass(frozen=True, slots=True)
class Line:
    """One labelled input line of a prompt (``T1``, ``C1``, ``R1``)."""

    label: str
    speaker: str
    text: str


def _lines(lines: Sequence[Line], max_chars: int) -> str:
    return "\n".join(f"{ln.label} {ln.speaker}: {ln.text[:max_chars]}" for ln in lines)


def summary_messages(session_date: datetime, lines: Sequence[Line], *, sentences: int = 8,
                     max_chars: int = 2_000) -> list[tuple[str, str]]:
    return [("system", SUMMARY_SYSTEM.format(sentences=sentences)),
            ("user", f"Session date: {anchor_label(session_date)}\n\n{_lines(lines, max_chars)}")]


def round_summary_messages(session_date: datetime, rounds: Sequence[tuple[str, Sequence[Line]]], *,
                           max_chars: int = 2_000) -> list[tuple[str, str]]:
    body = "\n\n".join(f"{label}:\n{_lines(lines, max_chars)}" for label, lines in rounds)
    return [("system", ROUNDS_SYSTEM), ("user", f"Session date: {anchor_label(session_date)}\n\n{body}")]


def events_messages(session_date: datetime, lines: Sequence[Line], context: Sequence[Line] = (), *,
                    max_chars: int = 2_000) -> list[tuple[str, str]]:
    parts = [f"Session date: {anchor_label(session_date)}"]
    if context:
        parts.append("Earlier context (do not extract):\n" + _lines(context, max_chars))
    parts.append("Lines:\n" + _lines(lines, max_chars))
    return [("system", EVENTS_SYSTEM), ("user", "\n\n".join(parts))]


def input_hash(model: str, task: str, messages: Sequence[tuple[str, str]]) -> str:
    """sha256 of everything that decides a reply: the model, the task and the exact prompt."""
    blob = json.dumps({"model": model, "task": task, "messages": [list(m) for m in messages]},
                      ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()




# ---------------------------------------------------------------------------- planned calls and outcomes
@dataclass(frozen=True, slots=True)
class CallSpec:
    """One planned model call: its task, the session it spends budget from, its prompt, and the labels
    the reply may use."""

    task: str
    session: tuple[str, str]  # (user_id, session_id)
    messages: tuple[tuple[str, str], ...]
    labels: tuple[str, ...]
    prompt_version: str = PROMPT_VERSION


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one planned call. ``status``: ``cached``, ``ok``, ``repaired``, ``failed`` or
    ``budget`` (not made: the session's call budget was spent). ``value`` is the validated result:
    a list of ``ExtractedEvent`` (events), a string (summary) or a label -> summary dict (rounds)."""

    spec: CallSpec
    status: str
    value: Any = None
    error: str | None = None
    raw: str = ""
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    dropped: int = 0
    hash: str = ""


# ---------------------------------------------------------------------------- the runner
def reply_text(reply: Any) -> str:
    content = getattr(reply, "content", reply)
    if isinstance(content, list):  # content blocks
        content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def _usage(reply: Any) -> tuple[int, int]:
    usage = getattr(reply, "usage_metadata", None) or {}
    if isinstance(usage, Mapping):
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return 0, 0


def validate(task: str, text: str, labels: Sequence[str]) -> tuple[Any, bool, int]:
    """(validated value, repaired?, items dropped) of a reply, or ``MalformedReplyError``."""
    if task == "summary":
        try:
            parsed = parse_reply(text)
        except MalformedReplyError:
            parsed = None
        summary, repaired = validate_summary(parsed, text)
        return summary, repaired, 0
    parsed = parse_reply(text)
    if task == "events":
        events, dropped = validate_events(parsed.value, labels)
        return events, parsed.repaired, dropped
    if task == "round_summaries":
        rounds, dropped = validate_round_summaries(parsed.value, labels)
        if not rounds:
            raise MalformedReplyError("no round summary with a known label")
        return rounds, parsed.repaired, dropped
    raise MalformedReplyError(f"unknown task {task!r}")


REASK = ("Your reply could not be read as the JSON asked for ({error}). Reply again with only the JSON "
         "object, in the shape given in the instructions.")


@dataclass
class RunnerStats:
    """Totals over the runner's life (mutable: a runtime counter, not a model)."""

    calls: int = 0
    cached: int = 0
    ok: int = 0
    repaired: int = 0
    failed: int = 0
    budget_skipped: int = 0
    retries: int = 0
    reasks: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    json_mode: str = "untried"
    peak_concurrency: int = 0
    notes: list[str] = field(default_factory=list)


class LLMRunner:
    """Runs planned calls against one chat model, within bounds.

    - ``max_concurrency``: calls in flight at once (threads; the model's ``invoke`` is called from them).
    - ``calls_per_session``: model invocations (retries and re-asks included) one session may spend over
      this runner's life; what is left unplanned is recorded as a ``budget`` failure.
    - ``max_retries`` / ``backoff_s``: an exception from the model is retried after ``backoff_s * 2**i``.
    - ``json_mode``: ``auto`` asks for JSON mode (``response_format={"type": "json_object"}``) and falls
      back to plain text for good if the server refuses it; ``on`` / ``off`` force it.
    - ``reask``: one more call, quoting the parse error, when a reply cannot be read even after repair.
    - ``cache``: validated results by (user, prompt version, input hash); hits cost no call and no budget,
      and a user never hits another user's entry (the cache's speed would tell what another user wrote).
    """

    def __init__(self, llm: Any, *, cache: ExtractionCache | None = None, max_concurrency: int = 4,
                 calls_per_session: int = 64, max_retries: int = 2, backoff_s: float = 1.0,
                 json_mode: str = "auto", reask: bool = True, sleep: Callable[[float], None] = time.sleep,
                 model: str | None = None):
        if json_mode not in ("auto", "on", "off"):
            raise ValueError(f"json_mode must be 'auto', 'on' or 'off', got {json_mode!r}")
        if max_concurrency < 1 or calls_per_session < 0 or max_retries < 0 or backoff_s < 0:
            raise ValueError("limits must be positive (max_concurrency >= 1, the others >= 0)")
        self.llm = llm
        self.model = model or model_name(llm)
        self.cache: ExtractionCache = cache if cache is not None else MemoryCache()
        self.max_concurrency, self.calls_per_session = max_concurrency, calls_per_session
        self.max_retries, self.backoff_s, self.reask, self.sleep = max_retries, backoff_s, reask, sleep
        self._json = {"auto": None, "on": True, "off": False}[json_mode]
        self.json_mode = json_mode
        self.stats = RunnerStats(json_mode=json_mode if json_mode != "auto" else "untried")
        self._spent: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()
        self._in_flight = 0

    # -- bounds
    def spent(self, user_id: str, session_id: str) -> int:
        with self._lock:
            return self._spent.get((user_id, session_id), 0)

    def _take(self, session: tuple[str, str]) -> bool:
        with self._lock:
            used = self._spent.get(session, 0)
            if used >= self.calls_per_session:
                return False
            self._spent[session] = used + 1
            self.stats.calls += 1
            return True

    def _invoke(self, messages: list[tuple[str, str]], use_json: bool) -> Any:
        with self._lock:
            self._in_flight += 1
            self.stats.peak_concurrency = max(self.stats.peak_concurrency, self._in_flight)
        try:
            runnable = self.llm.bind(response_format={"type": "json_object"}) if use_json else self.llm
            return runnable.invoke(messages)
        finally:
            with self._lock:
                self._in_flight -= 1

    # -- one call
    def _call(self, spec: CallSpec, messages: list[tuple[str, str]]) -> tuple[Any, int, str | None]:
        """One reply with retries: (reply or None, invocations made, last error)."""
        made, error = 0, None
        for attempt in range(self.max_retries + 1):
            want_json = self._json is not False and self.json_mode != "off"
            if not self._take(spec.session):
                return None, made, error or f"call budget of {self.calls_per_session} per session spent"
            made += 1
            try:
                reply = self._invoke(messages, want_json)
                if want_json and self._json is None:
                    self._json = True
                    self.stats.json_mode = "on"
                return reply, made, None
            except Exception as exc:  # the model's errors are many and untyped; all are retried
                error = f"{type(exc).__name__}: {exc}"[:500]
                if want_json and self._json is None and self.json_mode == "auto":
                    # maybe the server refuses JSON mode: try the same call without it, now
                    if not self._take(spec.session):
                        return None, made, error
                    made += 1
                    try:
                        reply = self._invoke(messages, False)
                    except Exception as exc2:
                        error = f"{type(exc2).__name__}: {exc2}"[:500]
                    else:
                        self._json = False
                        self.stats.json_mode = "off (refused)"
                        self.stats.notes.append(f"JSON mode refused by {self.model}: {error}")
                        return reply, made, None
            if attempt < self.max_retries:
                with self._lock:
                    self.stats.retries += 1
                self.sleep(self.backoff_s * (2 ** attempt))
        return None, made, error

    def cached(self, spec: CallSpec) -> Any | None:
        """The cached result of a planned call, or ``None`` (never calls the model)."""
        return self.cache.get(spec.session[0], spec.prompt_version, input_hash(self.model, spec.task, spec.messages))

    def run_one(self, spec: CallSpec) -> Outcome:
        key = input_hash(self.model, spec.task, spec.messages)
        hit = self.cache.get(spec.session[0], spec.prompt_version, key)
        if hit is not None:
            with self._lock:
                self.stats.cached += 1
            return Outcome(spec, "cached", hit, hash=key)
        messages = list(spec.messages)
        calls, tokens_in, tokens_out, raw = 0, 0, 0, ""
        for ask in range(2 if self.reask else 1):
            reply, made, error = self._call(spec, messages)
            calls += made
            if reply is None:
                status = "budget" if error and "budget" in error and made == 0 else "failed"
                return self._failed(spec, key, status, error or "no reply", raw, calls, tokens_in, tokens_out)
            t_in, t_out = _usage(reply)
            tokens_in, tokens_out = tokens_in + t_in, tokens_out + t_out
            raw = reply_text(reply)
            try:
                value, repaired, dropped = validate(spec.task, raw, spec.labels)
            except MalformedReplyError as exc:
                error = str(exc)
                if ask == 0 and self.reask:
                    with self._lock:
                        self.stats.reasks += 1
                    messages = [*spec.messages, ("assistant", raw[:RAW_EXCERPT]), ("user", REASK.format(error=error))]
                    continue
                return self._failed(spec, key, "failed", f"malformed reply: {error}", raw, calls, tokens_in,
                                    tokens_out)
            user_id, session_id = spec.session
            self.cache.put(user_id, session_id, spec.prompt_version, key, spec.task, value, raw)
            with self._lock:
                self.stats.repaired += int(repaired or ask > 0)
                self.stats.ok += int(not (repaired or ask > 0))
                self.stats.input_tokens += tokens_in
                self.stats.output_tokens += tokens_out
            return Outcome(spec, "repaired" if repaired or ask > 0 else "ok", value, raw=raw, calls=calls,
                           input_tokens=tokens_in, output_tokens=tokens_out, dropped=dropped, hash=key)
        raise AssertionError("unreachable")  # pragma: no cover

    def _failed(self, spec: CallSpec, key: str, status: str, error: str, raw: str, calls: int, t_in: int,
                t_out: int) -> Outcome:
        with self._lock:
            if status == "budget":
                self.stats.budget_skipped += 1
            else:
                self.stats.failed += 1
            self.stats.input_tokens += t_in
            self.stats.output_tokens += t_out
        return Outcome(spec, status, None, error, raw[:RAW_EXCERPT], calls, t_in, t_out, hash=key)

    def run(self, specs: Sequence[CallSpec]) -> list[Outcome]:
        """Every planned call, at most ``max_concurrency`` at once; outcomes in the order of ``specs``."""
        if not specs:
            return []
        if self.max_concurrency == 1 or len(specs) == 1:
            return [self.run_one(s) for s in specs]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(specs))) as pool:
            return list(pool.map(self.run_one, specs))


__all__ = ["TASKS", "CallSpec", "LLMRunner", "Line", "Outcome", "RunnerStats", "events_messages", "input_hash",
           "model_name", "round_summary_messages", "summary_messages", "validate"]
