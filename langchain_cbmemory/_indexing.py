"""Pure mapping of LangGraph's ``PutOp.index`` onto the records of one store item. No I/O here.

An item is one cbmemory session (``_namespaces``); what its records hold depends on how it was put:

- the whole value (``index=None`` on a store without ``index_fields``, or the paths ``["$"]``): one record
  whose text is the value as JSON, embedded and full-text indexed whole (every item's layout before
  ``PutOp.index`` was honoured, so those items read back unchanged);
- ``index=[paths]`` (or the store's ``index_fields``): one record per distinct text LangGraph's own
  ``get_text_at_path`` finds at those paths (``"text"``, ``"a.b"``, ``"items[*].name"``, ``"{a,b}"``,
  ``"$"``), so each text is embedded on its own and the item ranks by its best text, as LangGraph's stores
  pool an item's vectors. Only those texts are indexed; the value is kept, as JSON, in the first record's
  annotations (``lg.v0``, ``lg.v1``, ...: one annotation holds at most ``MAX_ANNOTATION_CHARS``);
- ``index=False``, or paths that find no text: one record with the value as JSON, marked ``lg.index=false``;
  the store reads and lists it but leaves it out of its query searches (as LangGraph's Postgres store
  leaves out items without vectors).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from langgraph.store.base import Item, get_text_at_path

from cbmemory import InvalidInputError, MemoryRecord
from cbmemory.integration import MAX_ANNOTATION_CHARS

from . import _namespaces as ns

INDEX, VALUE = "lg.index", "lg.v"  # the paths indexed (JSON list) or "false"; the value's JSON, in parts
UNINDEXED = "false"
WHOLE = ("$",)

IndexSpec = Literal[False] | tuple[str, ...] | None  # None: the whole value, as one text


def check_fields(fields: object, what: str) -> tuple[str, ...]:
    """LangGraph field paths: a non-empty list of non-empty strings (a bare string is refused)."""
    if isinstance(fields, (str, bytes)) or not isinstance(fields, Iterable) or isinstance(fields, Mapping):
        raise InvalidInputError(f"{what} must be a list of field paths such as ['text'], got {fields!r}")
    paths = tuple(fields)
    if not paths or any(not isinstance(p, str) or not p.strip() for p in paths):
        raise InvalidInputError(f"{what} must be a non-empty list of non-empty field paths, got {fields!r}")
    return paths


def index_spec(index: object, default: tuple[str, ...] | None) -> IndexSpec:
    """What a put indexes: ``False``, the paths named (the put's, else the store's ``default``), or ``None``
    for the whole value."""
    if index is False:
        return False
    if index is None:
        paths = default
    elif index is True:
        raise InvalidInputError("index must be False, a list of field paths or None, got True")
    else:
        paths = check_fields(index, "index")
    return None if paths is None or paths == WHOLE else paths


def item_texts(value: Mapping[str, Any], paths: Sequence[str]) -> list[str]:
    """The distinct non-blank texts at ``paths``, in order (NUL, which a record text cannot hold, read as a
    space)."""
    texts: list[str] = []
    for path in paths:
        for text in get_text_at_path(value, path):
            text = text.replace("\x00", " ")
            if text.strip() and text not in texts:
                texts.append(text)
    return texts


def value_annotations(encoded: str) -> dict[str, str]:
    """The value's JSON cut into annotations ``lg.v0``, ``lg.v1``, ... that each fit one annotation."""
    step = MAX_ANNOTATION_CHARS
    return {f"{VALUE}{i}": encoded[start:start + step] for i, start in enumerate(range(0, len(encoded), step))}


def layout(value: Mapping[str, Any], spec: IndexSpec) -> tuple[list[str], dict[str, str]]:
    """The texts of an item's records and the annotations its first record adds (see the module doc)."""
    whole = ns.encode_value(value)
    if spec is None:
        return [whole], {}
    if spec is False or not (texts := item_texts(value, spec)):
        return [whole], {INDEX: UNINDEXED}
    return texts, {INDEX: json.dumps(list(spec), ensure_ascii=False), **value_annotations(whole)}


def record_spec(record: MemoryRecord) -> IndexSpec:
    """How the item of ``record`` (its first record) was indexed, to write it again the same way."""
    raw = record.annotations.get(INDEX)
    if raw is None:
        return None
    return False if raw == UNINDEXED else tuple(json.loads(raw))


def searchable(record: MemoryRecord) -> bool:
    """Whether the item a first record stands for is in query searches."""
    return record.annotations.get(INDEX) != UNINDEXED


def record_to_item(record: MemoryRecord) -> Item:
    """The item an item's first record holds (its value from the annotations when the text is not it)."""
    ann = record.annotations
    if f"{VALUE}0" not in ann:
        return ns.record_to_item(record)
    parts: list[str] = []
    while (part := ann.get(f"{VALUE}{len(parts)}")) is not None:
        parts.append(part)
    return ns.record_to_item(dataclasses.replace(record, text="".join(parts)))


def record_namespace(record: MemoryRecord) -> tuple[str, ...]:
    return tuple(json.loads(record.annotations[ns.NAMESPACE]))


def first_records(records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
    """One record per item (its first, which holds the value), in the order the items first appear."""
    first: dict[str, MemoryRecord] = {}
    for r in records:
        have = first.get(r.session_id)
        if have is None or r.position < have.position:
            first[r.session_id] = r
    return list(first.values())


__all__ = ["index_spec", "layout", "record_spec", "record_to_item", "searchable"]
