"""Contract layer: ``MemoryStore.neighbours`` (the records around anchors, read by position) and the limits
on annotations, the same on every backend (issue 22, breaks 5 and 7). Mixed into each backend's
``StoreContract`` subclass, which provides the ``bound`` fixture; not a test module itself."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.models import NO_FILTERS, SearchFilters, frozen_mapping
from cbmemory.store import MemoryStore
from cbmemory.store.signals import Signal
from cbmemory.store.windows import in_windows, windows
from cbmemory.validation import (
    MAX_ANNOTATION_BYTES,
    MAX_ANNOTATION_CHARS,
    MAX_ANNOTATION_KEYS,
    MAX_FILTER_ANNOTATIONS,
    MAX_ID_CHARS,
)

from .store_contract import DIM, NOW, T0, session_batch, unit


def write_session(store, user, session, n, **kw):
    """``n`` turns ``turn <i> of <session>`` at positions 0 .. n-1 (one batch); returns the records."""
    sess, recs = session_batch(user, session, [f"turn {i} of {session}" for i in range(n)], **kw)
    store.write([sess], recs, np.stack([unit(i % DIM) for i in range(n)]))
    return recs


def places(records):
    return [(r.session_id, r.position) for r in records]


class NeighboursContract:
    """``neighbours`` and the annotation limits; mix into a ``StoreContract`` subclass."""

    def test_neighbours_are_the_windows_of_positions_in_conversation_order(self, bound):
        write_session(bound, "u1", "s1", 10)
        write_session(bound, "u1", "s2", 4, date=T0 + timedelta(days=1))
        write_session(bound, "u2", "s1", 10)  # another user: the same session id and positions
        got = bound.neighbours("u1", [("s2", "turn", 0), ("s1", "turn", 7), ("s1", "turn", 2)], 1, now=NOW)
        assert places(got) == [("s1", 1), ("s1", 2), ("s1", 3), ("s1", 6), ("s1", 7), ("s1", 8), ("s2", 0), ("s2", 1)]
        assert {r.user_id for r in got} == {"u1"} and got[0].text == "turn 1 of s1"
        # overlapping windows give each record once; radius 0 the anchors alone
        assert places(bound.neighbours("u1", [("s1", "turn", 4), ("s1", "turn", 5)], 2, now=NOW)) == [
            ("s1", p) for p in range(2, 8)]
        assert places(bound.neighbours("u1", [("s1", "turn", 4)], 0, now=NOW)) == [("s1", 4)]
        assert places(bound.neighbours("u1", [("s1", "turn", 0)], 2, now=NOW)) == [("s1", 0), ("s1", 1), ("s1", 2)]
        # nothing there: past the session's end, another kind, an unknown session or user, no anchor
        assert bound.neighbours("u1", [("s1", "turn", 50)], 3, now=NOW) == []
        assert bound.neighbours("u1", [("s1", "round", 4)], 1, now=NOW) == []
        assert bound.neighbours("u1", [("s9", "turn", 4)], 1, now=NOW) == []
        assert bound.neighbours("u3", [("s1", "turn", 4)], 1, now=NOW) == []
        assert bound.neighbours("u1", [], 1, now=NOW) == []

    def test_neighbours_are_what_a_listing_holds_there_under_the_same_filters_and_expiry(self, bound):
        write_session(bound, "u1", "s1", 8, annotations={"k": "a"})
        write_session(bound, "u1", "s2", 8, date=T0 + timedelta(days=1), annotations={"k": "b", "lang": "fr"},
                      expires_at=NOW + timedelta(hours=1))
        write_session(bound, "u2", "s1", 8, annotations={"k": "a"})
        anchors = [("s1", "turn", 0), ("s1", "turn", 5), ("s2", "turn", 3), ("s2", "turn", 7)]
        later = NOW + timedelta(hours=2)
        for f in (NO_FILTERS, SearchFilters(annotations={"k": "a"}), SearchFilters(annotations={"k": "b", "lang": "fr"}),
                  SearchFilters(annotations={"k": "zzz"}), SearchFilters(session_ids=("s2",)),
                  SearchFilters(session_ids=()), SearchFilters(kinds=("round",)),
                  SearchFilters(occurred_after=T0 + timedelta(hours=1)), SearchFilters(occurred_before=T0)):
            for now in (NOW, later):
                for radius in (0, 1, 3):
                    merged = windows(anchors, radius)
                    want = [r for r in bound.list_records("u1", f, now=now) if in_windows(r, merged)]
                    assert bound.neighbours("u1", anchors, radius, f, now=now) == want, (f, now, radius)
                    # the same records, in the same order, as columns; read back as the records themselves
                    found = bound.neighbour_candidates("u1", anchors, radius, f, now=now)
                    assert found.ids.tolist() == [r.record_id for r in want]
                    assert places(bound.read_candidates(found, range(len(found)))) == places(want)
                    assert found.positions.tolist() == [r.position for r in want]
        assert places(bound.neighbours("u1", anchors, 1, now=later)) == [("s1", 0), ("s1", 1), ("s1", 4), ("s1", 5),
                                                                           ("s1", 6)]  # s2 expired

    def test_neighbours_input_is_checked_once_by_the_contract(self, bound):
        assert type(bound).neighbours is MemoryStore.neighbours
        write_session(bound, "u1", "s1", 3)
        for radius in (-1, 1.5, True, "1", None):
            with pytest.raises(InvalidInputError, match="radius"):
                bound.neighbours("u1", [("s1", "turn", 1)], radius, now=NOW)
        for anchor in (("s1", "turn"), ("s1", "turn", "2"), ["s1", "turn", 2], (1, "turn", 2), ("s1", "turn", True),
                       ("s1", None, 2)):
            with pytest.raises(InvalidInputError, match="anchor"):
                bound.neighbours("u1", [anchor], 1, now=NOW)

    # -------------------------------------------------------------- annotation limits (issue 22, break 5)
    def test_annotations_beyond_a_limit_are_refused_by_name_and_nothing_is_stored(self, bound):
        sess, recs = session_batch("u1", "s1", ["first turn", "second turn"])
        vectors = np.stack([unit(0), unit(1)])
        beyond = {
            "MAX_ANNOTATION_KEYS": {f"k{i}": "v" for i in range(MAX_ANNOTATION_KEYS + 1)},
            "MAX_ANNOTATION_BYTES": {f"k{i}": "x" * 4_000 for i in range(17)},
            "MAX_ID_CHARS": {"k" * (MAX_ID_CHARS + 1): "v"},
            "MAX_ANNOTATION_CHARS": {"k": "x" * (MAX_ANNOTATION_CHARS + 1)},
        }
        for limit, given in beyond.items():
            ann = frozen_mapping(given)
            with pytest.raises(InvalidInputError, match=limit):  # the second record of the batch
                bound.write([sess], [recs[0], replace(recs[1], annotations=ann)], vectors)
            with pytest.raises(InvalidInputError, match=limit):  # the session
                bound.write([replace(sess, annotations=ann)], recs, vectors)
        assert bound.count("u1") == 0 and bound.list_sessions("u1") == [] and bound.users() == []

    def test_annotations_at_the_limits_are_stored_and_filtered_by_up_to_sixteen_pairs(self, bound):
        sess, recs = session_batch("u1", "s1", ["first turn", "second turn"])
        full = {f"key{i:02d}": "x" * 200 + str(i) for i in range(MAX_ANNOTATION_KEYS)}  # 64 keys, ~13 KB
        assert sum(len(k) + len(v) for k, v in full.items()) <= MAX_ANNOTATION_BYTES
        ann = frozen_mapping(full)
        bound.write([replace(sess, annotations=ann)], [replace(r, annotations=ann) for r in recs],
                    np.stack([unit(0), unit(1)]))
        assert dict(bound.get_session("u1", "s1").annotations) == full
        pairs = dict(list(full.items())[:MAX_FILTER_ANNOTATIONS])
        f = SearchFilters(annotations=pairs)
        assert sorted(h.record.text for h in bound.search(Signal.VECTOR, "u1", unit(0), 5, f, now=NOW)) == [
            "first turn", "second turn"]
        assert len(bound.list_records("u1", f, now=NOW)) == 2
        assert bound.search(Signal.VECTOR, "u1", unit(0), 5, SearchFilters(annotations={**pairs, "key00": "no"}),
                                   now=NOW) == []
