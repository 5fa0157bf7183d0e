"""Unit layer: the windows of positions a neighbour read asks for (``store.windows.windows``) and the in-memory index
that finds the records inside them (``store.sqlite.places.Places``), against plain reference computations on
random anchors and random columns (several records at one position included). Pure: no store."""

from __future__ import annotations

import random

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.store.sqlite.places import Places
from cbmemory.store.windows import Window, windows

SESSIONS, KINDS = ("s1", "s2", "s10"), ("turn", "round")


def reference_windows(anchors: list[tuple[str, str, int]], radius: int) -> list[Window]:
    """Every covered (session, kind, position), cut into maximal runs of consecutive positions."""
    covered = sorted({(s, k, p) for s, k, a in anchors for p in range(a - radius, a + radius + 1)})
    out: list[Window] = []
    for s, k, p in covered:
        if out and (out[-1].session_id, out[-1].kind) == (s, k) and out[-1].hi + 1 == p:
            out[-1] = Window(s, k, out[-1].lo, p)
        else:
            out.append(Window(s, k, p, p))
    return out


@pytest.mark.parametrize("seed", range(200))
def test_windows_are_the_covered_positions_merged_into_runs(seed):
    rng = random.Random(seed)
    anchors = [(rng.choice(SESSIONS), rng.choice(KINDS), rng.randrange(-2, 25)) for _ in range(rng.randrange(0, 14))]
    radius = rng.randrange(0, 4)
    assert windows(anchors, radius) == reference_windows(anchors, radius)


def test_windows_check_their_input():
    assert windows([], 1) == []
    with pytest.raises(InvalidInputError):
        windows([("s1", "turn", 1)], -1)
    with pytest.raises(InvalidInputError):
        windows([("s1", "turn", True)], 1)
    with pytest.raises(InvalidInputError):
        windows([("s1", 2, 1)], 1)


@pytest.mark.parametrize("seed", range(100))
def test_places_find_exactly_the_columns_inside_the_windows(seed):
    rng = random.Random(seed)
    places = Places()
    rows: list[tuple[str, str, int]] = []
    for _ in range(rng.randrange(1, 5)):  # appended in batches, as a user's columns grow
        batch = [(rng.choice(SESSIONS), rng.choice(KINDS), rng.randrange(0, 20)) for _ in range(rng.randrange(0, 40))]
        places.add([s for s, _, _ in batch], [k for _, k, _ in batch], [p for _, _, p in batch])
        rows += batch
        anchors = [(rng.choice(SESSIONS), rng.choice(KINDS), rng.randrange(-3, 23)) for _ in range(rng.randrange(0, 8))]
        merged = windows(anchors, rng.randrange(0, 3))
        want = [i for w in merged for i in sorted(
            (i for i, (s, k, p) in enumerate(rows) if (s, k) == (w.session_id, w.kind) and w.lo <= p <= w.hi),
            key=lambda i: (rows[i][2], i))]
        assert places.within(merged).tolist() == want
