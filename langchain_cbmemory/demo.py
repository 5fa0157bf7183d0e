"""The agent demo (``make demo``, ``python -m langchain_cbmemory.demo``, and ``cbmemory demo`` without ``--data``
when the study package is installed): a LangChain agent with memory, offline, step by step.

It stores the project's own small conversation (``cbmemory/data/demo_conversation.json``: four sessions of
one user, weeks apart, with relative dates, a fact that changes and small talk) in a fresh SQLite file, then
runs a LangChain ``create_agent`` agent with ``CbMemoryMiddleware`` through a fifth session of questions,
and shows for each what the model reads (the system message memory added) and what it answers.

The model is scripted (no LLM, no key): it quotes the user's memory line it was shown that shares the most
words with the question (the newest of a tie), or says it has none. With ``CBMEMORY_LLM_BASE_URL`` (an
OpenAI-compatible server; model ``CBMEMORY_LLM_MODEL``, default ``local-gguf``) or ``CBMEMORY_LLM_MODEL``
with ``OPENAI_API_KEY``, the same loop runs with that real model (``langchain-openai``: ``pip install "cbmemory[openai]"``). The LoCoMo
demo is ``cbmemory demo --data FILE`` (the study package, ``cbmemory_eval/demo.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from cbmemory import AgentMemory, MissingDependencyError
from cbmemory.integration import anchor_label, to_utc

LOCAL_MODEL = "local-gguf"  # the model name of ../shared/tools/local-llm (llama.cpp answers to any name)
SYSTEM_PROMPT = "You are a helpful assistant. Answer in one short sentence."
DB_NAME = "agent_demo.db"


def load_conversation() -> dict[str, Any]:
    """The demo conversation shipped in the core package's data."""
    text = resources.files("cbmemory").joinpath("data/demo_conversation.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


_MEMORY_LINE = re.compile(r"^(?:\[[^\]]+\] )?user: .*$", re.MULTILINE)  # a date first, or not
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and are at did do does i in is it me my now of on the to was we what when where which "
                  "who why how you your".split())


def _stems(text: str) -> set[str]:
    """Words of ``text`` less common ones, cut to 5 letters (a crude stemmer: adopt/adopted, visit/visits)."""
    return {w[:5] for w in _WORD.findall(text.lower()) if w not in _STOP}


def scripted_answer(question: str, system_text: str) -> str:
    """The scripted model's answer: the user's memory line in its system message that shares the most words
    with the question (the later one of a tie: a newer memory wins), quoted; or that it has none."""
    wanted = _stems(question)
    best, best_score = None, 0
    for line in _MEMORY_LINE.findall(system_text):
        score = len(wanted & _stems(line.partition("user: ")[2]))
        if score and score >= best_score:
            best, best_score = line, score
    return f"From memory: {best}" if best else "I have no memory of that."


def scripted_model() -> Any:
    """A tool-less chat model that answers with :func:`scripted_answer` (the user's last message, the system
    message)."""
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    class ScriptedReader(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "cbmemory-demo-scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedReader:
            return self

        def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                      run_manager: Any = None, **kwargs: Any) -> ChatResult:
            system = next((str(m.text) for m in messages if m.type == "system"), "")
            question = next((str(m.text) for m in reversed(messages) if m.type == "human"), "")
            reply = AIMessage(scripted_answer(question, system))
            return ChatResult(generations=[ChatGeneration(message=reply)])

    return ScriptedReader()


def real_model() -> tuple[Any, str] | None:
    """The real model the environment names, with its label, or ``None`` (the scripted one is used)."""
    base_url = os.environ.get("CBMEMORY_LLM_BASE_URL")
    name = os.environ.get("CBMEMORY_LLM_MODEL") or (LOCAL_MODEL if base_url else None)
    if not name:
        return None
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as exc:
        raise MissingDependencyError('a real model needs langchain-openai: pip install "cbmemory[openai]"',
                                     name="langchain_openai") from exc
    key = os.environ.get("OPENAI_API_KEY") or ("local" if base_url else None)
    model = ChatOpenAI(model=name, base_url=base_url, api_key=key, temperature=0, max_tokens=120, timeout=600)
    return model, f"{name} at {base_url}" if base_url else name


