"""Integration layer: the recipe's window (each hit shown with its adjacent turns) on a real SQLite file with
the real offline embedder — which turns come, from which session and user, under which filters."""

from cbmemory import AgentMemory
from cbmemory.context import context_tokens, shown_records
from cbmemory.models import SearchFilters
from cbmemory.recipes import RECIPES

PET = [
    ("user", "How was your weekend?"),
    ("assistant", "Busy! We adopted a beagle puppy called Biscuit on Saturday."),
    ("user", "That's lovely, how old is Biscuit?"),
    ("assistant", "Twelve weeks, and already chewing my shoes."),
    ("user", "Ha. Are you still going to Lisbon in June?"),
    ("assistant", "Yes, the flights are booked for the ninth."),
]


def add(memory: AgentMemory, user: str, session: str, turns, date: str, tag: str = "") -> None:
    memory.add_session(user, session, [{"role": r, "content": t + tag, "turn_id": f"{session}:{i}"}
                                       for i, (r, t) in enumerate(turns)], date=date)


def test_a_window_shows_each_hit_between_its_neighbours_and_returns_the_same_hits(memory):
    add(memory, "u", "s1", PET, "2023-05-08")
    add(memory, "u", "s2", [("user", "I painted the fence green."), ("assistant", "Nice colour.")], "2023-05-20")
    # default_v2: the default's window without skip_shown (the default's own hits: test_skip_shown)
    windowed = memory.search("What is the name of the puppy?", "u", k=2, recipe="default_v2")
    alone = memory.search("What is the name of the puppy?", "u", k=2, recipe="default_no_window")
    assert [h.record.record_id for h in windowed] == [h.record.record_id for h in alone]
    assert all(not h.context for h in alone)
    for h in windowed:
        same_session = [r for r in h.context if r.session_id == h.record.session_id]
        assert same_session == list(h.context) and all(abs(r.position - h.record.position) == 1 for r in h.context)
    top = windowed[0]
    assert top.record.turn_id == "s1:1"
    assert [r.turn_id for r in top.context] == ["s1:0", "s1:2"]
    ctx = memory.context("What is the name of the puppy?", "u", k=2, recipe="default_v2")
    assert "How was your weekend?" in ctx.text and "how old is Biscuit?" in ctx.text
    assert ctx.tokens == context_tokens(windowed) > context_tokens(alone)


def test_neighbours_come_from_the_users_own_session_only(memory):
    add(memory, "alice", "s1", PET, "2023-05-08", tag=" (alice)")
    add(memory, "bob", "s1", PET, "2023-05-08", tag=" (bob)")  # the same session id and positions
    for user in ("alice", "bob"):
        hits = memory.search("What is the name of the puppy?", user, k=3, recipe="default")
        records = shown_records(hits)
        assert len(records) > len(hits) and {r.user_id for r in records} == {user}
        assert all(r.text.endswith(f"({user})") for r in records)


def test_neighbours_obey_the_search_filters(memory):
    turns = [{"role": r, "content": t, "turn_id": f"s1:{i}", "annotations": {"shared": "yes"} if i in (1, 2) else {}}
             for i, (r, t) in enumerate(PET)]
    memory.add_session("u", "s1", turns, date="2023-05-08")
    hits = memory.search("What is the name of the puppy?", "u", k=1, recipe="default",
                         filters=SearchFilters(annotations={"shared": "yes"}))
    # turn 0 may not be returned under this filter, so it is not shown either
    assert [h.record.turn_id for h in hits] == ["s1:1"] and [r.turn_id for r in hits[0].context] == ["s1:2"]


def test_window_zero_is_the_recipe_without_it(memory):
    add(memory, "u", "s1", PET, "2023-05-08")
    plain = RECIPES["default"].with_(name="plain", window=0)
    assert all(not h.context for h in memory.search("Lisbon flights", "u", k=2, recipe=plain))
    wide = RECIPES["default"].with_(name="wide", window=2)
    h = memory.search("Lisbon flights", "u", k=1, recipe=wide)[0]
    assert len(h.context) == min(h.record.position, 2) + min(len(PET) - 1 - h.record.position, 2)
