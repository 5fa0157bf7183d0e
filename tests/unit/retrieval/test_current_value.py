"""Unit layer: the current-value stage's pure parts (``cbmemory.retrieval.current_value``; a text's slot by its
vector: ``test_slot_match.py``): which questions are about the user, the ``RetrievalConfig.current_value`` switch
(checked, written to JSON only when on), how a statement ranks toward the slot (``statement_score``: a claim of the
kind and a change word count nearer), how many statements it keeps for a memory of a given size (``selection``), and
where ``with_current`` puts them (the first hit's passage)."""

import numpy as np
import pytest

from cbmemory import InvalidInputError
from cbmemory.retrieval import RetrievalConfig, current_value
from cbmemory.retrieval.current_value import about_the_user, in_first_person, selection
from cbmemory.retrieval.slots import SLOTS

from .test_slot_match import protos, random_protos  # the same stand-in descriptions


@pytest.mark.parametrize("question,about_user", [
    ("Which city do I live in these days?", True), ("What is my phone number now?", True),
    ("Where am I going on my next trip?", True), ("What's the name of the car I've got?", True),
    ("What do we drive?", True), ("How many of us live at home?", True), ("Which school is our daughter at?", True),
    ("Where are we living these days?", True), ("What did we say about my new job?", True),
    ("Which city does Caroline live in?", False), ("What did we say about whales?", False),
    ("What have we talked about so far?", False), ("Remind me what we discussed", True),
    ("Which US state does Audrey live in?", False), ("Did they visit the US?", False),
    ("Is it raining in Iceland?", False),
    # an agent's tool asks about "the user"
    ("Where does the user live now?", True), ("the user's current employer", True), ("User's phone number?", True),
    ("What does the USER variable hold?", False), ("How many users signed up?", False)])
def test_only_questions_in_the_first_person_are_about_the_user(question, about_user):
    assert about_the_user(question) is about_user


@pytest.mark.parametrize(("question", "asked"), [
    ("Where does the user live now?", "Where do I live now?"),
    ("What is the user's job title?", "What is my job title?"),
    ("Is the user vegetarian?", "am I vegetarian?"),
    ("Has the user changed jobs?", "have I changed jobs?"),
    ("Where is the user going on the user's next trip?", "Where am I going on my next trip?"),
    ("the user’s usual coffee order", "my usual coffee order"),
    ("Which city do I live in?", "Which city do I live in?"),  # no "the user": as it is
    ("Which city does Caroline live in?", "Which city does Caroline live in?"),
])
def test_a_question_about_the_user_is_read_in_the_first_person_for_its_slot(question, asked):
    assert in_first_person(question) == asked


def test_every_slot_has_descriptions_and_none_names_a_value():
    assert all(SLOTS[s] and all(d == d.strip() and not any(c.isdigit() for c in d) for d in SLOTS[s])
               for s in SLOTS)


def test_current_value_is_a_checked_switch_written_only_when_on():
    assert RetrievalConfig().current_value is False
    assert "current_value" not in RetrievalConfig().to_dict()
    on = RetrievalConfig().with_(current_value=True)
    assert on.to_dict()["current_value"] is True
    assert RetrievalConfig.from_dict(on.to_dict()) == on
    with pytest.raises(InvalidInputError, match="current_value"):
        RetrievalConfig(current_value="yes")  # type: ignore[arg-type]


def test_the_newest_of_the_statements_nearest_the_slot_are_kept_not_the_newest_of_all():
    """``nearest``: the ``top`` statements of highest cosine to the slot, in conversation order; ties keep the earlier
    one given; ``None`` keeps all (in conversation order)."""
    from datetime import datetime, timedelta, timezone

    from cbmemory.models import MemoryRecord
    from cbmemory.retrieval.current_value import nearest

    day = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def rec(n: int) -> MemoryRecord:
        return MemoryRecord(record_id=f"r{n}", user_id="u", session_id="s", kind="turn", text=f"turn {n}",
                            index_text=f"turn {n}", role="user", occurred_at=day + timedelta(days=n),
                            ingested_at=day, content_hash=f"h{n}", position=n)

    # the change (day 2) is clearly on the matter; later chat (days 3-5) only touches it
    scored = [(rec(5), 0.31), (rec(1), 0.6), (rec(2), 0.7), (rec(4), 0.33), (rec(3), 0.32)]
    assert [r.record_id for r in nearest(scored, 2)] == ["r1", "r2"]
    assert [r.record_id for r in nearest(scored, 2)[-1:]] == ["r2"]  # the newest of the nearest: the change
    assert [r.record_id for r in nearest(scored, None)] == ["r1", "r2", "r3", "r4", "r5"]
    assert [r.record_id for r in nearest([(rec(3), 0.5), (rec(1), 0.5), (rec(2), 0.4)], 1)] == ["r3"]
    assert nearest([], 3) == []


