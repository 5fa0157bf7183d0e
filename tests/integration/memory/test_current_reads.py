"""Integration layer: the reads ``current_only`` and ``as_of`` through AgentMemory over a real SQLite file with
the real MiniLM embedder and write-time links (``IngestConfig(link_updates=True)``). ``current_only`` hides a
memory a later one changed (as a hit and in any hit's window) and keeps what changed it; without it, history
stays queryable and the old line is marked. ``as_of`` shows the state at a date: the value that held then,
unmarked; the later one, once it was said. Reverts (A -> B -> A), another user's links, k still filled when
memories are hidden, and typed errors for bad values."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, InvalidDateError, InvalidInputError, MemoryRecord, get_recipe
from cbmemory.context.changes import CHANGED_GUIDE

D0 = datetime(2023, 5, 7, 12, tzinfo=timezone.utc)
LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
CHAT = ["We watched a film about whales last night.", "The weather has been lovely for walks.",
        "I baked bread with my neighbour on Sunday.", "My book club picked a mystery novel this month."]
PARIS = "I live in Paris and I love my neighbourhood."
PORTO = "Big news: I moved to Porto last week."
BACK = "Back home: I moved back to Paris last week."
QUESTION = "Which city do I live in?"


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm, ingest=LINKING)
    yield m
    m.close()


def _session(memory, sid, day, *texts, user="ana"):
    msgs = []
    for t in texts:
        msgs += [{"role": "user", "content": t}, {"role": "assistant", "content": "Nice!"}]
    memory.add_session(user, sid, msgs, date=D0 + timedelta(days=day))


def _moved(memory):
    _session(memory, "s1", 0, PARIS, CHAT[0])
    _session(memory, "s2", 10, CHAT[1], CHAT[2])
    _session(memory, "s3", 30, PORTO, CHAT[3])
    recs = {r.text: r for r in memory.session_records("ana")}
    assert recs[PORTO].supersedes == (recs[PARIS].record_id,)  # the write-time link the reads use
    return recs


def _shown(hits) -> set[str]:
    return {r.text for h in hits for r in (h.record, *h.context)}


def _line(text: str, needle: str) -> str:
    [line] = [line for line in text.splitlines() if needle in line]
    return line


def test_current_only_hides_the_changed_memory_and_keeps_what_changed_it(memory):
    _moved(memory)
    for query in (QUESTION, "Where do I live in Paris?"):  # even a query in the old value's own words
        hits = memory.search(query, "ana", k=3, current_only=True)
        assert PORTO in _shown(hits) and PARIS not in _shown(hits), query
        rec = memory.recall(query, "ana", current_only=True)
        assert "Porto" in rec.text and "Paris" not in rec.text and CHANGED_GUIDE not in rec.text
    # the context (no recall) takes it too
    assert "Paris" not in memory.context(QUESTION, "ana", current_only=True).text


def test_without_current_only_history_stays_queryable_and_the_old_line_is_marked(memory):
    _moved(memory)
    text = memory.recall("Where did I live before?", "ana").text
    assert _line(text, "Paris").endswith("[changed on Tuesday, 6 June 2023: no longer current]")
    assert "Porto" in text and CHANGED_GUIDE in text


def test_as_of_before_the_change_shows_the_old_value_unmarked(memory):
    _moved(memory)
    for as_of in ("2023-05-20", date(2023, 5, 20), datetime(2023, 5, 20, 9, tzinfo=timezone.utc)):
        rec = memory.recall(QUESTION, "ana", as_of=as_of)
        assert "Paris" in rec.text and "Porto" not in rec.text, as_of
        assert "changed on" not in rec.text and CHANGED_GUIDE not in rec.text
        assert "Today is Saturday, 20 May 2023." in rec.text  # no today given: the as_of date
        assert all(h.record.occurred_at <= datetime(2023, 5, 21, tzinfo=timezone.utc) for h in rec.hits)
    # a today given wins for "Today is"; the state is still that of as_of
    rec = memory.recall(QUESTION, "ana", as_of="2023-05-20", today="2023-07-01")
    assert "Today is Saturday, 1 July 2023." in rec.text and "Porto" not in rec.text


def test_as_of_after_the_change_shows_the_new_value_and_marks_the_old(memory):
    _moved(memory)
    text = memory.recall("Where did I live before?", "ana", as_of="2023-06-06").text  # the day of the move
    assert "Porto" in text and _line(text, "Paris").endswith("no longer current]")
    current = memory.recall(QUESTION, "ana", as_of="2023-06-06", current_only=True).text  # they combine
    assert "Porto" in current and "Paris" not in current
    then = memory.recall(QUESTION, "ana", as_of="2023-06-05", current_only=True).text  # the day before
    assert "Paris" in then and "Porto" not in then


def test_as_of_a_date_alone_counts_the_whole_day_a_time_cuts_it(memory):
    _moved(memory)  # the move was said at 12:00 on 6 June
    assert "Porto" in memory.recall(QUESTION, "ana", as_of="2023-06-06", current_only=True).text
    early = memory.recall(QUESTION, "ana", as_of="2023-06-06T11:00:00Z", current_only=True).text
    assert "Porto" not in early and "Paris" in early


def test_a_revert_shows_the_latest_statement_and_hides_both_older(memory):
    _moved(memory)
    _session(memory, "s4", 60, BACK, CHAT[0])
    recs = {r.text: r for r in memory.session_records("ana")}
    assert recs[PORTO].record_id in recs[BACK].supersedes
    hits = memory.search(QUESTION, "ana", k=4, current_only=True)
    assert BACK in _shown(hits) and PORTO not in _shown(hits) and PARIS not in _shown(hits)
    text = memory.recall("Where did I live before?", "ana", k=4).text  # history: every older line marked
    assert not _line(text, "Back home").endswith("no longer current]"), text
    for old in ("I live in Paris", "Big news"):
        if old in text:
            assert _line(text, old).endswith("no longer current]"), text
    between = memory.recall(QUESTION, "ana", as_of="2023-07-01", current_only=True).text  # Porto held then
    assert "moved to Porto" in between and "Paris" not in between


def test_another_users_links_never_hide_or_show_anything(memory):
    _session(memory, "s1", 0, PARIS, CHAT[0])
    _session(memory, "s1", 0, PARIS, CHAT[0], user="bob")
    _session(memory, "s3", 30, PORTO, CHAT[3], user="bob")  # bob moved; ana did not
    ana_paris = {r.text: r for r in memory.session_records("ana")}[PARIS]
    # a record of bob's that names ana's record as changed (a forged link: the rules only link one user's)
    porto = memory.session_records("bob", "s3")[0]
    assert len(porto.supersedes) == 1  # bob's own Paris
    forged = dataclasses.replace(porto, supersedes=(*porto.supersedes, ana_paris.record_id))
    assert forged.user_id == "bob"
    memory.store.write([s for s in memory.sessions("bob") if s.session_id == "s3"], [forged],
                       memory.embedder.embed_records([forged]), mode="merge")
    assert memory.store.superseding("ana", [ana_paris.record_id]) == {}
    hits = memory.search(QUESTION, "ana", k=3, current_only=True)
    assert PARIS in _shown(hits) and "Porto" not in " ".join(_shown(hits))
    assert "changed on" not in memory.recall(QUESTION, "ana").text
    bob = memory.search(QUESTION, "bob", k=3, current_only=True)
    assert PORTO in _shown(bob) and PARIS not in _shown(bob)


def test_k_hits_come_back_when_memories_are_hidden(memory):
    """Five facts, each changed once, and filler: asking current_only for k gives k hits, none changed."""
    facts = [("I work at Pinecrest Bank.", "I switched jobs, I work at Harbor Labs now."),
             ("My phone number is 0745 330 8172.", "I changed my phone number, it's 0752 119 3387 now."),
             (PARIS, PORTO),
             ("My daughter goes to Elm Primary school.", "My daughter switched to Oak Academy this term."),
             ("I drive a Toyota Corolla car.", "I replaced my car, I drive a Volvo now.")]
    for i, (old, _new) in enumerate(facts):
        _session(memory, f"a{i}", i, old, CHAT[i % 4])
    for i, (_old, new) in enumerate(facts):
        _session(memory, f"b{i}", 40 + i, new, CHAT[(i + 1) % 4])
    old_texts = {old for old, _ in facts}
    linked = [r for r in memory.session_records("ana") if r.supersedes]
    assert len(linked) >= 4, [r.text for r in linked]
    hidden = {r.text for r in memory.session_records("ana")
              if r.record_id in memory.store.superseding("ana", [x.record_id for x in memory.session_records("ana")])}
    for k in (3, 6, 10):
        hits = memory.search("my life: work, phone, home, school, car", "ana", k=k, current_only=True)
        assert len(hits) == k
        assert not _shown(hits) & hidden
    assert hidden <= old_texts


def test_bad_values_are_typed_errors(memory):
    _moved(memory)
    with pytest.raises(InvalidInputError, match="current_only"):
        memory.search(QUESTION, "ana", current_only="yes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="as_of"):
        memory.search(QUESTION, "ana", as_of=20230520)  # type: ignore[arg-type]
    with pytest.raises(InvalidDateError, match="as_of"):
        memory.search(QUESTION, "ana", as_of="someday")
    with pytest.raises(InvalidInputError, match="current_only"):
        memory.recall(QUESTION, "ana", current_only=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="as_of"):
        memory.recall(QUESTION, "ana", as_of=3.5)  # type: ignore[arg-type]
    faults = []
    rec = memory.recall(QUESTION, "ana", as_of="someday", on_error=faults.append)  # fails open: no memories
    assert rec.hits == () and rec.fault is not None and "as_of" in rec.fault.detail


def test_the_async_twins_take_the_reads(memory):
    import asyncio

    _moved(memory)
    hits = asyncio.run(memory.asearch(QUESTION, "ana", k=3, current_only=True))
    assert PARIS not in _shown(hits)
    rec = asyncio.run(memory.arecall(QUESTION, "ana", as_of="2023-05-20"))
    assert "Porto" not in rec.text


def test_records_are_untouched_by_the_reads(memory):
    recs = _moved(memory)
    memory.search(QUESTION, "ana", current_only=True, as_of="2023-06-10")
    assert {r.text: r for r in memory.session_records("ana")} == recs
    assert isinstance(recs[PARIS], MemoryRecord)
