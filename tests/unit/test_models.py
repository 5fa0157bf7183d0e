"""Unit layer (models): ``SearchFilters`` takes strings and dates for its times (aware UTC), clamps bounds
beyond the supported range, refuses malformed ids, annotations and times with typed errors, and keeps a frozen
copy of its annotations. The poison-input half that writes: tests/reliability/test_poison_input.py."""

from __future__ import annotations

from datetime import datetime
from types import MappingProxyType

import pytest

from cbmemory import SearchFilters
from cbmemory.dates import MAX_INSTANT, MIN_INSTANT
from cbmemory.errors import InvalidDateError, InvalidInputError

LONE = "\ud800"  # a lone surrogate


def test_filter_bounds_beyond_the_range_are_clamped_not_refused():
    f = SearchFilters(occurred_after=datetime.min, occurred_before=datetime.max)
    assert (f.occurred_after, f.occurred_before) == (MIN_INSTANT, MAX_INSTANT)


@pytest.mark.parametrize("field", ["session_ids", "kinds"])
@pytest.mark.parametrize("value", ["s1", b"s1"], ids=["str", "bytes"])
def test_a_bare_string_for_an_id_tuple_is_refused(field, value):
    with pytest.raises(InvalidInputError, match=f"{field}.*\\('s1',\\)"):
        SearchFilters(**{field: value})


def test_id_collections_become_tuples_of_str():
    f = SearchFilters(session_ids=["s1", "s2"], kinds={"turn"})
    assert f.session_ids == ("s1", "s2") and f.kinds == ("turn",)
    assert SearchFilters(session_ids=()).session_ids == ()


@pytest.mark.parametrize("change", [
    dict(session_ids=["s1", 2]), dict(kinds=[None]), dict(session_ids=5), dict(annotations=[("k", "v")]),
    dict(annotations={"k": 1}), dict(annotations={1: "v"}), dict(session_ids=[LONE]), dict(kinds=[LONE]),
    dict(annotations={LONE: "v"}), dict(annotations={"k": LONE}),
], ids=str)
def test_malformed_filters_are_refused(change):
    with pytest.raises(InvalidInputError):
        SearchFilters(**change)


@pytest.mark.parametrize("bad", [42, "not a date", "2023-02-30"])
def test_unparseable_filter_times_are_a_date_error_naming_the_field(bad):
    with pytest.raises(InvalidDateError, match="occurred_after"):
        SearchFilters(occurred_after=bad)


def test_filter_annotations_are_a_frozen_copy():
    given = {"topic": "work"}
    f = SearchFilters(annotations=given)
    given["topic"] = "home"
    assert dict(f.annotations) == {"topic": "work"} and isinstance(f.annotations, MappingProxyType)