def test_a_statement_that_claims_the_kind_ranks_nearer_and_counts_below_the_floor():
    """``statement_score``: the cosine to the slot, ``CLAIMED`` more for a statement that claims the slot's kind of
    fact (the write-time rules, ``cbmemory.claims``; ``KINDS`` maps the stage's kinds to the rules'), ``CHANGED``
    more for a change word; a claim counts even below the statement floor, anything else there is off the slot; a
    slot with no rule gives no bonus."""
    from cbmemory.retrieval.current_value import CHANGED, CLAIMED, KINDS, STATEMENT_FLOOR, statement_score

    assert KINDS["employer"] == "work" and "bank" not in KINDS
    p = (("employer", "home_city", "bank"), np.array([0, 0, 1, 2]), np.eye(4, dtype=np.float32))
    near = np.array([1.0, 0, 0, 0], dtype=np.float32)
    far = np.array([0.2, 0, 0.98, 0], dtype=np.float32)  # cosine 0.2 to employer, nearer home_city
    assert statement_score(near, "Lunch with the team was nice.", p, "employer") == pytest.approx(1.0)
    assert statement_score(near, "I work for Globex.", p, "employer") == pytest.approx(1.0 + CLAIMED)
    assert statement_score(near, "I switched jobs and I work for Globex.", p, "employer") == pytest.approx(
        1.0 + CLAIMED + CHANGED)
    assert statement_score(near, "The team switched desks.", p, "employer") == pytest.approx(1.0 + CHANGED)
    cosine = float(far[0] / np.linalg.norm(far))
    assert cosine < STATEMENT_FLOOR
    assert statement_score(far, "Lunch with the team was nice.", p, "employer") is None
    assert statement_score(far, "I work for Globex.", p, "employer") == pytest.approx(cosine + CLAIMED)
    for not_a_claim in ("I would love to work for Globex.", "I don't work for Globex.", "She works for Globex."):
        assert statement_score(far, not_a_claim, p, "employer") is None
    assert statement_score(np.array([0, 0, 0, 1.0], dtype=np.float32), "I work for Globex.", p, "bank") == \
        pytest.approx(1.0)  # no rule for the kind: no bonus


def test_a_claim_of_a_kind_two_slots_share_counts_nearer_only_on_the_slot_it_is_nearer():
    """The home's city and its kind share the write-time rules' kind (``KINDS``: ``home``): a claim of it counts
    ``CLAIMED`` nearer on the slot whose descriptions it is at least as near, and stays on the other as a claim (below
    its margin too) with its cosine and change word only. A kind no other slot shares is as before."""
    from cbmemory.claims import CHANGE
    from cbmemory.retrieval.current_value import CHANGED, CLAIMED, KINDS, statement_score

    assert KINDS["home_city"] == KINDS["home_kind"] == "home"
    p = (("home_city", "home_kind", "employer"), np.array([0, 1, 2]), np.eye(3, dtype=np.float32))
    moved = "We moved into a farmhouse last month."
    changed = CHANGED * bool(CHANGE.search(moved))
    of_kind = np.array([0.6, 0.8, 0], dtype=np.float32)  # nearer the home's kind, 0.2 below it on the city
    assert statement_score(of_kind, moved, p, "home_kind") == pytest.approx(0.8 + CLAIMED + changed)
    assert statement_score(of_kind, moved, p, "home_city") == pytest.approx(0.6 + changed)
    of_city = np.array([0.8, 0.6, 0], dtype=np.float32)
    assert statement_score(of_city, "I live in Dundee now.", p, "home_city") == pytest.approx(
        0.8 + CLAIMED + CHANGED * bool(CHANGE.search("I live in Dundee now.")))
    assert statement_score(of_city, moved, p, "home_kind") == pytest.approx(0.6 + changed)
    even = np.array([0.7, 0.7, 0], dtype=np.float32) / np.sqrt(0.98)
    assert statement_score(even, moved, p, "home_city") == pytest.approx(float(even[0]) + CLAIMED + changed)
    assert statement_score(of_kind, "I work for Quillon Labs.", p, "employer") == pytest.approx(CLAIMED)


