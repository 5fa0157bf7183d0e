"""Integration layer: what is true now, through AgentMemory over a real SQLite file with the real MiniLM
embedder. A user statement that changes an earlier one is linked to it when written (no LLM); recalling the
old one brings the new one, and the context marks the old line as changed, with the date of the change.
Someone else's similar fact links nothing; nothing is deleted by a link; a matter changed many times
brings its newest changes only. The links are opt-in
(``IngestConfig(link_updates=True)``): a memory opened with the default recipe makes none."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cbmemory import AgentMemory, Message, SearchFilters, get_recipe
from cbmemory.context.changes import CHANGED_GUIDE
from cbmemory.ingest.records import build_records
from cbmemory.models import Session
from cbmemory.retrieval.updates import PULLED

D0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
CHAT = ["We watched a film about whales last night.", "The weather has been lovely for walks.",
        "I baked bread with my neighbour on Sunday.", "My book club picked a mystery novel this month."]



@pytest.fixture
def memory(tmp_path, minilm):
    """A memory that links updates at write time (the opt-in ingest setting)."""
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm, ingest=LINKING)
    yield m
    m.close()


def test_the_default_recipe_makes_no_links(tmp_path, minilm):
    """Off by default: the rules' precision on plain conversations is not yet good enough to mark memories."""
    with AgentMemory.open(tmp_path / "plain.db", embedder=minilm) as plain:
        _session(plain, "s1", 0, "I live in Paris and I love my neighbourhood.", CHAT[0])
        _session(plain, "s3", 30, "Big news: I moved to Porto last week.", CHAT[3])
        assert all(r.supersedes == () for r in plain.session_records("ana"))
        assert CHANGED_GUIDE not in plain.recall("Where do I live?", "ana").text

def _session(memory, sid, day, *texts):
    msgs = []
    for t in texts:
        msgs += [{"role": "user", "speaker": "Ana", "content": t}, {"role": "assistant", "speaker": "Bot", "content": "Nice!"}]
    memory.add_session("ana", sid, msgs, date=D0 + timedelta(days=day))


def _records(memory):
    return {r.text: r for r in memory.session_records("ana")}


def test_a_move_links_the_new_city_to_the_old_and_the_context_marks_the_old_line(memory):
    _session(memory, "s1", 0, "I live in Paris and I love my neighbourhood.", CHAT[0])
    _session(memory, "s2", 10, CHAT[1], CHAT[2])
    _session(memory, "s3", 30, "Big news: I moved to Porto last week.", CHAT[3])
    recs = _records(memory)
    paris, porto = recs["I live in Paris and I love my neighbourhood."], recs["Big news: I moved to Porto last week."]
    assert porto.supersedes == (paris.record_id,)
    assert memory.store.count("ana") == 12  # nothing deleted
    rec = memory.recall("Where do I live in Paris?", "ana")  # finds the old line: the new one comes with it
    text = rec.context.text
    assert "Porto" in text and CHANGED_GUIDE in text
    [old_line] = [line for line in text.splitlines() if "Paris" in line]
    assert old_line.startswith("[Sunday, 7 May 2023]")  # its own date stays first
    assert old_line.endswith("[changed on Tuesday, 6 June 2023: no longer current]")
    assert not [line for line in text.splitlines() if "Porto" in line][0].endswith("current]")
    [hit] = [h for h in rec.hits if h.record.record_id == paris.record_id]
    assert hit.superseded_by == (porto.record_id,)


def test_someone_elses_move_links_nothing(memory):
    _session(memory, "s1", 0, "I live in Paris and I love my neighbourhood.", CHAT[0])
    _session(memory, "s2", 20, "My cousin just moved to Glasgow, so I have a place to stay there.", CHAT[1])
    assert all(r.supersedes == () for r in memory.session_records("ana"))
    text = memory.recall("Which city do I live in?", "ana").context.text
    assert "changed on" not in text and CHANGED_GUIDE not in text


def test_a_restatement_and_a_question_link_nothing(memory):
    _session(memory, "s1", 0, "I work at Pinecrest Bank, mostly on the planning side.")
    _session(memory, "s2", 20, "Still at Pinecrest Bank, work is busy.", "Should I switch jobs to a new company?")
    assert all(r.supersedes == () for r in memory.session_records("ana"))



def test_a_restatement_that_opens_with_the_name_links_nothing_and_marks_nothing(memory):
    """A name that opens a sentence ("Quillon Labs is ...") is no other value than the one it restates."""
    _session(memory, "s1", 0, "I work at Quillon Labs, mostly on the planning side.", CHAT[0])
    _session(memory, "s2", 20, "Quillon Labs is still my employer, no change there.", CHAT[1])
    assert all(r.supersedes == () for r in memory.session_records("ana"))
    text = memory.recall("Where do I work?", "ana").context.text
    assert "Quillon Labs is still my employer" in text and "changed on" not in text


