"""The words around the memories: what day it is and how to read the dates, for an agent's system message
and for the evaluation's answering model. Which sentences appear follows the ``ContextConfig``."""

from __future__ import annotations

from datetime import datetime

from ..dates import anchor_label
from .config import ContextConfig
from .render import DEFAULT_CONTEXT, FormattedContext

ANSWER_INSTRUCTIONS = (
    "You answer questions about the user's past conversations using only the memories below. If the memories "
    "do not contain the answer, say that the information is not available. Answer briefly."
)
DATED = ("Each memory starts with the date of the conversation it comes from: a relative date in a memory "
         "('yesterday', 'last week') is relative to that date, not to today.")
RESOLVED = " Where a relative date could be worked out, the date it means follows it in brackets."
# How to read the dates of each layout that resolves them (``ContextConfig.layout``).
RESOLVED_LAYOUTS = {
    "session_first": DATED + RESOLVED,
    "resolved_first": (
        "Each memory starts with its date in brackets. When a memory speaks of another day ('yesterday', "
        "'last week'), the date it means comes first, then 'said' and the date of the conversation: the "
        "first date is when the thing happened."),
    "replace": (
        "Each memory starts with the date of the conversation it comes from. Where a memory spoke of another "
        "day ('yesterday', 'last week'), the date it means is shown in brackets in place of those words."),
    "session_last": (
        "Each memory starts with the date of the conversation it comes from, or, when it speaks of another "
        "day, ends with it ('said ...'); the date a relative date ('yesterday', 'last week') means follows "
        "it in brackets."),
}


def today_line(today: datetime) -> str:
    return f"Today is {anchor_label(today)}."


# What is true now (issue 31): which of two dated statements holds. Shipped by a rule written before the run
# (experiments/knowledge_updates/README.md): with the local 1.5B reader it changed none of 12 answers.
LATEST_HOLDS = " When the user's statements on the same matter differ, the latest one holds now."


def date_guidance(config: ContextConfig = DEFAULT_CONTEXT) -> str:
    """How to read the dates shown, and that the latest of the user's statements on one matter holds (empty
    for undated memories)."""
    if not config.dates:
        return ""
    return (RESOLVED_LAYOUTS[config.layout] if config.resolve_dates else DATED) + LATEST_HOLDS


def memory_prompt(context: FormattedContext, today: datetime | None,
                  config: ContextConfig = DEFAULT_CONTEXT) -> str:
    """What an agent's system message gains: the memories and how to read their dates (when there are
    any), then "Today is ..." (when the config says so and the day is known). Empty if nothing to say."""
    parts = [context.text, date_guidance(config)] if context.text else []
    if config.say_today and today is not None:
        parts.append(today_line(today))
    return "\n".join(p for p in parts if p)


def answer_messages(question: str, context: str, today: datetime | None,
                    config: ContextConfig = DEFAULT_CONTEXT) -> list[tuple[str, str]]:
    """(role, content) pairs for the answering model of the evaluation."""
    system = [ANSWER_INSTRUCTIONS, date_guidance(config)]
    if config.say_today and today is not None:
        system.append(today_line(today))
    return [("system", "\n".join(p for p in system if p)),
            ("user", f"{context}\n\nQuestion: {question}\nAnswer:")]
