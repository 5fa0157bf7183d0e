"""Helpers of the enrichment tests (unit, integration and eval tiers; not a test module): a scripted
LangChain chat model (a real ``BaseChatModel``, so ``bind(response_format=...)`` goes through LangChain as it
would for ``ChatOpenAI``) and a rule-driven extractor that answers the events / summary prompts from the
lines it is shown."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cbmemory.ingest.enrich.extraction import CallSpec, Line, LLMRunner, events_messages

LINE = re.compile(r"^(T\d+|R\d+\.\d+) ([^:\n]+): (.*)$", re.MULTILINE)
_lock = threading.Lock()


def make_scripted_chat(respond: Callable[[list[tuple[str, str]], dict[str, Any], int], Any], *,
                       name: str = "scripted-llm", delay: float = 0.0):
    """A chat model whose reply to call n (1-based) is ``respond(messages, kwargs, n)``: a string, or an
    exception instance to raise. It counts calls, records kwargs and the peak number of calls in flight."""
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptedChatModel(BaseChatModel):
        model_name: str = name
        calls: int = 0
        kwargs_seen: list = []
        in_flight: int = 0
        peak: int = 0

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            with _lock:
                self.calls += 1
                n = self.calls
                self.kwargs_seen.append(dict(kwargs))
                self.in_flight += 1
                self.peak = max(self.peak, self.in_flight)
            try:
                if delay:
                    time.sleep(delay)
                out = respond([(m.type, str(m.content)) for m in messages], kwargs, n)
            finally:
                with _lock:
                    self.in_flight -= 1
            if isinstance(out, BaseException):
                raise out
            msg = AIMessage(content=out, usage_metadata={"input_tokens": 100, "output_tokens": 20,
                                                         "total_tokens": 120})
            return ChatResult(generations=[ChatGeneration(message=msg)])

    return ScriptedChatModel()


def lines_of(messages: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(label, speaker, text) of the T-lines (events, summaries) or R-lines (rounds) of the last user prompt."""
    user = [c for role, c in messages if role == "human"][-1]
    body = user.split("Lines:\n", 1)[-1]
    return LINE.findall(body)


WHEN = re.compile(r"\b(yesterday|last week|last Friday|two weeks ago|next month|last year)\b", re.IGNORECASE)


def rule_extractor(messages: list[tuple[str, str]], kwargs: dict[str, Any] | None = None, n: int = 0) -> str:
    """A well-behaved model: one event per line mentioning a verb of doing, with its time words; a summary
    naming every speaker's first line; one summary per round."""
    system = messages[0][1]
    lines = lines_of(messages)
    if "extract events" in system:
        events = []
        for label, speaker, text in lines:
            verb = re.search(r"\b(went|bought|ran|painted|adopted|moved|visited|started)\b", text)
            if verb:
                m = WHEN.search(text)
                what = f"{speaker} {text[verb.start():].rstrip('.!')}"
                events.append({"who": speaker, "what": what, "when": m.group(0) if m else None,
                               "date": None, "where": None, "turns": [label]})
        return json.dumps({"events": events})
    if "each exchange (round)" in system:
        labels = sorted({lb.split(".")[0] for lb, _, _ in lines})
        return json.dumps({"summaries": [{"round": lb, "summary": f"round {lb} summary"} for lb in labels]})
    return json.dumps({"summary": " ".join(f"{s} said: {t}" for _, s, t in lines[:2])})


# One extraction call and a runner that never sleeps, shared by the runner's unit and cache tests.
SESSION_DATE = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
EVENTS_REPLY = json.dumps({"events": [{"who": "Mel", "what": "Mel ran a 5k", "turns": ["T1"]}]})


def events_spec(text: str = "I ran a 5k yesterday.", session: str = "s1", version: str = "enrich-v1",
                user: str = "u") -> CallSpec:
    msgs = events_messages(SESSION_DATE, [Line("T1", "Mel", text)])
    return CallSpec("events", (user, session), tuple(msgs), ("T1",), version)


def quick_runner(llm: Any, **kw: Any) -> LLMRunner:
    kw.setdefault("sleep", lambda s: None)
    return LLMRunner(llm, **kw)


def file_bytes(path: Path) -> bytes:
    """A SQLite file's bytes, with its WAL and shared-memory files when present (erasure checks)."""
    return b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal"),
                                             path.with_name(path.name + "-shm")) if p.exists())
