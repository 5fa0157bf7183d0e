"""Integration layer (memory): a store written before what user turns state was kept (by an older version: here its
``derived`` rows deleted), or kept in an earlier form (``statements.KEPT_FORM``: other texts), is given those vectors
by the memory's later writes, at most ``KEEP_PER_WRITE`` turns a write, in record-id order; a turn that states nothing (a question) is looked at once; a store locked meanwhile is
left for the next write, and the write itself is not refused; an embedder that fails on the older turns is logged
and does not fail the write already stored. Real SQLite files; the embedder is a fixed one (the
subject is which texts are embedded and kept, not their vectors)."""

from __future__ import annotations

import sqlite3

import pytest

from cbmemory import AgentMemory
from cbmemory.errors import StoreUnavailableError
from cbmemory.memory import writing

from ...support.embedders import FourDims


class Counting(FourDims):
    def __init__(self):
        self.texts: list[str] = []

    def embed(self, texts):
        self.texts += list(texts)
        return super().embed(texts)


def _kept(path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT count(*) FROM derived").fetchone()[0]
    finally:
        con.close()


@pytest.fixture
def older(tmp_path):
    """A store of 20 user turns (every fourth a question, which states nothing) whose kept vectors are gone."""
    path = tmp_path / "older.db"
    turns = []
    for i in range(20):
        said = f"Where did I leave the key number {i}?" if i % 4 == 0 else f"I painted the fence number {i} blue."
        turns += [{"role": "user", "content": said}, {"role": "assistant", "content": f"Noted {i}."}]
    with AgentMemory.open(path, embedder=FourDims()) as memory:
        memory.add_session("ana", "s1", turns, date="2024-01-02")
    assert _kept(path) == 15
    con = sqlite3.connect(path)
    con.execute("DELETE FROM derived")
    con.commit()
    con.close()
    return path


def test_later_writes_give_the_older_turns_theirs_a_few_at_a_time(older, monkeypatch):
    monkeypatch.setattr(writing, "KEEP_PER_WRITE", 6)
    counting = Counting()
    with AgentMemory.open(older, embedder=counting) as memory:
        kept = []
        for i in range(5):
            memory.add_messages("ana", "s2", [{"role": "assistant", "content": f"Anything else {i}?"}])
            kept.append(_kept(older))
        # 6 turns looked at a write (the questions among them keep nothing), until the 20 are done
        assert kept[-1] == 15 and all(b - a <= 6 for a, b in zip([0, *kept], kept, strict=False))
        assert kept[0] < 15
        questions = [t for t in counting.texts if t.startswith("Where did I")]
        assert questions == []  # a question states nothing: never embedded, and looked at once
        looked = len(counting.texts)
        memory.add_messages("ana", "s2", [{"role": "assistant", "content": "Bye."}])
        assert len(counting.texts) == looked + 1  # done: the next write embeds only its own turn


def test_a_locked_store_leaves_the_backfill_for_the_next_write(older, monkeypatch):
    monkeypatch.setattr(writing, "KEEP_PER_WRITE", 50)
    with AgentMemory.open(older, embedder=FourDims()) as memory:
        real = memory.store.keep_derived

        def locked(*a, **k):
            raise StoreUnavailableError("locked by another connection")

        monkeypatch.setattr(memory.store, "keep_derived", locked)
        result = memory.add_messages("ana", "s2", [{"role": "user", "content": "I fed the cat."}])
        assert result.inserted == 1 and _kept(older) == 1  # the write itself, with its own turn's
        monkeypatch.setattr(memory.store, "keep_derived", real)
        memory.add_messages("ana", "s2", [{"role": "user", "content": "I fed the dog."}])
        assert _kept(older) == 15 + 2


class FailsOnOlder(FourDims):
    """A hosted embedder whose call fails when it is asked for the older turns (the backfill's texts)."""

    def embed(self, texts):
        if any("fence" in t for t in texts):
            raise ConnectionError("the embedding service is unreachable")
        return super().embed(texts)


def test_a_failing_backfill_does_not_fail_the_stored_write(older, caplog):
    with AgentMemory.open(older, embedder=FailsOnOlder()) as memory:
        with caplog.at_level("WARNING", logger="cbmemory.memory"):
            result = memory.add_messages("ana", "s2", [{"role": "user", "content": "I fed the cat."}])
        assert result.inserted == 1 and _kept(older) == 1  # the write and its own turn's vector are stored
        assert "ConnectionError" in caplog.text and "'ana'" in caplog.text
        caplog.clear()
        memory.add_messages("ana", "s2", [{"role": "user", "content": "I fed the dog."}])
        assert _kept(older) == 2 and caplog.text == ""  # that user's backfill has ended in this memory: no retry
        said = [r.text for r in memory.session_records("ana", "s2")]
        assert said == ["I fed the cat.", "I fed the dog."]  # both writes stored once each


def test_vectors_kept_of_an_earlier_forms_texts_are_kept_again_by_later_writes(tmp_path, monkeypatch):
    """The store's kept vectors are of texts an earlier ``kept_texts`` gave (form 1; here their hashes changed): later
    writes keep the texts of the form now (``KEPT_FORM``) in their place, a few a write, and then look no more."""
    from cbmemory.retrieval.statements import KEPT_FORM

    assert KEPT_FORM > 1
    monkeypatch.setattr(writing, "KEEP_PER_WRITE", 6)
    path = tmp_path / "earlier.db"
    with AgentMemory.open(path, embedder=FourDims()) as memory:
        memory.add_session("ana", "s1", [{"role": "user", "content": f"Thanks, Maria! I painted fence {i} blue."}
                                         for i in range(12)], date="2024-01-02")
    con = sqlite3.connect(path)
    con.execute("UPDATE derived SET content_hash = 'earlier ' || content_hash, form = 1")
    con.commit()
    con.close()

    def kept() -> tuple[int, int]:
        con = sqlite3.connect(path)
        try:
            return con.execute("SELECT count(*) FILTER (WHERE form = 1), count(*) FILTER (WHERE form = ?) "
                               "FROM derived", (KEPT_FORM,)).fetchone()
        finally:
            con.close()

    assert kept() == (12, 0)
    counting = Counting()
    with AgentMemory.open(path, embedder=counting) as memory:
        memory.add_messages("ana", "s2", [{"role": "assistant", "content": "Anything else?"}])
        assert kept() == (6, 6)
        memory.add_messages("ana", "s2", [{"role": "assistant", "content": "Anything more?"}])
        assert kept() == (0, 12)
        assert "Thanks! I painted fence 0 blue." in counting.texts  # the text of the form now: without the name
        looked = len(counting.texts)
        memory.add_messages("ana", "s2", [{"role": "assistant", "content": "Bye."}])
        assert len(counting.texts) == looked + 1  # done: the next write embeds only its own turn
    with AgentMemory.open(path, embedder=Counting()) as memory:  # another process: nothing is left to keep
        assert memory.store.turns_to_keep("ana", form=KEPT_FORM) == []
