"""Turning a session's messages into memory records (pure functions; no storage, no embedding).

Temporal anchoring is on by default: the indexed text of every record starts with the session date,
``[Sunday, 7 May 2023] Caroline: I went to the LGBTQ support group yesterday.``, so that "yesterday" can be
resolved against the day it was said. The raw text is kept separately and returned verbatim.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime

from ..dates import anchor_label
from ..dates.relative import date_resolver
from ..errors import InvalidInputError
from ..models import MemoryRecord, Message, frozen_mapping
from ..text import content_hash
from ..validation import check_annotations, check_id, check_role, check_text
from .config import DEFAULT_INGEST, IngestConfig

# Messages without a turn id are keyed "#<position>" (or "#<position>:<hash>" when appended); caller ids
# may not start with it, so a caller's id can never stand for (and replace) a generated one.
GENERATED_KEY_PREFIX = "#"


def record_id(user_id: str, session_id: str, kind: str, key: str) -> str:
    raw = "\x1f".join((user_id, session_id, kind, key)).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:32]


# What to call instead when a framework's message is given: the adapters convert them.
FRAMEWORK_HINTS = {
    "langchain_core": "; LangChain messages are stored with langchain_cbmemory.add_messages(memory, user_id, "
                      "session_id, messages)",
    "llama_index": "; LlamaIndex messages are stored with llamaindex_cbmemory.add_messages(memory, user_id, "
                   "session_id, messages)",
}


def validate_messages(messages: Sequence[Message | Mapping[str, object]]) -> list[Message]:
    """Accept ``Message`` objects or plain dicts (``role``, ``content``, optional ``speaker``, ``turn_id``,
    ``annotations``) and check every field before anything is stored. A dict cannot mark a turn as an echo
    (``restates`` is an unknown field): only ``cbmemory.agent.save`` links a turn, from what its step showed."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidInputError("messages must be a list of Message objects or dicts")
    if not messages:
        raise InvalidInputError("messages must not be empty")
    out: list[Message] = []
    seen: set[str] = set()
    for i, m in enumerate(messages):
        # the fields as given (a Message's are unchecked too), each checked below before a Message is built
        fields: tuple[object, object, object, object, object, object]
        if isinstance(m, Mapping):
            unknown = set(m) - {"role", "content", "speaker", "turn_id", "annotations"}
            if unknown:
                raise InvalidInputError(f"message {i} has unknown fields {sorted(unknown)}")
            if "role" not in m or "content" not in m:
                raise InvalidInputError(f"message {i} needs 'role' and 'content'")
            fields = (m["role"], m["content"], m.get("speaker"), m.get("turn_id"), m.get("annotations") or {}, ())
        elif isinstance(m, Message):
            fields = (m.role, m.content, m.speaker, m.turn_id, m.annotations, m.restates)
        else:
            raise InvalidInputError(f"message {i} is a {type(m).__name__}, not a Message or dict"
                                    + FRAMEWORK_HINTS.get(type(m).__module__.partition(".")[0], ""))
        role, content, speaker, turn_id, annotations, restates = fields
        role = check_role(role)
        content = check_text(content, f"message {i} content")
        speaker = None if speaker is None else check_id(speaker, f"message {i} speaker")
        if turn_id is not None:
            turn_id = check_id(turn_id, f"message {i} turn_id")
            if turn_id.startswith(GENERATED_KEY_PREFIX):
                raise InvalidInputError(
                    f"message {i} turn_id {turn_id!r} starts with {GENERATED_KEY_PREFIX!r}, which marks the "
                    "keys cbmemory gives messages without an id; choose another id")
            if turn_id in seen:
                raise InvalidInputError(f"turn_id {turn_id!r} appears twice in one batch")
            seen.add(turn_id)
        if isinstance(restates, (str, bytes)) or not isinstance(restates, (list, tuple)) or len(restates) > 64:
            raise InvalidInputError(f"message {i} restates must be a list of at most 64 record ids")
        ids = tuple(check_id(r, f"message {i} restates") for r in restates)
        out.append(Message(role, content, speaker, turn_id, frozen_mapping(check_annotations(annotations)), ids))
    return out


def _indexed(cfg: IngestConfig, msg: Message, occurred_at: datetime, previous: Message | None) -> str:
    who = msg.speaker or msg.role
    body = msg.content
    if cfg.date_rules is not None:
        body = date_resolver(cfg.date_rules)(body, occurred_at)
    extras = [f"[{k.replace('_', ' ')}: {msg.annotations[k]}]" for k in cfg.index_annotation_keys if k in msg.annotations]
    line = " ".join([f"{who}: {body}", *extras])
    if previous is not None:
        line = f"({previous.speaker or previous.role}: {previous.content}) {line}"
    return f"[{anchor_label(occurred_at)}] {line}" if cfg.anchor_dates else line


def build_records(
    user_id: str,
    session_id: str,
    messages: Sequence[Message],
    occurred_at: datetime,
    ingested_at: datetime,
    *,
    config: IngestConfig = DEFAULT_INGEST,
    start_position: int = 0,
    previous: Message | None = None,
    annotations: Mapping[str, str] | None = None,
    expires_at: datetime | None = None,
    append: bool = False,
) -> list[MemoryRecord]:
    """Records for ``messages`` (already validated), positions counting on from ``start_position``.

    ``previous`` is the message before the first one (for appends to a live session). With ``append``,
    a message without its own turn id is keyed by position and content, so a retried append is idempotent
    and two writers appending at the same position both keep their turns.
    Session ``annotations`` are merged under each message's own annotations.
    """
    session_ann = dict(annotations or {})
    records: list[MemoryRecord] = []

    def make(kind: str, group: list[tuple[int, Message]], prev: Message | None) -> MemoryRecord:
        pos, first = group[0]
        msgs = [m for _, m in group]
        text = "\n".join(m.content for m in msgs)
        lines = [_indexed(config, m, occurred_at, prev if j == 0 and config.with_previous_turn else None)
                 for j, m in enumerate(msgs)]
        if config.anchor_dates and len(lines) > 1:  # one date prefix per record
            lines = [lines[0]] + [line.split("] ", 1)[1] for line in lines[1:]]
        index_text = "\n".join(lines)
        merged = {**session_ann, **{k: v for m in msgs for k, v in m.annotations.items()}}
        ids = tuple(m.turn_id or (f"#{p}:{content_hash(m.content)[:16]}" if append else f"#{p}") for p, m in group)
        return MemoryRecord(
            record_id=record_id(user_id, session_id, kind, ids[0]),
            user_id=user_id,
            session_id=session_id,
            kind=kind,
            position=pos,
            role=first.role,
            text=text,
            index_text=index_text,
            occurred_at=occurred_at,
            ingested_at=ingested_at,
            content_hash=content_hash(index_text),
            turn_id=first.turn_id,
            speaker=first.speaker,
            annotations=frozen_mapping(merged),
            expires_at=expires_at,
            source_ids=ids if kind == "round" else first.restates,
        )

    numbered = [(start_position + i, m) for i, m in enumerate(messages)]
    if config.unit == "turn":
        groups = [[pm] for pm in numbered]
    else:  # each user message opens a round; the replies join the round before them
        groups = []
        for pm in numbered:
            if not groups or pm[1].role == "user":
                groups.append([pm])
            else:
                groups[-1].append(pm)
    prev = previous
    for group in groups:
        records.append(make(config.unit, group, prev))
        prev = group[-1][1]
    return records


__all__ = ["GENERATED_KEY_PREFIX", "build_records", "record_id", "validate_messages"]
