"""Pure mapping between LangGraph store items and cbmemory records. No I/O here.

An item ``(namespace, key, value)`` is stored as one cbmemory session holding one record:

- user: the namespace label at ``user_at`` (default 1: ``("memories", "alice")`` -> ``alice``,
  ``("memories", "alice", "s1")`` -> ``alice``); a one-label namespace ``("alice",)`` is its own user.
- session: ``lg-`` + a digest of (namespace, key), dated when the item was last put, so recall shows when a
  memory was written;
- record text: the value as JSON (lossless, and what is embedded and full-text indexed);
- record annotations: the key, the namespace and each of its prefixes (``lg.p0`` .. ``lg.pN``, so a prefix
  search is an exact annotation match any backend can run), creation time and TTL.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langgraph.store.base import Item, MatchCondition

from cbmemory import InvalidInputError, MemoryRecord

KEY, NAMESPACE, CREATED, TTL = "lg.key", "lg.ns", "lg.created", "lg.ttl"
SPEAKER = "memory"  # how a stored item reads in recalled context: "[date] memory: {...}"


def prefix_annotation(depth: int) -> str:
    return f"lg.p{depth}"


def encode_namespace(namespace: Sequence[str]) -> str:
    return json.dumps(list(namespace), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class NamespaceLayout:
    """Where the user id sits in a namespace (``user_at``, 0-based)."""

    user_at: int = 1

    def __post_init__(self) -> None:
        if self.user_at < 0:
            raise InvalidInputError("user_at must be 0 or more")

    def user_id(self, namespace: Sequence[str]) -> str:
        return namespace[min(self.user_at, len(namespace) - 1)]

    def pinned_user(self, prefix: Sequence[str]) -> str | None:
        """The one user every namespace under ``prefix`` belongs to, or ``None`` when it can be several."""
        return prefix[self.user_at] if len(prefix) > self.user_at else None


def item_session_id(namespace: Sequence[str], key: str) -> str:
    raw = json.dumps([list(namespace), key], ensure_ascii=False).encode("utf-8")
    return "lg-" + hashlib.sha256(raw).hexdigest()[:32]


def item_annotations(namespace: Sequence[str], key: str, created: datetime, ttl: float | None) -> dict[str, str]:
    ann = {KEY: key, NAMESPACE: encode_namespace(namespace), CREATED: created.isoformat()}
    ann.update({prefix_annotation(d): encode_namespace(namespace[:d]) for d in range(len(namespace) + 1)})
    if ttl is not None:
        ann[TTL] = repr(float(ttl))
    return ann


def prefix_filter(prefix: Sequence[str]) -> dict[str, str]:
    """Annotations that select the items whose namespace starts with ``prefix``."""
    return {prefix_annotation(len(prefix)): encode_namespace(prefix)}


def encode_value(value: Mapping[str, Any]) -> str:
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"a store value must be JSON-serialisable: {exc}") from exc


def record_ttl(record: MemoryRecord) -> float | None:
    raw = record.annotations.get(TTL)
    return float(raw) if raw is not None else None


def record_to_item(record: MemoryRecord) -> Item:
    ann = record.annotations
    return Item(value=json.loads(record.text), key=ann[KEY], namespace=tuple(json.loads(ann[NAMESPACE])),
                created_at=datetime.fromisoformat(ann[CREATED]), updated_at=record.occurred_at)


def is_item(record: MemoryRecord) -> bool:
    return KEY in record.annotations and NAMESPACE in record.annotations


# ------------------------------------------------------------------ filters (LangGraph's semantics)
def _apply_operator(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return value == operand
    if operator == "$ne":
        return value != operand
    if operator in ("$gt", "$gte", "$lt", "$lte"):
        try:
            a, b = float(value), float(operand)
        except (TypeError, ValueError):
            return False
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[operator]
    raise InvalidInputError(f"unsupported filter operator {operator!r}; use $eq $ne $gt $gte $lt $lte")


def value_matches(value: Any, wanted: Any) -> bool:
    """Whether a stored value matches a filter value: exact match, nested dicts, or ``$`` operators."""
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_apply_operator(value, op, operand) for op, operand in wanted.items())
        return isinstance(value, Mapping) and all(value_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(value) == len(wanted)
                and all(value_matches(a, b) for a, b in zip(value, wanted, strict=True)))
    return value == wanted


def item_matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    return not filter or all(value_matches(value.get(k), v) for k, v in filter.items())


def namespace_matches(namespace: Sequence[str], condition: MatchCondition) -> bool:
    """A namespace against a prefix or suffix pattern (``"*"`` matches any one label)."""
    path = condition.path
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise InvalidInputError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)
