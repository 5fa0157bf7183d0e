"""Integration layer: the current-value stage (``cbmemory.retrieval.current_value``) through AgentMemory over a real
SQLite file with the real MiniLM embedder. Replies that address the person the user talks to by name ("Thanks,
Maria! We're in this together.") are not about a partner: the user's one old claim of a partner is shown among many
newer such replies, which crowded it out while the name was part of what the stage ranks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, SearchFilters, get_recipe
from cbmemory.retrieval import current_value
from cbmemory.retrieval.current_value import latest_statements

D0 = datetime(2023, 1, 2, tzinfo=timezone.utc)
CLAIM = "I live with my partner, Ingrid."
QUESTION = "Who is my significant other?"
REPLIES = ["Thanks, Maria! Your support means so much, we're in this together.",
           "Yeah Maria, it's great to have people who care about each other.",
           "That means a lot, Maria. Your friendship means everything to me.",
           "Take care, Maria. Catch you soon!",
           "Wow, Maria! Spending time with loved ones is so important.",
           "No problem, Maria! Working together with people like you is awesome.",
           "Maria, you always know how to cheer me up, thank you.",
           "Sounds nice, Maria! Family time is the best."]
FILLER = ["The garden needs weeding again.", "I tried a new recipe for lentil soup.",
          "Work was busy with the quarterly report.", "The concert on Friday was loud but fun."]


def _session(memory, sid, day, text):
    memory.add_session("ana", sid, [{"role": "user", "speaker": "Ana", "content": text},
                                    {"role": "assistant", "speaker": "Maria", "content": "Glad to hear it, Ana."}],
                       date=D0 + timedelta(days=day))


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    _session(m, "s0", 0, CLAIM)
    for i in range(1, 33):
        _session(m, f"s{i}", 3 * i, REPLIES[i % len(REPLIES)] if i % 4 else FILLER[i // 4 % len(FILLER)])
    yield m
    m.close()


def _chosen(memory, addressed: frozenset[str]) -> set[str]:
    """The texts of the statements the stage picks (``latest_statements``), the names of those talked to given."""
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id="ana"), "ana",
                                              QUESTION, SearchFilters(), None, addressed=addressed)}


def test_the_users_partner_is_chosen_among_replies_that_address_someone_by_name(memory, monkeypatch):
    assert CLAIM in _chosen(memory, frozenset({"Maria"}))
    # the same memory read with the names kept in what is ranked: the replies crowd the claim out
    monkeypatch.setattr(current_value, "unaddressed", lambda said, addressed=frozenset(): said)
    assert CLAIM not in _chosen(memory, frozenset({"Maria"}))


def test_recall_reads_who_the_user_talks_to_from_the_hits(memory, monkeypatch):
    """``with_current`` passes the speakers of the other role among the hits (``statements.addressees``)."""
    seen: list[frozenset[str]] = []
    real = current_value.latest_statements

    def spy(*args, **kwargs):
        seen.append(kwargs["addressed"])
        return real(*args, **kwargs)
    monkeypatch.setattr(current_value, "latest_statements", spy)
    memory.recall(QUESTION, "ana", recipe=get_recipe("default"))
    assert seen == [frozenset({"Maria"})]