def test_a_number_written_another_way_links_nothing(memory):
    """The same phone number with other spacing and a country code is no new number."""
    _session(memory, "s1", 0, "My number is 07521 193387, text me any time.", CHAT[0])
    _session(memory, "s2", 20, "My mobile is +44 7521 193387, same as ever.", CHAT[1])
    assert all(r.supersedes == () for r in memory.session_records("ana"))
    assert "changed on" not in memory.recall("What is my phone number?", "ana").context.text


@pytest.mark.parametrize("later", [
    "I lived in Aberdeen for ten years before I came here.",  # what held once
    "This week I am based in Aberdeen for the audit.",  # a stay
    "We had dinner at a new place in Aberdeen, amazing ramen.",  # a place one goes to
    "My gym moved to Aberdeen, so far from me now.",  # a thing's move
    "I drove to Aberdeen with my dad to see his new house.",  # someone else's home, told with company
])
def test_a_later_past_stay_or_look_alike_links_nothing_and_hides_nothing(memory, later):
    """A past told later ("I lived in Aberdeen before I came here"), a stay told for a week, a meal at a new place, a
    gym's move or a visit to someone's new house: the home that holds now is neither marked as changed nor hidden from
    a read of what is current."""
    _session(memory, "s1", 0, "I live in Inverness and I love my neighbourhood.", CHAT[0])
    _session(memory, "s2", 20, later, CHAT[1])
    assert all(r.supersedes == () for r in memory.session_records("ana"))
    text = memory.recall("Which city do I live in?", "ana", current_only=True).context.text
    assert "I live in Inverness" in text and "changed on" not in text


def test_a_move_told_with_the_people_who_share_it_is_linked_and_hides_the_old_home(memory):
    """"My partner and I moved to ..." is the user's move: the partner named is company, not someone else's news."""
    _session(memory, "s1", 0, "I live in Inverness and I love my neighbourhood.", CHAT[0])
    _session(memory, "s2", 20, "My partner and I moved to Aberdeen last week.", CHAT[1])
    recs = _records(memory)
    old, new = recs["I live in Inverness and I love my neighbourhood."], recs["My partner and I moved to Aberdeen last week."]
    assert new.supersedes == (old.record_id,)
    text = memory.recall("Which city do I live in?", "ana", current_only=True).context.text
    assert "Aberdeen" in text and "I live in Inverness" not in text


def test_a_new_handset_is_no_new_number(memory):
    """"My new phone is a Pixel 8" tells a handset, not a number: the number that holds is neither marked nor hidden."""
    _session(memory, "s1", 0, "My number is 0752 119 3387, text me any time.", CHAT[0])
    _session(memory, "s2", 20, "My new phone is a Pixel 8, the camera is amazing.", CHAT[1])
    assert all(r.supersedes == () for r in memory.session_records("ana"))
    text = memory.recall("What is my phone number?", "ana", current_only=True).context.text
    assert "0752 119 3387" in text and "changed on" not in text


def test_a_new_number_in_one_batch_with_the_old_is_linked(memory):
    msgs = [{"role": "user", "content": "You can always reach me on 0745 330 8172."},
            {"role": "user", "content": "I changed my phone number, it's 0752 119 3387 now."}]
    memory.add_sessions("ana", [("s1", msgs[:1], D0), ("s2", msgs[1:], D0 + timedelta(days=5))])
    recs = {r.text: r for r in memory.session_records("ana")}
    assert recs[msgs[1]["content"]].supersedes == (recs[msgs[0]["content"]].record_id,)


CITIES = ["Porto", "Glasgow", "Tallinn", "Valencia", "Bergen", "Krakow"]


@pytest.mark.heavy
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(CITIES), min_size=2, max_size=4).filter(
    lambda xs: all(a != b for a, b in zip(xs, xs[1:], strict=False))))
def test_random_histories_of_moves_show_the_newest_and_mark_the_old(tmp_path_factory, minilm, cities):
    """Property: whatever the history of moves, the newest city is shown and each older line is marked."""
    path = tmp_path_factory.mktemp("moves") / "m.db"
    with AgentMemory.open(path, embedder=minilm, ingest=LINKING) as memory:
        _session(memory, "s0", 0, f"I live in {cities[0]} these days.", CHAT[0])
        for i, city in enumerate(cities[1:], start=1):
            _session(memory, f"s{i}", 20 * i, CHAT[i % len(CHAT)], f"Big news: I moved to {city} last week.")
        text = memory.recall(f"Where do I live in {cities[0]}?", "ana").context.text
        lines = [line for line in text.splitlines() if any(c in line for c in cities)]
        current = [line for line in lines if not line.endswith("no longer current]")]
        # exactly one line holds now, the newest move (where it sits depends on which hit pulled it in)
        assert len(current) == 1 and f"moved to {cities[-1]} last week" in current[0], text


