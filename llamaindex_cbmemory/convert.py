"""Translation between LlamaIndex chat messages and cbmemory turns, hits and prompt text.

No I/O here but ``stored_copies``: the adapters fetch records and hits through ``AgentMemory`` and hand them
to these functions.

Turn ids. A ``ChatMessage`` has no id of its own, so each stored turn gets one made from its role and text
plus an ordinal (the core's content ids, ``cbmemory.integration.plan_turns``): ``li:<sha256(role,
text)[:16]>:<n>``, where ``n`` counts the earlier turns of the same session with the same role and text.
Putting the same history twice (``set`` with a history that repeats stored turns) therefore stores nothing
new, while a genuinely repeated message ("ok", "ok") is kept twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.schema import NodeWithScore, TextNode

from cbmemory import AgentMemory, ContextConfig, Hit, MemoryRecord, Message
from cbmemory.integration import (
    DEFAULT_CONTEXT,
    MAX_QUERY_CHARS,
    anchor_label,
    distinct_passages,
    format_context,
    inline,
    iso,
    memory_line,
    memory_prompt,
    passage,
    resolved_text,
)
from cbmemory.integration import plan_turns as core_plan_turns
from cbmemory.integration import stored_copies as core_stored_copies

CONVERSATION_ROLES = ("user", "assistant")
TURN_ID_PREFIX = "li:"


def role_of(message: ChatMessage) -> str:
    role = message.role
    return str(getattr(role, "value", role))


def text_of(message: ChatMessage) -> str:
    """The message's text blocks joined; tool calls, images and other blocks carry no text."""
    return "".join(b.text for b in message.blocks if isinstance(b, TextBlock))


def conversational(messages: Iterable[ChatMessage]) -> list[tuple[str, str]]:
    """(role, text) of the user and assistant messages that have text. Tool results, system messages and
    tool-call-only assistant messages (no text) are agent steps, not conversation, and are not stored."""
    out = []
    for m in messages:
        role, text = role_of(m), text_of(m)
        if role in CONVERSATION_ROLES and text.strip():
            out.append((role, text))
    return out


def stored_copies(memory: AgentMemory, user_id: str, session_id: str, messages: Sequence[ChatMessage]) -> list[MemoryRecord]:
    """What :func:`plan_turns` needs of the session to number an append of ``messages`` (``put``), read
    without the rest of it (``cbmemory.integration.stored_copies``): the stored copies of what it stores, not
    the session (a 20,000-turn session was read whole on every ``put``)."""
    return core_stored_copies(memory, user_id, session_id, conversational(messages), prefix=TURN_ID_PREFIX)


def plan_turns(messages: Sequence[ChatMessage], stored: Sequence[MemoryRecord], *, append: bool,
               last: MemoryRecord | None = None) -> list[Message]:
    """The turns of ``messages`` still to be stored in a session that already holds ``stored``, with their
    content ids (``cbmemory.integration.plan_turns``).

    ``append``: the messages come after the stored ones (``put``), so ordinals continue from the stored
    counts. Otherwise the messages are the session's history from its start (``set``), so ordinals count
    within ``messages`` and turns already stored are skipped. ``last``: the session's last stored turn, when
    the caller knows what a re-sent run is (``CbMemoryChatMemory.put``): a user message put again while the
    session's last turn is that same user message (its run got no reply: it failed) is that turn (the same
    id: stored once); a message the user says again after a reply is a new turn.
    """
    return core_plan_turns(conversational(messages), stored, prefix=TURN_ID_PREFIX, append=append, last=last)


def record_to_message(record: MemoryRecord) -> ChatMessage:
    return ChatMessage(role=record.role, content=record.text)


def window_messages(records: Sequence[MemoryRecord]) -> list[ChatMessage]:
    """Stored turns (oldest first) as chat messages; only user and assistant turns."""
    return [record_to_message(r) for r in records if r.role in CONVERSATION_ROLES]


def query_of(input: str | ChatMessage | None, recent: Sequence[ChatMessage]) -> str:
    """What to search memory for: the input if given, else the latest user message (agents call ``get``
    without an input on their first step). A very long message is cut to its last ``MAX_QUERY_CHARS``
    characters (where the question usually is) rather than failing the agent's step."""
    if isinstance(input, ChatMessage):
        text = text_of(input)
    elif isinstance(input, str) and input.strip():
        text = input
    else:
        text = next((text_of(m) for m in reversed(recent) if role_of(m) == "user" and text_of(m).strip()), "")
    return text.strip()[-MAX_QUERY_CHARS:]


def memory_text(hits: Sequence[Hit], today: datetime | None, context: ContextConfig = DEFAULT_CONTEXT) -> str:
    """The context stage's text for an agent: the memories as ``context`` renders them, how to read their
    dates, and "Today is ..." (when ``context`` says so and ``today`` is given); empty if nothing to say."""
    return memory_prompt(format_context(hits, context), today, context)


def hit_to_node(hit: Hit, context: ContextConfig = DEFAULT_CONTEXT) -> NodeWithScore:
    """A hit as a LlamaIndex node, for the LLM as the context stage renders it with ``context`` (the recipe's
    context settings). A hit alone: the text with its relative dates resolved in place, and ``date`` and
    ``speaker`` as metadata the LLM sees (no ``date`` when the recipe hands the model undated memories). A
    hit with context (the recipe's ``window``): its passage, the adjacent turns and itself in session order,
    one line each as ``memory_line`` writes it (``[date] speaker: text``), so each line carries its own date
    and speaker and the LLM sees no metadata; ``context_record_ids`` lists the adjacent turns' record ids.
    The hit's own verbatim text (``verbatim``), ids, ISO date and score are kept in metadata for code."""
    r = hit.record
    metadata: dict[str, Any] = {
        "date": anchor_label(r.occurred_at),
        "speaker": inline(r.speaker or r.role),  # shown to the LLM: one line, no brackets of its own
        "session_id": r.session_id,
        "session_date": iso(r.occurred_at),
        "turn_id": r.turn_id,
        "record_id": r.record_id,
        "role": r.role,
        "score": hit.score,
        "recipe": hit.recipe,
        "verbatim": r.text,
    }
    if hit.context:
        metadata["context_record_ids"] = [c.record_id for c in hit.context]
        for_llm: tuple[str, ...] = ()  # every line has its date and speaker
        text = "\n".join(memory_line(record, context) for record in passage(hit))
    else:
        for_llm = ("date", "speaker") if context.dates else ("speaker",)
        text = resolved_text(r, context.date_rules if context.resolve_dates else None)  # one line either way
    hidden = [k for k in metadata if k not in for_llm]
    node = TextNode(id_=r.record_id, text=text, metadata=metadata, excluded_llm_metadata_keys=hidden,
                    excluded_embed_metadata_keys=list(metadata))
    return NodeWithScore(node=node, score=hit.score)


def hits_to_nodes(hits: Sequence[Hit], context: ContextConfig = DEFAULT_CONTEXT) -> list[NodeWithScore]:
    """The hits as nodes (``hit_to_node``), each turn shown once across them, as in the context stage
    (``cbmemory.integration.distinct_passages``): a hit's context leaves out the turns that are hits
    themselves (each has its node) and the turns an earlier-ranked node already shows."""
    return [hit_to_node(h, context) for h in distinct_passages(hits)]


__all__ = [
    "CONVERSATION_ROLES", "conversational", "hit_to_node", "hits_to_nodes", "memory_text",
    "plan_turns", "query_of", "record_to_message", "role_of", "text_of", "window_messages",
]
