"""Long messages in passages: their own records, linked to the message, so that what a question matches deep
inside a long message is found and shown (pure functions; no storage, no embedding).

A raw record (a turn or a round) longer than ``MAX_SHOWN_CHARS`` is shown cut, its embedding sees only its
first ~256 word pieces, and BM25 scores it as one long document; a fact at its 20,000th character is then
neither found nor shown (issue 29). Each such record also gets ``passage`` records: overlapping verbatim
slices of up to ``PASSAGE_CHARS`` characters (cut at spaces where near), about ``PASSAGE_STEP`` apart, so in
prose a sentence under ``PASSAGE_CHARS - PASSAGE_STEP`` characters lies whole in one of them. A passage is a derived
record like a summary: ``source_ids`` names the message's record, it shares its session, position, role,
speaker, turn id, dates and annotations, and it is indexed (embedded, full-text and sparse) as its own text
with the message's date and speaker. Its place in the message is ``PASSAGE_KEY`` in its annotations
(``kind:start:end:total``), which the context stage reads to say how much of the message is not shown. The
message's own record stays verbatim and whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..context import MAX_SHOWN_CHARS
from ..errors import InvalidInputError
from ..models import PASSAGE_KEY, RAW_KINDS, MemoryRecord, Message, frozen_mapping
from ..text import content_hash
from ..validation import check_annotation_limits
from .config import IngestConfig
from .records import _indexed, record_id

PASSAGE_CHARS = 1_000  # about what MiniLM embeds (256 word pieces of English); under MAX_SHOWN_CHARS: shown whole
PASSAGE_STEP = 800     # about 200 characters of overlap: a sentence that short is whole in some passage


def spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each passage of ``text`` (none for a text shown whole): each at most
    ``PASSAGE_CHARS`` long, ending at a space where one is in its last fifth; the next starts after a space
    in the fifth before ``PASSAGE_STEP``, so passages cover the text with no gap and, in prose, overlap by
    about ``PASSAGE_CHARS - PASSAGE_STEP`` characters."""
    if len(text) <= MAX_SHOWN_CHARS:
        return []
    out: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + PASSAGE_CHARS, len(text))
        if end < len(text):
            space = text.rfind(" ", start + PASSAGE_CHARS * 4 // 5, end)
            end = space if space > 0 else end
        out.append((start, end))
        if end >= len(text):
            return out
        nxt = start + PASSAGE_STEP
        space = text.rfind(" ", nxt - PASSAGE_CHARS // 5, nxt)  # at or before nxt: no gap before the last end
        start = space + 1 if space > 0 else nxt


def passages(record: MemoryRecord, config: IngestConfig) -> list[MemoryRecord]:
    """``record``'s passage records (none for a derived record, a text shown whole, or a record whose
    annotations leave no room for ``PASSAGE_KEY``: then it is found and shown as before)."""
    if record.kind not in RAW_KINDS:
        return []
    out = []
    total = len(record.text)
    for start, end in spans(record.text):
        annotations = {**record.annotations, PASSAGE_KEY: f"{record.kind}:{start}:{end}:{total}"}
        try:
            check_annotation_limits(annotations)
        except InvalidInputError:
            return []
        body = record.text[start:end]
        index_text = _indexed(config, Message(record.role, body, record.speaker, annotations=record.annotations),
                              record.occurred_at, None)
        out.append(dataclasses.replace(
            record, record_id=record_id(record.user_id, record.session_id, "passage", f"{record.record_id}@{start}"),
            kind="passage", text=body, index_text=index_text, content_hash=content_hash(index_text),
            annotations=frozen_mapping(annotations), source_ids=(record.record_id,)))
    return out


def with_passages(records: Sequence[MemoryRecord], config: IngestConfig) -> list[MemoryRecord]:
    """``records`` followed by the passages of the long ones among them."""
    return [*records, *(p for r in records for p in passages(r, config))]


__all__ = ["PASSAGE_CHARS", "PASSAGE_STEP", "passages", "spans", "with_passages"]
