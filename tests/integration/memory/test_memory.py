"""Integration layer: the AgentMemory facade over a real SQLite file with the real offline embedder."""

import asyncio
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, EmbedderMismatchError, NotAStoreError, SearchFilters

CAROLINE = [
    {"role": "user", "speaker": "Caroline", "content": "I went to the LGBTQ support group yesterday.",
     "turn_id": "D1:1"},
    {"role": "assistant", "speaker": "Melanie", "content": "That sounds powerful! How did it feel?",
     "turn_id": "D1:2"},
    {"role": "user", "speaker": "Caroline", "content": "Amazing. I also adopted a puppy named Biscuit.",
     "turn_id": "D1:3"},
]


def test_add_and_search_returns_dated_hits_with_recipe(memory):
    res = memory.add_session("alice", "s1", CAROLINE, date="1:56 pm on 8 May, 2023")
    assert res.inserted == 3
    hits = memory.search("What is the name of the puppy?", "alice", k=2)
    assert hits[0].record.turn_id == "D1:3"
    assert hits[0].recipe == "default" and hits[0].record.occurred_at.date().isoformat() == "2023-05-08"
    ctx = memory.context("support group", "alice", k=1)
    assert "Caroline: I went to the LGBTQ support group yesterday [Sunday, 7 May 2023]. [said Monday, 8 May 2023]" in ctx.text
    assert ctx.tokens > 10


def test_with_recipe_is_a_view_that_searches_its_recipe_and_writes_as_the_memory_does(memory):
    # issue 32: rebuilt from the memory's parts, not a copy of its __dict__
    memory.add_session("alice", "s1", CAROLINE, date="2023-05-08")
    view = memory.with_recipe("bm25")
    assert view is not memory and view.recipe.name == "bm25" and memory.recipe.name == "default"
    assert view.store is memory.store and view.embedder is memory.embedder and view.ingest == memory.ingest
    assert (view.clock, view.default_ttl, view.enricher) == (memory.clock, memory.default_ttl, memory.enricher)
    assert [h.recipe for h in view.search("puppy Biscuit", "alice", k=1)] == ["bm25"]
    view.add_messages("alice", "s1", [{"role": "user", "content": "Biscuit learned to sit.", "turn_id": "D1:4"}])
    added = memory.session_records("alice", "s1")[-1]
    # written as the memory writes (the default's ingest: with the turn it answers), not as bm25's would
    assert added.turn_id == "D1:4" and "adopted a puppy" in added.index_text
    assert not view.recipe.ingest.with_previous_turn and memory.ingest.with_previous_turn
    assert memory.search("sit", "alice", k=1)[0].recipe == "default"


def test_reingest_creates_no_duplicates(memory):
    memory.add_session("alice", "s1", CAROLINE, date="2023-05-08")
    again = memory.add_session("alice", "s1", CAROLINE, date="2023-05-08")
    assert (again.inserted, again.replaced, again.unchanged) == (0, 0, 3)
    assert memory.store.count("alice") == 3
    # the first embedded the 3 turns and what the 2 user turns state (kept for the current-value stage); the second
    # ingest embedded nothing
    assert memory.embedder.texts_embedded == 3 + 2


def test_users_are_isolated(memory):
    memory.add_session("alice", "s1", CAROLINE, date="2023-05-08")
    memory.add_session("bob", "s1", [{"role": "user", "content": "My puppy is called Rex."}], date="2023-05-08")
    for recipe in ("default", "vector", "bm25", "hybrid", "recency", "vector_bm25_rerank_10"):
        hits = memory.search("puppy name", "bob", k=10, recipe=recipe)
        assert hits and {h.record.user_id for h in hits} == {"bob"}
    assert memory.search("puppy", "carol") == []


