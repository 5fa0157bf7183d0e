"""Unit layer: the neighbour and session terms (``context_boost``, issue 16). ``neighbour_weight`` and
``session_weight`` are checked and serialised like the other weights and are 0 (off) in every recipe but
``default`` (named ``default_v2`` while opt-in) and ``default_v2_scale``; in ``retrieve`` each candidate gains the neighbour weight times its best adjacent
candidate's score and the session weight times its session's best score over the best of all; adjacent turns
that are no candidates join, read from the store only for the sessions whose turns could reach the first
k, and the first k are the same as when every candidate's session is read. Hand-computed on a store that
returns preset lists."""

from datetime import datetime, timezone

import pytest

from cbmemory import InvalidInputError
from cbmemory.models import Hit, MemoryRecord
from cbmemory.recipes import RELEVANCE_FLOOR, all_recipes
from cbmemory.retrieval import ContextBoostConfig, RetrievalConfig, retrieve
from cbmemory.retrieval.config import NEIGHBOUR, SESSION
from cbmemory.retrieval.engine import candidates
from tests.support.list_store import ListStore

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

WHEN = datetime(2023, 5, 7, 12, tzinfo=timezone.utc)
PLAIN = RECIPES["default_v1"]


def rec(rid, session, position, kind="turn"):
    return MemoryRecord(rid, "u", session, kind, position, "user", rid, rid, WHEN, WHEN, "h")


# s1: m(0) a(1) n(2) b(3) o(4); s2: c(0) p(1). Candidates a, b, c; m, n, o, p are not.
RECORDS = {r.record_id: r for r in (rec("m", "s1", 0), rec("a", "s1", 1), rec("n", "s1", 2), rec("b", "s1", 3),
                                    rec("o", "s1", 4), rec("c", "s2", 0), rec("p", "s2", 1),
                                    rec("z", "s1", 2, kind="summary"))}


class SessionStore(ListStore):
    """Preset ranked lists per signal; ``list_records`` returns the records of the sessions asked for and
    remembers which were asked."""

    def __init__(self, vector, bm25):
        super().__init__(vector, bm25)
        self.listed: list[tuple[str, ...]] = []

    def list_records(self, user_id, filters=None, *, limit=None, newest_first=False, now=None):
        self.listed.append(filters.session_ids)
        return [r for r in RECORDS.values() if r.session_id in filters.session_ids
                and (filters.kinds is None or r.kind in filters.kinds)]


def store():
    # weighted fusion: vector a 1, b .5, c 0; bm25 a 1, c 7/9, b 0 -> a 2, c .778, b .5
    r = RECORDS
    return SessionStore([Hit(r["a"], .9), Hit(r["b"], .5), Hit(r["c"], .1)],
                        [Hit(r["a"], 10.0), Hit(r["c"], 8.0), Hit(r["b"], 1.0)])


def search(s, recipe, k=10):
    return retrieve(s, lambda q: None, recipe, "u", "what did she say", k=k)


def ids(hits):
    return [h.record.record_id for h in hits]


def scores(hits):
    return {h.record.record_id: h.score for h in hits}


# ---------------------------------------------------------------------------- the config fields
def test_the_weights_are_off_by_default_and_in_every_recipe_but_the_v2_ones():
    assert RetrievalConfig().context_boost.neighbour_weight == 0.0
    assert RetrievalConfig().context_boost.session_weight == 0.0
    on = {n for n, r in RECIPES.items() if r.retrieval.context_boost.active}
    assert on == {"default", "default_no_window", "default_no_floor", "default_v2", "default_v2_scale", "default_sparse"}
    v2 = RECIPES["default_no_window"]
    assert v2.retrieval == PLAIN.retrieval.with_(vector_pool=100, text_pool=100, neighbour_weight=0.5,
                                                 session_weight=0.5, weights={"vector": 0.75, "bm25": 1.0})
    assert RECIPES["default_no_floor"].retrieval == v2.retrieval.with_(window=1, skip_shown=True)
    assert RECIPES["default_no_floor"].context == v2.context.with_(token_budget=2048)
    assert RECIPES["default"].retrieval == RECIPES["default_no_floor"].retrieval.with_(floor=RELEVANCE_FLOOR,
                                                                                      current_value=True)
    scale = RECIPES["default_v2_scale"]
    assert scale.context == v2.context.with_(token_budget=2048)
    assert scale.retrieval == v2.retrieval.with_(window=1, skip_shown=True, vector_pool=200, text_pool=200, session_weight=1.0,
                                                 weights=(("vector", 0.75), ("bm25", 1.0)))
    assert v2.ingest == scale.ingest == PLAIN.ingest and v2.context == PLAIN.context


