"""The context stage: how retrieved memories become the text a model reads, for every consumer (the core's
``AgentMemory.context``, the evaluation's reader, the LangChain and LlamaIndex adapters). One line format,
one date prefix, one relative-date resolution, one "Today is", one token-budget rule; what is shown is
part of the recipe (``Recipe.context``, a ``ContextConfig``)."""

from .config import READINGS, ContextConfig
from .prompt import answer_messages, date_guidance, memory_prompt, today_line
from .render import (
    DEFAULT_CONTEXT,
    MAX_SHOWN_CHARS,
    MAX_SHOWN_TOKENS,
    FormattedContext,
    context_tokens,
    count_tokens,
    distinct_passages,
    fit,
    format_context,
    header,
    inline,
    line_tokens,
    memory_line,
    passage,
    resolved_text,
    shown_records,
    unseen,
)

__all__ = [
    "DEFAULT_CONTEXT", "MAX_SHOWN_CHARS", "MAX_SHOWN_TOKENS", "READINGS", "ContextConfig", "FormattedContext", "answer_messages", "context_tokens",
    "count_tokens", "date_guidance", "distinct_passages", "fit", "format_context", "header", "inline", "line_tokens", "memory_line",
    "memory_prompt", "passage", "resolved_text", "shown_records", "today_line",
    "unseen",
]
