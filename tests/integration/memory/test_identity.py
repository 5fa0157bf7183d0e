"""Integration layer, the facade (AgentMemory on a real SQLite file; the scripted embedder, since no ranking
is checked): what identifies a stored turn, what re-ingesting a session means, and appends that race each
other."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, InvalidInputError

D1 = datetime(2023, 5, 7, tzinfo=timezone.utc)
D2 = datetime(2023, 5, 8, tzinfo=timezone.utc)


@pytest.fixture
def mem(tmp_path, scripted):
    m = AgentMemory.open(tmp_path / "m.db", embedder=scripted())
    yield m
    m.close()


def turns(*texts: str) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(texts)]


def test_a_caller_id_cannot_stand_for_a_generated_one(mem):
    mem.add_session("u", "s", turns("first", "second"), date=D1)
    with pytest.raises(InvalidInputError, match="'#'"):
        mem.add_messages("u", "s", [{"role": "user", "content": "impostor", "turn_id": "#0"}])
    assert [r.text for r in mem.session_records("u", "s")] == ["first", "second"]


def test_re_adding_a_session_replaces_it_as_a_whole(mem):
    mem.add_session("u", "s", turns("one", "two", "three"), date=D1)
    res = mem.add_session("u", "s", turns("one", "two"), date=D2)
    assert (res.inserted, res.replaced) == (0, 2)
    got = mem.session_records("u", "s")
    assert [(r.text, r.position, r.occurred_at) for r in got] == [("one", 0, D2), ("two", 1, D2)]
    assert mem.sessions("u")[0].occurred_at == D2
    assert all(h.record.occurred_at == D2 for h in mem.search("three one two", "u"))


def test_re_adding_an_unchanged_session_changes_nothing(mem):
    mem.add_session("u", "s", turns("one", "two"), date=D1)
    res = mem.add_session("u", "s", turns("one", "two"), date=D1)
    assert (res.inserted, res.replaced, res.unchanged) == (0, 0, 2)


def test_concurrent_appends_of_the_same_text_keep_every_turn(mem):
    mem.add_session("u", "s", turns("hello"), date=D1)

    async def many():
        await asyncio.gather(*(mem.aadd_messages("u", "s", [{"role": "user", "content": "ok"}])
                               for _ in range(30)))

    asyncio.run(many())
    got = mem.session_records("u", "s")
    assert [r.text for r in got] == ["hello"] + ["ok"] * 30
    assert [r.position for r in got] == list(range(31))


def test_concurrent_distinct_appends_from_two_store_objects_get_distinct_positions(tmp_path, scripted):
    """Two AgentMemory objects (two connections) append to one session from two threads. (In one process
    appends take turns; across processes the commit-time check decides: tests/reliability/test_append_race.py.)"""
    path = tmp_path / "shared.db"
    a = AgentMemory.open(path, embedder=scripted())
    b = AgentMemory.open(path, embedder=scripted())
    a.add_session("u", "s", turns("start"), date=D1)

    def append(m: AgentMemory, who: str) -> None:
        for i in range(15):
            m.add_messages("u", "s", [{"role": "user", "content": f"{who} {i}"}])

    threads = [threading.Thread(target=append, args=(m, w)) for m, w in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = a.session_records("u", "s")
    assert len(got) == 31 and sorted(r.position for r in got) == list(range(31))
    assert {r.text for r in got} == {"start"} | {f"{w} {i}" for w in "ab" for i in range(15)}
    a.close()
    b.close()


def test_a_retried_append_with_ids_is_stored_once(mem):
    msg = [{"role": "user", "content": "once", "turn_id": "m1"}]
    mem.add_messages("u", "s", msg, date=D1)
    assert mem.add_messages("u", "s", msg).unchanged == 1
    assert [r.text for r in mem.session_records("u", "s")] == ["once"]


def test_expired_records_are_erased_at_most_once_a_minute_of_the_memorys_clock(tmp_path, scripted):
    """Erasing rewrites the file, so writes do not each purge; expired records are hidden in the meantime."""
    now = [D1]
    m = AgentMemory.open(tmp_path / "p.db", embedder=scripted(), clock=lambda: now[0])
    purges = []
    real = m.store.purge_expired
    m.store.purge_expired = lambda when=None: purges.append(when) or real(when)
    m.add_session("u", "a", turns("short"), date=D1, ttl=timedelta(seconds=30))
    m.add_session("u", "b", turns("durable"), date=D1)
    assert purges == [D1]
    now[0] = D1 + timedelta(seconds=45)  # "short" has expired: hidden at once, erased at the next purge
    assert [r.text for r in m.session_records("u")] == ["durable"]
    m.add_session("u", "c", turns("more"), date=D1)
    assert len(purges) == 1
    assert [r.text for r in m.store.list_records("u", now=D1)] == ["short", "durable", "more"]  # still stored
    now[0] = D1 + timedelta(minutes=2)
    m.add_session("u", "d", turns("later"), date=D1)
    assert purges[-1] == now[0] and [s.session_id for s in m.sessions("u")] == ["b", "c", "d"]
    assert [r.text for r in m.store.list_records("u", now=D1)] == ["durable", "more", "later"]
    m.close()