def _many_moves(memory, minilm, n=12):
    """Paris, then ``n`` later moves written with links to it (as many days of telling it again would make)."""
    _session(memory, "s0", 0, "I live in Paris and I love my neighbourhood.")
    paris = _records(memory)["I live in Paris and I love my neighbourhood."]
    moves = []
    for i in range(n):
        day = D0 + timedelta(days=10 + i)
        [turn] = build_records("ana", f"m{i}", [Message("user", f"Big news: I moved to {CITIES[i % 6]} {i} now.",
                                                        "Ana")], day, day)
        moves.append(dataclasses.replace(turn, supersedes=(paris.record_id,)))
    memory.store.write([Session("ana", r.session_id, r.occurred_at) for r in moves], moves,
                       minilm.embed([r.index_text for r in moves]))
    return paris, moves


NO_STAGE = get_recipe("default").with_(name="default_no_current", current_value=False)


def test_a_matter_changed_many_times_shows_its_newest_changes_not_all_of_them(memory, minilm):
    """A record that many later ones changed (a daily habit told a hundred times over) brings the newest
    ``PULLED`` of them with it, not every one: a recall costs what it costs for a matter changed a few times.
    The hit still names every record that changed it, and the change's date is the first change's."""
    paris, moves = _many_moves(memory, minilm)
    [hit] = memory.search("Where do I live in Paris?", "ana", recipe=NO_STAGE, k=1)
    assert hit.record.record_id == paris.record_id
    pulled = [r.record_id for r in hit.context if r.text.startswith("Big news")]
    assert pulled == [r.record_id for r in moves[-PULLED:]]
    assert hit.superseded_by == tuple(r.record_id for r in moves)
    assert hit.changed == {paris.record_id: moves[0].occurred_at}  # read for its date, not shown


def test_a_filter_that_leaves_out_the_newest_changes_still_shows_and_dates_one_it_admits(memory, minilm):
    """With a filter admitting one change from the middle of many, that one is the change shown and dated (as
    when every change is read): the mark does not depend on how many changes there are."""
    paris, moves = _many_moves(memory, minilm)
    only = SearchFilters(session_ids=("s0", "m5"))
    [hit] = memory.search("Where do I live in Paris?", "ana", recipe=NO_STAGE, k=1, filters=only)
    assert hit.record.record_id == paris.record_id
    assert [r.record_id for r in hit.context if r.text.startswith("Big news")] == [moves[5].record_id]
    assert hit.changed == {paris.record_id: moves[5].occurred_at}


def test_a_change_another_hit_shows_joins_the_changed_hits_passage_and_outlives_the_budget(memory):
    """The record that changed a shown one goes into that hit's passage also when a later hit shows it: the
    context's token budget may leave the later hit out (``fit``), and the change with it, which would leave the old
    line marked and the new one gone. A context shows each record once and the budget counts it once."""
    from cbmemory.context.render import fit, format_context
    from cbmemory.models import Hit
    from cbmemory.retrieval.updates import with_updates

    _session(memory, "s1", 0, "I live in Paris and I love my neighbourhood.", CHAT[0])
    _session(memory, "s3", 30, "Big news: I moved to Porto last week.", CHAT[3])
    recs = _records(memory)
    paris, porto = recs["I live in Paris and I love my neighbourhood."], recs["Big news: I moved to Porto last week."]
    long = dataclasses.replace(recs[CHAT[0]], text="Long story about the weekend. " * 60)
    later = Hit(recs[CHAT[3]], 0.5, context=(porto, long))  # its passage too long for what the budget leaves
    out = with_updates(memory.store, "ana", [Hit(paris, 1.0), later], SearchFilters(), None)
    assert [r.record_id for r in out[0].context] == [porto.record_id]  # though the later hit shows it
    assert out[1].context == later.context
    assert [(h.record.record_id, h.context) for h in fit(out, 120)] == [
        (paris.record_id, (porto,)), (recs[CHAT[3]].record_id, ())]  # the later hit kept alone
    text = format_context(out, budget=120).text
    assert text.count("Big news: I moved to Porto") == 1 and "Long story" not in text
    assert "[changed on Tuesday, 6 June 2023: no longer current]" in text
