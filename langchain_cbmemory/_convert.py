"""Pure translations between LangChain objects and cbmemory's frozen models. No I/O here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from cbmemory import ContextConfig, Hit, InvalidInputError, MemoryRecord, Message
from cbmemory.integration import DEFAULT_CONTEXT, anchor_label, memory_line, passage

ROLE_OF = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}  # LangChain's message types
TOOL_CALL_ID = "tool_call_id"  # annotation keeping a tool message's call id


def message_text(message: BaseMessage) -> str:
    """The plain text of a message (content blocks joined; tool calls and images left out)."""
    return str(message.text)


def role_of(message: BaseMessage) -> str | None:
    """The cbmemory role of a LangChain message (``ROLE_OF``): by its type, or for a ``ChatMessage`` by its own
    role, where ``human`` and ``ai`` are read the same way; ``None`` for a message of another type."""
    if message.type == "chat":
        custom = getattr(message, "role", None)
        return ROLE_OF.get(custom, custom) if isinstance(custom, str) else None
    return ROLE_OF.get(message.type)


def to_memory_message(message: BaseMessage) -> Message | None:
    """A LangChain message as a cbmemory ``Message`` (``None`` when it carries no text, e.g. an AI message
    that only calls tools). The message id becomes the turn id, so saving it again changes nothing."""
    role = role_of(message)
    if role not in ("user", "assistant", "system", "tool"):
        raise InvalidInputError(f"cannot store a {type(message).__name__} with role {role!r}")
    text = message_text(message)
    if not text.strip():
        return None
    annotations = {TOOL_CALL_ID: message.tool_call_id} if isinstance(message, ToolMessage) else {}
    return Message(role, text, speaker=message.name or None, turn_id=message.id or None, annotations=annotations)


def to_memory_messages(messages: Iterable[BaseMessage]) -> list[Message]:
    return [m for m in (to_memory_message(x) for x in messages) if m is not None]


def to_langchain_message(record: MemoryRecord) -> BaseMessage:
    """A stored turn as the LangChain message of its role (speaker as ``name``, turn id as ``id``)."""
    common: dict[str, Any] = {"content": record.text, "id": record.turn_id}
    if record.speaker:
        common["name"] = record.speaker
    if record.role == "user":
        return HumanMessage(**common)
    if record.role == "assistant":
        return AIMessage(**common)
    if record.role == "tool":
        return ToolMessage(tool_call_id=record.annotations.get(TOOL_CALL_ID, record.turn_id or ""), **common)
    return SystemMessage(**common)


def conversation_turns(messages: Iterable[BaseMessage]) -> list[Message]:
    """The user and assistant turns of ``messages``: tool results, system messages and tool-call-only AI
    messages are not conversation turns. Their ids are the turn ids, so the core skips those already stored."""
    return to_memory_messages(m for m in messages if m.type in ("human", "ai"))


def answered(turns: Sequence[Message]) -> list[Message]:
    """``turns`` less the user messages of steps that failed and were re-sent: a user turn followed by the
    same text from the user with no reply between (a thread with a checkpointer keeps both attempts; a
    client re-sending builds the message again, under a new id). This is what a re-sent step is in a
    LangChain thread; a message the user says again after a reply is a new turn, stored."""
    return [t for t, after in zip(turns, [*turns[1:], None], strict=True)
            if not (after is not None and t.role == after.role == "user" and t.content == after.content)]


def latest_user_text(messages: Sequence[BaseMessage]) -> str | None:
    """The text of the last human message, or ``None`` when there is none (or it is empty)."""
    for m in reversed(messages):
        if m.type == "human":
            text = message_text(m).strip()
            return text or None
    return None


def hit_metadata(hit: Hit, context: ContextConfig = DEFAULT_CONTEXT) -> dict[str, Any]:
    """Where and when the hit was said, and ``memory``: what a model reads for it, as the context stage
    renders it with ``context`` (the recipe's context settings): its line, or with a window (``hit.context``)
    the lines of its passage (the adjacent turns and itself, in session order), joined by line breaks.
    ``context_turn_ids``, only for a hit with context: the turn ids of those adjacent turns (``None`` for a
    turn stored without one), in session order."""
    r = hit.record
    metadata: dict[str, Any] = {
        "turn_id": r.turn_id, "session_id": r.session_id, "session_date": r.occurred_at.isoformat(),
        "date_label": anchor_label(r.occurred_at), "score": hit.score, "role": r.role,
        "speaker": r.speaker or r.role, "record_id": r.record_id, "recipe": hit.recipe, "user_id": r.user_id,
        "memory": "\n".join(memory_line(record, context) for record in passage(hit)),
    }
    if hit.context:
        metadata["context_turn_ids"] = [c.turn_id for c in hit.context]
    return metadata


def hit_to_document(hit: Hit, context: ContextConfig = DEFAULT_CONTEXT) -> Document:
    """A hit as a ``Document``: the verbatim turn as content (its window's turns are not: they are in
    ``memory``), where and when it was said (and what a model reads) as metadata."""
    return Document(page_content=hit.record.text, metadata=hit_metadata(hit, context), id=hit.record.record_id)


def context_value(context: object, key: str) -> Any:
    """``key`` from a runtime context that is a mapping (``context={"user_id": ...}``) or an object
    (a dataclass or model with that attribute); ``None`` when absent."""
    if context is None:
        return None
    if isinstance(context, Mapping):
        return context.get(key)
    return getattr(context, key, None)
