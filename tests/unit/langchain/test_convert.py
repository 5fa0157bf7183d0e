"""Unit layer (pure functions, no storage): message and hit conversion, namespace layout, and LangGraph's
filter and namespace-match semantics as the store applies them."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.store.base import MatchCondition

from cbmemory.context import ContextConfig
from cbmemory.errors import InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Hit
from langchain_cbmemory import _namespaces as ns
from langchain_cbmemory._convert import (
    context_value,
    conversation_turns,
    hit_to_document,
    latest_user_text,
    to_langchain_message,
    to_memory_message,
)

T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)


def test_messages_become_turns_with_their_ids_and_roles():
    m = to_memory_message(HumanMessage([{"type": "text", "text": "Hi "}, {"type": "text", "text": "there"}],
                                       id="h1", name="Alice"))
    assert (m.role, m.content, m.turn_id, m.speaker) == ("user", "Hi there", "h1", "Alice")
    assert to_memory_message(ToolMessage("ok", tool_call_id="c9")).annotations == {"tool_call_id": "c9"}
    assert to_memory_message(ChatMessage("hello", role="ai")).role == "assistant"
    assert to_memory_message(AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c"}])) is None
    with pytest.raises(InvalidInputError, match="role 'wizard'"):
        to_memory_message(ChatMessage("x", role="wizard"))


def test_conversation_turns_are_user_and_assistant_text_with_message_ids():
    msgs = [SystemMessage("s", id="0"), HumanMessage("a", id="1"), AIMessage("b", id="2"),
            AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c"}], id="3"),
            ToolMessage("t", tool_call_id="c", id="4"), AIMessage("d", id="5")]
    assert [(t.role, t.content, t.turn_id) for t in conversation_turns(msgs)] == [
        ("user", "a", "1"), ("assistant", "b", "2"), ("assistant", "d", "5")]


def test_latest_user_text():
    assert latest_user_text([HumanMessage("first"), AIMessage("x"), HumanMessage("  last "), AIMessage("y")]) == "last"
    assert latest_user_text([AIMessage("x")]) is None
    assert latest_user_text([HumanMessage("   ")]) is None


def test_records_become_messages_of_their_role():
    recs = build_records("u", "s", validate_messages([
        {"role": "user", "content": "hi", "turn_id": "t1", "speaker": "Alice"},
        {"role": "tool", "content": "42", "annotations": {"tool_call_id": "c1"}},
        {"role": "system", "content": "be nice"}]), T0, T0)
    user, tool_msg, system = (to_langchain_message(r) for r in recs)
    assert isinstance(user, HumanMessage) and (user.id, user.name) == ("t1", "Alice")
    assert isinstance(tool_msg, ToolMessage) and tool_msg.tool_call_id == "c1"
    assert isinstance(system, SystemMessage) and (system.content, system.id, system.name) == ("be nice", None, None)
    assert (user.content, tool_msg.content) == ("hi", "42") and tool_msg.id is None


def test_hit_document_metadata():
    [rec] = build_records("alice", "s1", validate_messages([{"role": "user", "content": "hi", "turn_id": "t1"}]),
                          T0, T0)
    doc = hit_to_document(Hit(rec, 0.5, recipe="bm25"))
    assert doc.page_content == "hi" and doc.id == rec.record_id
    assert doc.metadata == {"turn_id": "t1", "session_id": "s1", "session_date": "2023-05-07T13:56:00+00:00",
                            "date_label": "Sunday, 7 May 2023", "score": 0.5, "role": "user", "speaker": "user",
                            "record_id": rec.record_id, "recipe": "bm25", "user_id": "alice",
                            "memory": "[Sunday, 7 May 2023] user: hi"}
    undated = hit_to_document(Hit(rec, 0.5), ContextConfig(dates=False, resolve_dates=False))
    assert undated.metadata["memory"] == "user: hi"  # what a model reads follows the recipe's context


def test_context_value_reads_dicts_and_objects():
    class Ctx:
        user_id = "bob"

    assert context_value({"user_id": "alice"}, "user_id") == "alice"
    assert context_value(Ctx(), "user_id") == "bob"
    assert context_value(None, "user_id") is None and context_value({}, "user_id") is None


def test_namespace_layout_and_item_sessions():
    layout = ns.NamespaceLayout()
    assert layout.user_id(("memories", "alice", "s1")) == "alice"
    assert layout.user_id(("alice",)) == "alice"
    assert layout.pinned_user(("memories",)) is None and layout.pinned_user(("memories", "bob")) == "bob"
    assert ns.NamespaceLayout(0).user_id(("alice", "memories")) == "alice"
    with pytest.raises(InvalidInputError):
        ns.NamespaceLayout(-1)
    a, b = ns.item_session_id(("m", "a/b"), "c"), ns.item_session_id(("m", "a"), "b/c")
    assert a != b and a.startswith("lg-") and a == ns.item_session_id(("m", "a/b"), "c")
    ann = ns.item_annotations(("m", "alice"), "k", T0, 5.0)
    assert ann["lg.p0"] == "[]" and ann["lg.p1"] == '["m"]' and ann["lg.p2"] == ann["lg.ns"] == '["m", "alice"]'
    assert ns.prefix_filter(("m",)) == {"lg.p1": '["m"]'} and ann["lg.ttl"] == "5.0"


@pytest.mark.parametrize(("value", "wanted", "expected"), [
    ("a", "a", True), ("a", "b", False), (None, "a", False),
    (3, {"$gt": 2, "$lt": 4}, True), (3, {"$gte": 3.0}, True), (3, {"$lte": 2}, False), ("x", {"$gt": 1}, False),
    ("a", {"$ne": "b"}, True), ("a", {"$eq": "a"}, True),
    ({"x": {"y": 1}, "z": 2}, {"x": {"y": 1}}, True), ("flat", {"x": 1}, False),
    ([1, {"a": 2}], [1, {"a": 2}], True), ([1, 2], [1], False), ((1, 2), [1, 2], True),
])
def test_filter_values_follow_langgraph(value, wanted, expected):
    assert ns.value_matches(value, wanted) is expected


def test_item_filter_and_namespace_patterns():
    assert ns.item_matches({"a": 1, "b": 2}, {"a": 1}) and ns.item_matches({"a": 1}, None)
    assert not ns.item_matches({"a": 1}, {"a": 1, "b": 2})
    n = ("memories", "alice", "work")
    assert ns.namespace_matches(n, MatchCondition("prefix", ("memories", "*")))
    assert ns.namespace_matches(n, MatchCondition("suffix", ("*", "work")))
    assert not ns.namespace_matches(n, MatchCondition("prefix", ("alice",)))
    assert not ns.namespace_matches(("a",), MatchCondition("prefix", ("a", "b")))


def test_values_must_be_strict_json():
    assert ns.encode_value({"ü": [1, 2.5, None, True]}) == '{"ü": [1, 2.5, null, true]}'
    for bad in ({"x": float("nan")}, {"x": {1, 2}}, {"x": datetime.now()}):
        with pytest.raises(InvalidInputError, match="JSON"):
            ns.encode_value(bad)