def test_the_weights_round_trip_and_copy():
    cfg = RetrievalConfig().with_(neighbour_weight=0.25, session_weight=2)
    terms = cfg.context_boost
    assert terms.session_weight == 2.0 and isinstance(terms.session_weight, float)
    assert cfg.to_dict()["context_boost"] == {"neighbour_weight": 0.25, "session_weight": 2.0}
    assert RetrievalConfig.from_dict(cfg.to_dict()) == cfg
    assert RetrievalConfig.from_dict({}).context_boost.neighbour_weight == 0.0  # an older stamp reads as off
    assert cfg.with_(neighbour_weight=0).context_boost.neighbour_weight == 0.0 and terms.neighbour_weight == 0.25


@pytest.mark.parametrize("field", ["neighbour_weight", "session_weight"])
@pytest.mark.parametrize("bad", [float("inf"), float("nan"), -0.5, None, True, "1.0"])
def test_a_bad_weight_is_refused(field, bad):
    with pytest.raises(InvalidInputError, match=field):
        RetrievalConfig().with_(**{field: bad})
    with pytest.raises(InvalidInputError, match=field):
        RetrievalConfig.from_dict({field: bad})
    with pytest.raises(InvalidInputError, match=field):
        ContextBoostConfig(**{field: bad})


def test_one_signal_with_either_term_fetches_its_pool():
    cfg = RetrievalConfig().with_(vector_pool=40, k=5)
    assert candidates(cfg, 5, 40) == 5
    assert candidates(cfg.with_(neighbour_weight=0.5), 5, 40) == 40
    assert candidates(cfg.with_(session_weight=0.5), 5, 40) == 40


# ---------------------------------------------------------------------------- in retrieve
def test_off_changes_nothing_and_reads_no_session():
    s = store()
    hits = search(s, PLAIN)
    assert ids(hits) == ["a", "c", "b"]
    assert scores(hits) == pytest.approx({"a": 2.0, "c": 7 / 9, "b": 0.5})
    assert s.listed == [] and NEIGHBOUR not in hits[0].signals


def test_the_session_term_lifts_the_turns_of_the_best_session():
    # best = 2; s1's best is a (2) -> term 1; s2's best is c (7/9) -> term 7/18
    s = store()
    hits = search(s, PLAIN.with_(session_weight=1.0))
    assert ids(hits) == ["a", "b", "c"]
    assert scores(hits) == pytest.approx({"a": 3.0, "b": 1.5, "c": 7 / 9 + 7 / 18})
    assert hits[1].signals[SESSION] == pytest.approx(1.0) and hits[2].signals[SESSION] == pytest.approx(7 / 18)
    assert s.listed == []  # no neighbours: nothing read


def test_adjacent_turns_join_with_half_their_best_neighbour():
    s = store()
    hits = search(s, PLAIN.with_(neighbour_weight=0.5))
    # n sits between a (2) and b (.5): 1.0; m next to a: 1.0 (tie: no rank, by record id); o next to b: .25;
    # p next to c: 7/18. The summary z at s1's position 2 is of another kind: never a neighbour.
    assert ids(hits) == ["a", "m", "n", "c", "b", "p", "o"]
    assert scores(hits) == pytest.approx({"a": 2.0, "m": 1.0, "n": 1.0, "c": 7 / 9, "b": 0.5, "p": 7 / 18,
                                          "o": 0.25})
    n = hits[2]
    assert n.signals[NEIGHBOUR] == 2.0 and n.ranks == {}
    assert sorted(s.listed[0]) == ["s1", "s2"]


def test_only_sessions_whose_turns_could_reach_k_are_read_and_the_top_k_is_unchanged():
    full = search(store(), PLAIN.with_(neighbour_weight=0.5))
    s = store()
    top3 = search(s, PLAIN.with_(neighbour_weight=0.5), k=3)
    # the third candidate score is .5: only a's neighbours (at most .5 x 2 = 1) can pass it
    assert s.listed == [("s1",)]
    assert ids(top3) == ids(full)[:3] == ["a", "m", "n"]


def test_candidates_next_to_candidates_gain_from_each_other():
    r = RECORDS
    b2 = rec("b2", "s1", 2)  # now next to a
    s = SessionStore([Hit(r["a"], .9), Hit(b2, .5), Hit(r["c"], .1)],
                     [Hit(r["a"], 10.0), Hit(r["c"], 8.0), Hit(b2, 1.0)])
    hits = search(s, PLAIN.with_(neighbour_weight=0.5), k=3)
    # a: 2 + .5 x .5; b2: .5 + .5 x 2; c: 7/9 (p, its neighbour, cannot pass 7/9 with 7/18)
    assert ids(hits) == ["a", "b2", "m"]
    assert scores(hits) == pytest.approx({"a": 2.25, "b2": 1.5, "m": 1.0})


def test_both_terms_add_up():
    hits = search(store(), PLAIN.with_(neighbour_weight=0.5, session_weight=1.0))
    got = scores(hits)
    assert got["a"] == pytest.approx(3.0)  # no candidate next to a
    assert got["n"] == pytest.approx(1.0 + 1.0)  # half of a, and s1's full session term
    assert got["p"] == pytest.approx(7 / 18 + 7 / 18)
    assert ids(hits)[:3] == ["a", "m", "n"]
