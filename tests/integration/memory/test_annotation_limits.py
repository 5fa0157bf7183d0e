"""Integration layer: the annotation limits through ``AgentMemory`` on a real SQLite file (issue 22, break 5).
The break: 20 turns with 10,000 session annotation keys of 4 KB each were accepted (823 MB of file, then
20 s and 2.5 GB for every search of that user). Now such a session, or messages whose merged annotations
outgrow a record's limits, are refused with an ``InvalidInputError`` naming the limit, before anything is
stored; at the limits, everything is stored and a 16-pair filter finds it."""

from __future__ import annotations

import pytest

from cbmemory import InvalidInputError, SearchFilters
from cbmemory.validation import MAX_ANNOTATION_KEYS, MAX_FILTER_ANNOTATIONS

TURNS = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} about the garden",
          "turn_id": f"t{i}"} for i in range(20)]


def _nothing_stored(memory, user):
    assert memory.store.count(user) == 0 and memory.store.list_sessions(user) == []
    assert memory.search("garden", user, k=5) == []


def test_the_issues_session_of_ten_thousand_keys_is_refused_and_nothing_is_stored(memory):
    huge = {f"key{i}": "x" * 4_000 for i in range(10_000)}
    with pytest.raises(InvalidInputError, match="MAX_ANNOTATION_KEYS"):
        memory.add_session("u", "s1", TURNS, date="2023-05-08", annotations=huge)
    few_but_large = {f"key{i}": "x" * 4_000 for i in range(17)}  # 68 KB
    with pytest.raises(InvalidInputError, match="MAX_ANNOTATION_BYTES"):
        memory.add_session("u", "s1", TURNS, date="2023-05-08", annotations=few_but_large)
    _nothing_stored(memory, "u")


def test_a_record_whose_merged_annotations_outgrow_the_limit_is_refused(memory):
    """Each mapping is within the limits, but a turn holds its session's and its own: 40 + 40 keys."""
    session = {f"s{i}": "v" for i in range(40)}
    turns = [{**t, "annotations": {f"m{i}": "v" for i in range(40)}} if i == 7 else t for i, t in enumerate(TURNS)]
    with pytest.raises(InvalidInputError, match=f"record .*: 80 keys; the limit is {MAX_ANNOTATION_KEYS}"):
        memory.add_session("u", "s1", turns, date="2023-05-08", annotations=session)
    _nothing_stored(memory, "u")


def test_annotations_at_the_limits_are_stored_and_found_by_a_full_filter(memory):
    session = {f"key{i:02d}": f"value {i} " + "x" * 200 for i in range(MAX_ANNOTATION_KEYS)}
    assert memory.add_session("u", "s1", TURNS, date="2023-05-08", annotations=session).inserted == 20
    pairs = dict(list(session.items())[:MAX_FILTER_ANNOTATIONS])
    hits = memory.search("garden", "u", k=3, filters=SearchFilters(annotations=pairs))
    assert len(hits) == 3 and all(dict(h.record.annotations) == session for h in hits)
    with pytest.raises(InvalidInputError, match="MAX_FILTER_ANNOTATIONS"):
        memory.search("garden", "u", k=3, filters=SearchFilters(annotations={**pairs, "one": "more"}))
