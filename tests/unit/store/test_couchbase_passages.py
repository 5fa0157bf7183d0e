"""Unit layer (store.couchbase with AgentMemory), issue 29 item 4: a long message written to a Couchbase store
(the in-process fake of the SDK objects, tests/support/couchbase_fake.py; NOT backend coverage) is stored
whole, with its passages as documents of their own (kind ``passage``, linked by ``source_ids``, their place
in the message in their annotations); read back, a passage is shown with its marks, and a passage hit's
window is asked for around its message's turn (kind ``turn``), not among passages."""

from __future__ import annotations

from datetime import datetime, timezone

from cbmemory import AgentMemory
from cbmemory.context import memory_line
from cbmemory.models import Hit, SearchFilters, passage_place
from cbmemory.retrieval.engine import with_window
from cbmemory.store.couchbase import CouchbaseStore
from tests.support.couchbase_fake import FakeCluster, FakeState
from tests.support.embedders import FourDims
from tests.support.needles import NEEDLES, with_needle

NOW = datetime(2024, 4, 2, tzinfo=timezone.utc)
MEMORY = "team_a.memory"


def test_a_long_message_is_stored_with_its_passages_and_they_read_back_as_passages():
    state = FakeState()
    store = CouchbaseStore(FakeCluster(state), "cbm", scope="team_a")
    memory = AgentMemory(store, FourDims(), clock=lambda: NOW)
    text = with_needle(10_000, 0.9, NEEDLES[0])
    memory.add_session("ana", "s1", [{"role": "user", "content": text, "turn_id": "t1"}], date="2024-04-01")
    docs = list(state.docs[MEMORY].values())
    turns = [d for d in docs if d.get("kind") == "turn"]
    passages = [d for d in docs if d.get("kind") == "passage"]
    assert len(turns) == 1 and turns[0]["text"] == text and len(passages) >= 10
    assert all(p["source_ids"] == [turns[0]["record_id"]] for p in passages)

    records = store.get_records("ana", [p["record_id"] for p in passages])
    deep = next(r for r in records if NEEDLES[0].fact in r.text)
    kind, start, end, total = passage_place(deep)
    assert (kind, total, text[start:end]) == ("turn", len(text), deep.text)
    line = memory_line(deep)
    assert f"[… {start:,} earlier characters not shown] " in line and NEEDLES[0].answer in line
    # the default layout (session_last) puts "[said DATE]" last when the slice has a relative date
    assert line.split(" [said ")[0].endswith(f"[… {total - end:,} more characters not shown]")

    state.calls.clear()
    with_window(store, "ana", [Hit(deep, 1.0)], 1, SearchFilters(), NOW)
    asked = [c for c in state.calls if c[0] == "query"]
    assert asked and all("passage" not in str(c[2]) for c in asked)
    assert any("turn" in str(c[2]) for c in asked)
