"""Unit layer: ``RetrievalConfig.skip_shown`` (issue 25 item 3). With a window, a candidate inside the
window of a better hit is read there already, so the k hits each bring new turns; checked on ``shown_once``
(pure) and through ``retrieve`` on a store that returns preset lists."""

from datetime import datetime, timezone

import pytest

from cbmemory import InvalidInputError
from cbmemory.models import Hit, MemoryRecord
from cbmemory.recipes import all_recipes
from cbmemory.retrieval import RetrievalConfig, retrieve
from cbmemory.retrieval.engine import shown_once
from tests.support.list_store import ListStore

WHEN = datetime(2023, 5, 7, tzinfo=timezone.utc)


def rec(session, position, kind="turn"):
    rid = f"{session}:{kind}:{position}"
    return MemoryRecord(rid, "u", session, kind, position, "user", rid, rid, WHEN, WHEN, "h")


def places(hits):
    return [(h.record.session_id, h.record.kind, h.record.position) for h in hits]


def test_a_candidate_inside_a_kept_hits_window_is_left_out():
    ranked = [Hit(rec(s, p, kind), 1.0) for s, p, kind in
              [("s1", 5, "turn"), ("s1", 6, "turn"), ("s1", 5, "event"), ("s1", 4, "turn"), ("s2", 0, "turn"),
               ("s1", 7, "turn"), ("s1", 8, "turn")]]
    assert places(shown_once(ranked, 4, 1)) == [("s1", "turn", 5), ("s1", "event", 5), ("s2", "turn", 0),
                                                ("s1", "turn", 7)]
    assert places(shown_once(ranked, 3, 2)) == [("s1", "turn", 5), ("s1", "event", 5), ("s2", "turn", 0)]
    assert places(shown_once(ranked, 2, 0)) == places(ranked[:2])  # no window: nothing is shown twice


def test_retrieve_returns_k_hits_none_inside_anothers_window():
    turns = [rec("s1", p) for p in range(40)]
    # every candidate next to the one before it: plain, the first 5 are one passage
    store = ListStore([Hit(r, 1.0 - r.position / 100) for r in turns], [Hit(r, 40.0 - r.position) for r in turns])
    recipe = all_recipes()["default"].with_(k=5, token_budget=None)
    plain = retrieve(store, lambda q: None, recipe.with_(skip_shown=False), "u", "what happened?")
    apart = retrieve(store, lambda q: None, recipe, "u", "what happened?")  # the default skips what is shown
    assert len(plain) == len(apart) == 5
    positions = [h.record.position for h in apart]
    assert all(abs(a - b) > 1 for i, a in enumerate(positions) for b in positions[:i])
    shown = lambda hits: {r.position for h in hits for r in (h.record, *h.context)}  # noqa: E731
    assert len(shown(apart)) > len(shown(plain))


def test_skip_shown_is_a_checked_serialised_flag_off_by_default():
    assert RetrievalConfig().skip_shown is False
    cfg = RetrievalConfig(window=1, skip_shown=True)
    assert RetrievalConfig.from_dict(cfg.to_dict()) == cfg
    assert RetrievalConfig.from_dict({"window": 1}).skip_shown is False  # a stamp from before reads as off
    with pytest.raises(InvalidInputError, match="skip_shown"):
        RetrievalConfig(skip_shown="yes")