def _statements(n: int, on: set[int], one_clause: frozenset[int] = frozenset()):
    """``n`` statements on days 0..n-1 (given oldest last, to show the order is the function's own), each of two
    clauses, the second naming Porto (on the slot) for the days in ``on``; those in ``one_clause`` have one."""
    from datetime import datetime, timedelta, timezone

    from cbmemory.models import MemoryRecord

    day = datetime(2026, 1, 1, tzinfo=timezone.utc)
    out = []
    for k in reversed(range(n)):
        said = f"day {k} was long" if k in one_clause else (
            f"day {k} was long, but the flat in {'Porto' if k in on else 'the park'} is fine")
        out.append((MemoryRecord(record_id=f"r{k}", user_id="u", session_id="s", kind="turn", text=said,
                                 index_text=said, role="user", occurred_at=day + timedelta(days=k),
                                 ingested_at=day, content_hash=f"h{k}", position=k), said))
    return out


class _Clauses:
    """Embeds a clause naming Porto on slot a (axis 0), any other on slot b (axis 2); records each call's size."""

    def __init__(self):
        self.calls: list[int] = []

    def __call__(self, texts):
        self.calls.append(len(texts))
        return np.stack([np.eye(4, dtype=np.float32)[0 if "Porto" in t else 2] for t in texts])


def test_the_newest_statements_with_a_clause_on_the_matter_are_found_newest_first_stopping_early():
    """``told_in_passing``: the newest ``RESERVED`` statements with a clause on the slot, newest first; the clauses
    are embedded 32 statements' at a time from the newest, then 64, 128 ..., and no more once enough are found."""
    from cbmemory.retrieval.passing import CLAUSE_BATCH, RESERVED, told_in_passing

    assert (RESERVED, CLAUSE_BATCH) == (2, 32)
    embed = _Clauses()
    assert [r.record_id for r in told_in_passing(_statements(100, {99, 98, 97, 3}), protos(), "a", embed)] == [
        "r99", "r98"]
    assert embed.calls == [2 * 32]  # the newest 32 statements' two clauses each, in one call
    embed = _Clauses()
    assert [r.record_id for r in told_in_passing(_statements(100, {1, 3, 5}), protos(), "a", embed)] == ["r5", "r3"]
    assert embed.calls == [2 * 32, 2 * 64, 2 * 4]  # growing batches, to the oldest
    embed = _Clauses()
    assert [r.record_id for r in told_in_passing(_statements(10, {7}), protos(), "a", embed)] == ["r7"]  # one only
    assert told_in_passing(_statements(10, set()), protos(), "a", _Clauses()) == []
    assert told_in_passing([], protos(), "a", _Clauses()) == []


def test_a_statement_of_one_clause_is_never_told_in_passing(monkeypatch):
    """A statement of one clause is its own clause: the ranking already judged it whole, so it is not embedded
    again; with no place kept (``RESERVED`` 0) nothing is embedded at all."""
    from cbmemory.retrieval import passing
    from cbmemory.retrieval.passing import told_in_passing

    embed = _Clauses()
    assert told_in_passing(_statements(3, {2}, one_clause=frozenset({2})), protos(), "a", embed) == []
    assert embed.calls == [2 * 2]  # only the two statements of two clauses
    monkeypatch.setattr(passing, "RESERVED", 0)
    embed = _Clauses()
    assert told_in_passing(_statements(5, {4}), protos(), "a", embed) == [] and embed.calls == []


def test_only_a_statements_first_clauses_are_read():
    """A pasted document stated in one turn has thousands of clauses: only its first ``CLAUSES_READ`` are embedded
    (a chat turn has far fewer; LoCoMo's at most 12), so one such turn cannot make a question embed them all."""
    from cbmemory.retrieval.passing import CLAUSES_READ, told_in_passing

    assert CLAUSES_READ == 32
    day = _statements(1, set())[0][0]
    early = ", ".join(f"the walk number {i} was long" for i in range(CLAUSES_READ - 1)) + ", the flat in Porto is fine"
    late = ", ".join(f"the walk number {i} was long" for i in range(500)) + ", the flat in Porto is fine"
    for said, found in ((early, ["r0"]), (late, [])):
        embed = _Clauses()
        assert [r.record_id for r in told_in_passing([(day, said)], protos(), "a", embed)] == found
        assert embed.calls == [CLAUSES_READ]  # the clause on the slot is read only among the first