def _system_recorder(seen: list[str]) -> Any:
    """A middleware, placed after ``CbMemoryMiddleware``, that keeps the system message the model reads."""
    from langchain.agents.middleware import AgentMiddleware

    class SystemRecorder(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            seen.append(str(request.system_message.text) if request.system_message is not None else "")
            return handler(request)

    return SystemRecorder()


def _indent(text: str, prefix: str = "    | ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def run_agent_demo(out: str | Path = "out/demo", *, model: Any = None, stream: TextIO | None = None) -> int:
    """Store the demo conversation in a fresh ``out/agent_demo.db`` and run the agent through its questions.
    ``model``: a chat model to use instead of the environment's (or the scripted one)."""
    from langchain.agents import create_agent

    from .context import CbMemoryContext
    from .middleware import CbMemoryMiddleware

    def say(text: str = "") -> None:
        print(text, file=stream, flush=True)

    start = time.perf_counter()
    data = load_conversation()
    user, today = data["user_id"], data["today"]
    label = "given model"
    if model is None:
        found = real_model()
        model, label = found if found is not None else (scripted_model(), "scripted")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    db = out / DB_NAME
    for stale in out.glob(DB_NAME + "*"):  # each run starts from the same memory
        stale.unlink()
    say("cbmemory demo: a LangChain agent (create_agent + CbMemoryMiddleware) with memory, offline.")
    say(f"The model: {label}" + (" (no LLM: it quotes the user's memory it reads that shares the most words with "
                                 "the question; set CBMEMORY_LLM_BASE_URL for a real model)" if label == "scripted" else "") + ".")
    with AgentMemory.open(db) as memory:
        say(f"\n1. Memory: {len(data['sessions'])} past sessions of {user!r} stored in {db} "
            "(each turn verbatim, dated by its session):")
        for s in data["sessions"]:
            memory.add_session(user, s["session_id"], s["messages"], date=s["date"])
            say(f"   {anchor_label(to_utc(s['date']))}: "
                + " / ".join(m["content"] for m in s["messages"] if m["role"] == "user"))
        seen: list[str] = []
        agent = create_agent(model, tools=[], system_prompt=SYSTEM_PROMPT,
                             middleware=[CbMemoryMiddleware(memory), _system_recorder(seen)],
                             context_schema=CbMemoryContext)
        context = CbMemoryContext(user_id=user, session_id=today["session_id"], session_date=today["date"])
        say(f"\n2. A new session, {today['date'][:10]}: the agent is asked {len(today['questions'])} questions. "
            "Before each model call the middleware recalls memories for the user's message and adds them to "
            "the system message; after each turn it saves the new turns.")
        messages: list[Any] = []
        for i, q in enumerate(today["questions"], 1):
            messages = [*messages, ("user", q["question"])]
            result = agent.invoke({"messages": messages}, context=context)
            messages = result["messages"]
            say(f"\n[{i}] {user}: {q['question']}")
            say("  the model reads (system message):")
            say(_indent(seen[-1]))
            say(f"  the model answers: {messages[-1].text}")
            say(f"  (the right answer: {q['answer']})")
        saved = memory.session_records(user, today["session_id"])
        say(f"\n3. Saved: the {len(saved)} turns of this session are in memory now, for the next one.")
    say(f"\nDone in {time.perf_counter() - start:.1f} s. With a LoCoMo file: cbmemory demo --data FILE "
        "(recall against bm25 and vector on one conversation).")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m langchain_cbmemory.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="out/demo", help="folder of the demo's memory file (default: out/demo)")
    return run_agent_demo(parser.parse_args(argv).out)


if __name__ == "__main__":
    sys.exit(main())

__all__ = ["load_conversation", "scripted_answer", "main", "run_agent_demo", "scripted_model"]
