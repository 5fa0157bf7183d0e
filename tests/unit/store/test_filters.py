"""Unit layer (store.filters): ``admits``, the one meaning of ``SearchFilters``, on hand-worked cases, and the
window of float64 epoch seconds inside which SQLite and SQL++ compare instants exactly (declared in
filters.py). Every backend's translation is checked against ``admits`` by
tests/contract/test_filter_semantics.py."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np

from cbmemory.models import MemoryRecord, SearchFilters, frozen_mapping
from cbmemory.store import admits
from cbmemory.store.filters import admits_nothing, is_live

UTC = timezone.utc
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=UTC)
NOW = datetime(2024, 1, 1, tzinfo=UTC)
EXACT = (datetime(1700, 1, 1, tzinfo=UTC), datetime(2240, 1, 1, tzinfo=UTC))  # float64 epochs exact to 1 µs


def _record(**kw) -> MemoryRecord:
    spec = {"user_id": "u1", "session_id": "s1", "kind": "turn", "occurred_at": T0, "ingested_at": NOW,
            "expires_at": None, **kw}
    return MemoryRecord(record_id="r0", position=0, role="user", text="alpha", index_text="alpha beta",
                        content_hash="h0", annotations=frozen_mapping({"topic": "pets"}), **spec)


def test_admits_by_hand():
    rec = _record()
    assert admits(rec, SearchFilters(), NOW)
    assert not admits(_record(expires_at=NOW), SearchFilters(), NOW)  # expiring at now: gone
    assert admits(_record(expires_at=NOW), SearchFilters(), NOW - timedelta(microseconds=1))
    assert not admits(rec, SearchFilters(session_ids=()), NOW) and admits_nothing(SearchFilters(kinds=()))
    assert not admits(rec, SearchFilters(session_ids=("s1\x00", "S1")), NOW)  # exact ids only
    assert not admits(rec, SearchFilters(kinds=("round",)), NOW)
    assert admits(rec, SearchFilters(occurred_after=T0, occurred_before=T0), NOW)  # bounds are inclusive
    assert not admits(rec, SearchFilters(occurred_after=T0 + timedelta(microseconds=1)), NOW)
    assert not admits(rec, SearchFilters(ingested_before=NOW - timedelta(microseconds=1)), NOW)
    assert admits(rec, SearchFilters(annotations={"topic": "pets"}), NOW)
    assert not admits(rec, SearchFilters(annotations={"topic": "work"}), NOW)
    assert not admits(rec, SearchFilters(annotations={"topic": "pets", "lang": "fr"}), NOW)
    assert is_live(rec, NOW) and not admits_nothing(SearchFilters())


def test_the_float_epoch_window_declared_in_filters_py():
    """SQLite and SQL++ compare float64 epoch seconds: a step is under a microsecond inside the window (so
    instants compare exactly there) and about 30 microseconds near year 9999 (declared, not hidden)."""
    assert all(np.spacing(t.timestamp()) < 1e-6 for t in EXACT)
    far = datetime(9999, 12, 29, tzinfo=UTC)
    assert 1.5e-5 < np.spacing(far.timestamp()) < 3.1e-5
    assert (far + timedelta(microseconds=1)).timestamp() == far.timestamp()  # equal there; admits tells them apart