def test_statements_are_scored_in_one_product_as_each_would_be_alone():
    """``statement_scores``: the same scores as ``statement_score`` of each statement, for random vectors over the
    stage's real slots (random descriptions: the vectors are not under test), a zero vector (near nothing: only a
    claim counts) and no statement at all."""
    from cbmemory.retrieval.current_value import statement_score, statement_scores

    rng = np.random.default_rng(7)
    p = random_protos(rng)
    names, owner = p[0], p[1]
    vecs = rng.standard_normal((60, 16)).astype(np.float32)
    vecs[:20] += 3 * p[2][owner == names.index("employer")][0]  # a third of them near an employer description
    vecs[59] = 0
    saids = [("I work for Globex now." if i % 3 == 0 else "Lunch with the team was nice.") for i in range(60)]
    batched = statement_scores(vecs, saids, p, "employer")
    alone = [statement_score(v, s, p, "employer") for v, s in zip(vecs, saids, strict=True)]
    assert [b is None for b in batched] == [a is None for a in alone]
    assert 0 < sum(b is not None for b in batched) < 60
    assert all(b == pytest.approx(a, abs=1e-6) for b, a in zip(batched, alone, strict=True) if a is not None)
    assert statement_scores(np.empty((0, 16), dtype=np.float32), [], p, "employer") == []


def test_only_texts_of_a_chat_turns_length_are_held_by_the_caches():
    """The stage caches what a turn states, whether it claims a kind or has a change word, and its clauses, by the
    text: a pasted document is read again each time instead (the same answer), so a long-running process does not
    hold thousands of them."""
    from cbmemory.retrieval import current_value as C
    from cbmemory.retrieval import passing as P
    from cbmemory.retrieval import statements as S
    from cbmemory.text import clauses, people, stated

    caches = (S._cached_statement, C._cached_marks, P._cached_clauses, S._cached_own_clauses)
    for cache in caches:
        cache.cache_clear()
    long = "I moved to Porto, after years in Lisbon. " * (C.CACHED_CHARS // 40)
    assert len(long) > C.CACHED_CHARS
    assert S.statement(long) == (stated(long), people(stated(long)))
    assert C._marks(long, "home") == (True, True)
    assert P._clauses(long) == tuple(clauses(long)[:P.CLAUSES_READ])
    assert S.own_clauses(long, frozenset(), "home") == ", ".join(clauses(long))
    assert [cache.cache_info().currsize for cache in caches] == [0, 0, 0, 0]
    short = "I moved to Porto, after years in Lisbon."
    assert S.statement(short) == (short, frozenset())
    assert C._marks(short, "home") == (True, True)
    assert C._marks(short, None) == (False, True)
    assert P._clauses(short) == tuple(clauses(short))
    assert S.own_clauses(short, frozenset(), "home") == "I moved to Porto, after years in Lisbon"
    assert [cache.cache_info().currsize for cache in caches] == [1, 2, 1, 1]


@pytest.mark.parametrize(("sessions", "top", "latest"), [
    (0, 20, 12), (32, 20, 12), (50, 20, 12),  # a memory of up to 50 sessions: as chosen
    (250, 32, 19), (500, 40, 24),  # then scale_k's law: doubling with each tenfold growth
    (10**7, 100, 60),  # at most GROW_MAX times (scale_k's own bound)
])
def test_the_selection_grows_with_the_memory_as_k_does(sessions, top, latest):
    assert (current_value.TOP, current_value.LATEST, current_value.GROW_MAX) == (20, 12, 5.0)
    assert selection(sessions) == (top, latest)


def test_the_stages_statements_go_to_the_first_hits_passage_though_a_later_hit_shows_them(monkeypatch):
    """A statement the stage chose that only a later hit's window shows is added to the first hit's context too: the
    context's token budget may leave that later hit out (``fit``), and the statement with it. One the first hit's
    passage shows already is not added again. ``latest_statements`` is stood in for (what it chooses is tested on a
    real store elsewhere); what is under test is where ``with_current`` puts its statements."""
    from datetime import datetime, timezone

    from cbmemory.models import Hit, MemoryRecord, SearchFilters
    from cbmemory.retrieval.current_value import with_current

    day = datetime(2026, 1, 1, tzinfo=timezone.utc)

    def rec(n: int) -> MemoryRecord:
        return MemoryRecord(record_id=f"r{n}", user_id="u", session_id="s", kind="turn", text=f"turn {n}",
                            index_text=f"turn {n}", role="user", occurred_at=day, ingested_at=day,
                            content_hash=f"h{n}", position=n)

    hits = [Hit(rec(0), 1.0, context=(rec(1),)), Hit(rec(5), 0.5, context=(rec(6),))]
    monkeypatch.setattr(current_value, "latest_statements", lambda *a, **k: [rec(1), rec(6), rec(9)])
    out = with_current(None, lambda t: np.zeros(3), "u", "Where do I live now?", hits,  # type: ignore[arg-type]
                       SearchFilters(), None)
    assert [r.record_id for r in out[0].context] == ["r1", "r6", "r9"]  # r6 too, though hit 2 shows it
    assert out[1] == hits[1]
