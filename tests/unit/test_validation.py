"""Unit layer: the limits on annotations (cbmemory.validation, issue 22 break 5): a message's, a session's and
a record's annotations (keys, characters, bytes) and a search filter's pairs; each refused with an
``InvalidInputError`` naming the limit, the largest allowed accepted."""

from __future__ import annotations

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import validate_messages
from cbmemory.models import SearchFilters
from cbmemory.validation import (
    MAX_ANNOTATION_BYTES,
    MAX_ANNOTATION_CHARS,
    MAX_ANNOTATION_KEYS,
    MAX_FILTER_ANNOTATIONS,
    MAX_ID_CHARS,
    annotation_bytes,
    check_annotation_limits,
    check_annotations,
)


def test_the_limits_and_why_they_fit_together():
    assert (MAX_ANNOTATION_KEYS, MAX_ID_CHARS, MAX_ANNOTATION_CHARS) == (64, 256, 4_096)
    assert (MAX_ANNOTATION_BYTES, MAX_FILTER_ANNOTATIONS) == (65_536, 16)
    # a LangGraph item's value of ~60 KB fits in parts of the longest values; all keys with 1 KB values fit
    assert 15 * MAX_ANNOTATION_CHARS < MAX_ANNOTATION_BYTES <= 16 * MAX_ANNOTATION_CHARS
    assert MAX_ANNOTATION_KEYS * (1_000 + 8) < MAX_ANNOTATION_BYTES


@pytest.mark.parametrize("annotations, limit", [
    ({f"k{i}": "v" for i in range(MAX_ANNOTATION_KEYS + 1)}, "MAX_ANNOTATION_KEYS"),
    ({f"k{i}": "x" * MAX_ANNOTATION_CHARS for i in range(16)} | {"more": "y" * 100}, "MAX_ANNOTATION_BYTES"),
    ({"k" * (MAX_ID_CHARS + 1): "v"}, "longer than 256"),
    ({"k": "x" * (MAX_ANNOTATION_CHARS + 1)}, "MAX_ANNOTATION_CHARS"),
    ({f"k{i}": "v" for i in range(10_000)}, "MAX_ANNOTATION_KEYS"),  # the 10,000 keys: refused at once
])
def test_annotations_beyond_a_limit_are_refused_naming_it(annotations, limit):
    with pytest.raises(InvalidInputError, match=limit):
        check_annotations(annotations)
    with pytest.raises(InvalidInputError, match=limit):
        validate_messages([{"role": "user", "content": "hi", "annotations": annotations}])


def test_the_largest_annotations_allowed_pass():
    keys = {f"k{i:02d}": "x" * 250 for i in range(MAX_ANNOTATION_KEYS)}  # 64 x 253 bytes
    assert annotation_bytes(keys) <= MAX_ANNOTATION_BYTES and check_annotations(keys) == keys
    three = {f"k{i}": "x" * MAX_ANNOTATION_CHARS for i in range(3)} | {"k3": "x" * 4_000}
    assert annotation_bytes(three) == 4 * 2 + 3 * MAX_ANNOTATION_CHARS + 4_000 <= MAX_ANNOTATION_BYTES
    assert check_annotations(three) == three
    check_annotation_limits({"k" * MAX_ID_CHARS: "v"})


def test_bytes_are_counted_in_utf8():
    assert annotation_bytes({"é": "🎉"}) == 2 + 4
    wide = {f"k{i}": "é" * MAX_ANNOTATION_CHARS for i in range(8)}  # 8 x 8,194 bytes in 4,096 characters each
    with pytest.raises(InvalidInputError, match="MAX_ANNOTATION_BYTES"):
        check_annotations(wide)


def test_a_search_filter_holds_at_most_sixteen_pairs():
    pairs = {f"k{i}": "v" for i in range(MAX_FILTER_ANNOTATIONS)}
    assert dict(SearchFilters(annotations=pairs).annotations) == pairs
    with pytest.raises(InvalidInputError, match="MAX_FILTER_ANNOTATIONS"):
        SearchFilters(annotations={**pairs, "one": "more"})
    with pytest.raises(InvalidInputError, match="MAX_FILTER_ANNOTATIONS"):
        SearchFilters(annotations={f"k{i}": "v" for i in range(500)})  # the 500-key filter
    # a pair longer than anything stored costs nothing more and matches nothing: allowed
    assert SearchFilters(annotations={"k": "x" * 100_000}).annotations["k"] == "x" * 100_000
