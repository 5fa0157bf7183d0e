"""Unit layer: the pure parts of two reads (issue 22): the inverted index of annotation pairs the embedded
store filters with (store/annotation_index.py) against the reference meaning (``filters.admits``' exact
match of every pair), and the windows ``MemoryStore.neighbours`` reads (store/windows.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.store.sqlite import annotation_index as ai
from cbmemory.store.sqlite.annotation_index import AnnotationIndex, pair_key
from cbmemory.store.windows import Window, windows


def _reference(records, pairs, n):
    return np.array([i < len(records) and all(records[i].get(k) == v for k, v in pairs.items())
                     for i in range(n)], dtype=bool)


def test_the_index_admits_exactly_the_records_holding_every_pair():
    rng = random.Random(7)
    long = "a long caption " * 10  # kept as its digest (over ai._SHORT characters)
    keys = ["topic", "lang", "a", "b\x1fc"]
    values = ["work", "fr", "", "x\x1fy", "é", "1", long, long + ".", long[:-1], "x" * ai._SHORT]
    records = [{k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 3))} for _ in range(300)]
    index = AnnotationIndex()
    done = 0
    for stop in (1, 40, 41, 180, 300):  # appended in batches, some records without annotations
        index.add(((i, r) for i, r in enumerate(records[done:stop], done) if r), stop)
        done = stop
        for _ in range(30):
            pairs = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(1, 3))}
            assert (index.mask(pairs, stop) == _reference(records[:stop], pairs, stop)).all(), pairs
    assert index.mask({}, 300).all()


def test_pairs_are_kept_exactly_or_by_the_digest_of_a_long_value():
    assert pair_key("a\x1fb", "c") != pair_key("a", "b\x1fc")
    assert pair_key("k", "x" * ai._SHORT) == ("k", "x" * ai._SHORT)
    long = pair_key("k", "x" * (ai._SHORT + 1))
    assert long[0] == "k" and isinstance(long[1], bytes) and len(long[1]) == 16
    assert long == pair_key("k", "x" * (ai._SHORT + 1)) != pair_key("k", "x" * ai._SHORT + "y")
    assert pair_key("k", "é" * 100) != pair_key("k", "e" * 100)


def test_values_that_are_not_strings_are_never_matched():
    index = AnnotationIndex()  # only an older writer could have stored them; a filter's values are strings
    index.add([(0, {"n": 1, "b": True, "o": {"x": "y"}, "l": ["1"], "none": None}), (1, {"n": "1"})], 2)
    assert index.mask({"n": "1"}, 2).tolist() == [False, True]
    assert not index.mask({"o": '{"x": "y"}'}, 2).any() and not index.mask({"b": "True"}, 2).any()


def test_the_index_refuses_positions_out_of_order_and_lookups_past_its_end():
    index = AnnotationIndex()
    index.add([(0, {"k": "v"})], 2)
    with pytest.raises(ValueError):
        index.add([(1, {"k": "v"})], 3)  # position 1 was indexed (as holding none)
    with pytest.raises(ValueError):
        index.mask({"k": "v"}, 3)
    assert index.mask({"k": "v"}, 2).tolist() == [True, False]


def test_windows_merge_per_session_and_kind():
    anchors = [("s2", "turn", 5), ("s1", "turn", 9), ("s1", "turn", 2), ("s1", "turn", 4), ("s1", "round", 3)]
    assert windows(anchors, 1) == [Window("s1", "round", 2, 4), Window("s1", "turn", 1, 5),
                                   Window("s1", "turn", 8, 10), Window("s2", "turn", 4, 6)]
    assert windows(anchors, 0)[1:3] == [Window("s1", "turn", 2, 2), Window("s1", "turn", 4, 4)]
    assert windows([("s", "turn", 0), ("s", "turn", 3)], 1) == [Window("s", "turn", -1, 4)]  # touching: one
    assert windows([], 3) == []


@pytest.mark.parametrize("anchors, radius", [([("s", "turn", 1)], -1), ([("s", "turn", 1)], True),
                                             ([("s", "turn")], 1), ([("s", "turn", 1.0)], 1), ([["s", "t", 1]], 1)])
def test_windows_refuse_what_is_not_an_anchor_or_a_radius(anchors, radius):
    with pytest.raises(InvalidInputError):
        windows(anchors, radius)