def test_append_to_live_session_continues_positions_and_keeps_session_date(memory):
    memory.add_session("alice", "s1", CAROLINE[:1], date="2023-05-08")
    memory.add_messages("alice", "s1", [{"role": "assistant", "content": "Tell me more!", "turn_id": "m2"}])
    memory.add_messages("alice", "s1", [{"role": "assistant", "content": "Tell me more!", "turn_id": "m2"}])
    recs = memory.session_records("alice", "s1")
    assert [r.position for r in recs] == [0, 1]  # a retried append with its message id changes nothing
    memory.add_messages("alice", "s1", [{"role": "user", "content": "ok"}])
    memory.add_messages("alice", "s1", [{"role": "user", "content": "ok"}])  # said twice: two turns
    assert [r.text for r in memory.session_records("alice", "s1")][2:] == ["ok", "ok"]
    recs = memory.session_records("alice", "s1")
    assert recs[1].occurred_at == recs[0].occurred_at
    memory.add_messages("alice", "new", [{"role": "user", "content": "fresh start"}], date="2024-02-02")
    assert memory.sessions("alice")[-1].occurred_at.date().isoformat() == "2024-02-02"


def test_filters_and_time_ranges(memory):
    memory.add_session("alice", "may", CAROLINE, date="2023-05-08")
    memory.add_session("alice", "june", [{"role": "user", "content": "The puppy learned to sit."}], date="2023-06-20")
    june = datetime(2023, 6, 1, tzinfo=timezone.utc)
    hits = memory.search("puppy", "alice", filters=SearchFilters(occurred_after=june))
    assert [h.record.session_id for h in hits] == ["june"]
    hits = memory.search("puppy", "alice", filters=SearchFilters(session_ids=("may",)))
    assert {h.record.session_id for h in hits} == {"may"}


def test_ttl_hides_then_purges(tmp_path, minilm):
    clock = [datetime(2024, 1, 1, tzinfo=timezone.utc)]
    m = AgentMemory.open(tmp_path / "ttl.db", embedder=minilm, clock=lambda: clock[0])
    m.add_session("alice", "s1", CAROLINE, date="2023-05-08", ttl=timedelta(hours=1))
    assert m.search("puppy", "alice")
    clock[0] += timedelta(hours=2)
    assert m.search("puppy", "alice") == []
    m.add_session("alice", "s2", [{"role": "user", "content": "later note"}], date="2024-01-01")
    assert m.store.count() == 1  # the write purged the expired rows
    m.close()


def test_forget_erases_user_or_session(memory):
    memory.add_session("alice", "s1", CAROLINE, date="2023-05-08")
    memory.add_session("alice", "s2", [{"role": "user", "content": "puppy again"}], date="2023-05-09")
    assert memory.forget("alice", "s1").records == 3
    assert {h.record.session_id for h in memory.search("puppy", "alice")} == {"s2"}
    assert memory.forget("alice").records == 1 and memory.search("puppy", "alice") == []


def test_reopening_with_another_embedder_is_refused(tmp_path, minilm, scripted):
    path = tmp_path / "m.db"
    with AgentMemory.open(path, embedder=minilm) as m:
        m.add_session("a", "s", CAROLINE[:1], date="2023-05-08")
    with pytest.raises(EmbedderMismatchError):
        AgentMemory.open(path, embedder=scripted(name="other", dimension=384))
    with pytest.raises(EmbedderMismatchError):
        m2 = AgentMemory.open(path, embedder=scripted(name=minilm.name, dimension=8))
        m2.search("x", "a")


def test_foreign_files_are_refused(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(NotAStoreError):
        AgentMemory.open(junk)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE invoices (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(NotAStoreError):
        AgentMemory.open(other)
    with pytest.raises(NotAStoreError):
        AgentMemory.open(tmp_path)


def test_async_methods_run_off_the_event_loop(memory):
    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.create_task(ticker())
        await memory.aadd_session("alice", "s1", CAROLINE * 1, date="2023-05-08")
        hits = await memory.asearch("puppy", "alice")
        t.cancel()
        return hits, ticks

    hits, ticks = asyncio.run(main())
    assert hits and ticks > 0
