"""Unit layer (pure functions, no storage): how ``PutOp.index`` maps onto a store item's records
(``langchain_cbmemory._indexing``): which texts are indexed, where the value is kept, and reading the item
back from records built by cbmemory's own ingest."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.validation import MAX_ANNOTATION_CHARS
from langchain_cbmemory import _indexing as ix
from langchain_cbmemory import _namespaces as ns

T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)


def records_of(value, spec, namespace=("memories", "alice"), key="k"):
    """The records cbmemory's ingest builds for an item put with ``spec`` (as ``CbMemoryStore._write`` does)."""
    texts, extra = ix.layout(value, spec)
    common = ns.item_annotations(namespace, key, T0, None)
    messages = [{"role": "system", "content": t, "speaker": ns.SPEAKER,
                 "annotations": {**common, **(extra if i == 0 else {})}} for i, t in enumerate(texts)]
    return build_records("alice", ns.item_session_id(namespace, key), validate_messages(messages), T0, T0)


def test_index_spec_follows_langgraph():
    assert ix.index_spec(None, None) is None  # the whole value
    assert ix.index_spec(None, ("text",)) == ("text",)  # the store's default fields
    assert ix.index_spec(["a.b", "c[*]"], ("text",)) == ("a.b", "c[*]")  # the put's own, over the default
    assert ix.index_spec(False, ("text",)) is False
    assert ix.index_spec(["$"], None) is None and ix.index_spec(None, ("$",)) is None
    for bad in ("text", [], [""], ["  "], [1], True, {"text": 1}):
        with pytest.raises(InvalidInputError, match="index"):
            ix.index_spec(bad, None)


def test_whole_value_layout_is_the_json_value_as_before():
    value = {"content": "Biscuit is a beagle", "n": 1}
    [rec] = records_of(value, None)
    assert rec.text == ns.encode_value(value) and ix.INDEX not in rec.annotations
    assert ix.record_to_item(rec).value == value and ix.searchable(rec) and ix.record_spec(rec) is None


def test_fields_layout_indexes_each_text_and_keeps_the_value():
    value = {"text": "Biscuit is a beagle", "tags": ["dog", "dog", "pet"], "secret": "zebra", "blank": " "}
    recs = records_of(value, ("text", "tags[*]", "blank", "missing"))
    assert [r.text for r in recs] == ["Biscuit is a beagle", "dog", "pet"]  # distinct, non-blank, in order
    assert all("zebra" not in r.index_text for r in recs)
    first = ix.first_records(reversed(recs))[0]
    assert first.position == 0 and ix.record_to_item(first).value == value
    assert ix.record_spec(first) == ("text", "tags[*]", "blank", "missing") and ix.searchable(first)
    assert all(r.annotations[ns.KEY] == "k" for r in recs)  # every record is found by the prefix filter


def test_no_text_at_the_fields_or_index_false_is_stored_unsearchable():
    value = {"other": "x"}
    for spec in (False, ("text",)):
        [rec] = records_of(value, spec)
        assert rec.text == ns.encode_value(value) and not ix.searchable(rec) and ix.record_spec(rec) is False
        assert ix.record_to_item(rec).value == value


def test_a_value_longer_than_one_annotation_is_kept_in_parts():
    value = {"text": "short", "blob": "é" * (3 * MAX_ANNOTATION_CHARS), "nul": "a\x00b"}
    [rec] = records_of(value, ("text",))
    parts = [k for k in rec.annotations if k.startswith(ix.VALUE)]
    assert len(parts) == 4 and all(len(rec.annotations[k]) <= MAX_ANNOTATION_CHARS for k in parts)
    assert ix.record_to_item(rec).value == value
    assert ix.item_texts({"t": "a\x00b"}, ["t"]) == ["a b"]  # a record text cannot hold NUL; the value keeps it


def test_first_records_keeps_one_per_item_in_first_seen_order():
    a, b = records_of({"t": "1", "u": "2"}, ("t", "u"), key="a"), records_of({"t": "3"}, ("t",), key="b")
    firsts = ix.first_records([a[1], b[0], a[0]])
    assert [(r.annotations[ns.KEY], r.position) for r in firsts] == [("a", 0), ("b", 0)]
    assert ix.record_namespace(a[1]) == ("memories", "alice")
    assert json.loads(a[0].annotations[ix.INDEX]) == ["t", "u"]
