"""Integration layer (memory): memory files that move (``AgentMemory.export_to`` / ``import_from``) between real
SQLite files with the MiniLM embedder: export -> import -> export gives the same bytes and searches the same
hits with the same scores; every field travels (annotations, an echo's links, a TTL, both dates); importing
twice changes nothing; a file of a newer format, or with one bad line, writes nothing; another embedder
embeds every record again, and a file without vectors is embedded back to the same vectors (and to the vectors
kept of what user turns state); supersession links travel with their records."""

from __future__ import annotations

import dataclasses
import io
import json
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cbmemory import AgentMemory, InvalidInputError, Message, get_recipe
from cbmemory.memory.transfer import FORMAT_VERSION, FormatVersionError
from cbmemory.retrieval.statements import kept_texts
from cbmemory.text import content_hash

from ...support.embedders import FourDims

NOW = datetime(2023, 6, 1, 12, 0, tzinfo=timezone.utc)
QUERIES = ["When did I move to Lyon?", "Who is visiting next weekend?", "What is my dog called?", "cello lessons"]


def _clock() -> datetime:
    return NOW


def seed(memory: AgentMemory) -> None:
    memory.add_session("alice", "a1", [{"role": "user", "content": "I moved to Lyon yesterday."},
                                       {"role": "assistant", "content": "Congratulations on the move!"}],
                       date="2023-05-07", annotations={"channel": "mobile"})
    memory.add_session("alice", "a2", [{"role": "user", "content": "My sister Emma is visiting next weekend.",
                                        "speaker": "Alice"},
                                       {"role": "user", "content": "I started cello lessons on Tuesday."}],
                       date="2023-05-14", ttl=timedelta(days=365))
    first = memory.session_records("alice", "a1")[0]
    memory.add_messages("alice", "a3", [Message("user", "When did I move to Lyon again?", restates=(first.record_id,))],
                        date="2023-05-20")
    memory.add_session("bob", "b1", [{"role": "user", "content": "I adopted a dog named Rex."}], date="2023-05-01")


def exported(memory: AgentMemory, **kw) -> str:
    out = io.StringIO()
    memory.export_to(out, **kw)
    return out.getvalue()


def hits(memory: AgentMemory, user: str) -> list:
    return [[(h.record.record_id, h.score) for h in memory.search(q, user, 5)] for q in QUERIES]


@pytest.fixture
def source(tmp_path, minilm):
    with AgentMemory.open(tmp_path / "source.db", embedder=minilm, clock=_clock) as memory:
        seed(memory)
        yield memory


def test_export_import_export_is_byte_identical_and_searches_the_same(source, tmp_path, minilm):
    text = exported(source)
    head, *lines = [json.loads(line) for line in text.splitlines()]
    assert head["version"] == FORMAT_VERSION and head["embedder"] == {"name": minilm.name, "dimension": 384}
    assert head["recipe"] == "default"
    records = [r for r in lines if r["type"] == "record"]
    assert len(records) == 6 and {r["user_id"] for r in records} == {"alice", "bob"}
    echo = next(r for r in records if r["session_id"] == "a3")
    assert echo["source_ids"] == [records[0]["record_id"]]  # an echo's link to what it restates
    a2 = [r for r in records if r["session_id"] == "a2"]
    assert a2[0]["speaker"] == "Alice" and a2[0]["expires_at"] == "2024-05-31T12:00:00+00:00"  # the TTL
    assert records[0]["annotations"] == {"channel": "mobile"} and records[0]["ingested_at"] == NOW.isoformat()
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm, clock=_clock) as target:
        result = target.import_from(io.StringIO(text))
        assert (result.sessions, result.records, result.inserted, result.vectors) == (4, 6, 6, "kept")
        assert exported(target) == text
        assert hits(target, "alice") == hits(source, "alice") and hits(target, "bob") == hits(source, "bob")
        again = target.import_from(io.StringIO(text))  # idempotent
        assert (again.inserted, again.replaced, again.unchanged) == (0, 0, 6)
        assert exported(target) == text


def test_one_user_or_one_session_and_a_path(source, tmp_path, minilm):
    path = tmp_path / "alice.jsonl"
    result = source.export_to(path, "alice")
    assert (result.users, result.sessions, result.records) == (1, 3, 5) and result.bytes == path.stat().st_size
    assert not (tmp_path / "alice.jsonl.part").exists()
    one = exported(source, user_id="alice", session_id="a2")
    assert [json.loads(x).get("session_id") for x in one.splitlines()] == [None, "a2", "a2", "a2"]
    with pytest.raises(InvalidInputError, match="needs its user"):
        exported(source, session_id="a2")
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm, clock=_clock) as target:
        target.import_from(path)
        assert target.store.users() == ["alice"]
        assert exported(target) == exported(source, user_id="alice")


def _nothing_written(path, minilm) -> None:
    with AgentMemory.open(path, embedder=minilm) as target:
        assert target.store.users() == [] and target.store.count() == 0


def test_a_newer_format_is_refused_and_writes_nothing(source, tmp_path, minilm):
    head, rest = exported(source).split("\n", 1)
    newer = json.dumps({**json.loads(head), "version": FORMAT_VERSION + 1}) + "\n" + rest
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm) as target, \
            pytest.raises(FormatVersionError, match="newer cbmemory"):
        target.import_from(io.StringIO(newer))
    _nothing_written(tmp_path / "target.db", minilm)


@pytest.mark.parametrize("spoil", [
    lambda r: {**r, "position": -1}, lambda r: {**r, "occurred_at": "yesterday-ish"},
    lambda r: {**r, "vector": "not base64!"}, lambda r: {**r, "user_id": "x\x00y"},
    lambda r: {**r, "annotations": {"k": 1}}, lambda r: {**r, "unknown_field": 1},
    lambda r: {k: v for k, v in r.items() if k != "text"}, lambda r: {**r, "session_id": "elsewhere"}])
def test_one_bad_line_writes_nothing(source, tmp_path, minilm, spoil):
    lines = exported(source).splitlines()
    last = json.loads(lines[-1])
    lines[-1] = json.dumps(spoil(last))
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm) as target, \
            pytest.raises(InvalidInputError, match=f"line {len(lines)}"):
        target.import_from(io.StringIO("\n".join(lines)))
    _nothing_written(tmp_path / "target.db", minilm)


def test_not_a_memory_file(tmp_path, minilm):
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm) as target:
        for text in ("", '{"role": "user", "content": "hi"}\n', "not json\n", '{"format": "cbmemory-memories"}\n'):
            with pytest.raises(InvalidInputError):
                target.import_from(io.StringIO(text))


def test_another_embedder_embeds_again_and_no_vectors_embeds_back_the_same(source, tmp_path, minilm):
    text = exported(source)
    with AgentMemory.open(tmp_path / "four.db", embedder=FourDims(), clock=_clock) as other:
        result = other.import_from(io.StringIO(text))
        assert result.vectors == "embedded" and result.records == 6
        assert json.loads(exported(other).splitlines()[0])["embedder"] == {"name": "test-embedder", "dimension": 4}
        assert [r.text for r in other.session_records("bob")] == ["I adopted a dog named Rex."]
    bare = exported(source, vectors=False)
    assert '"vector":' not in bare and len(bare) < len(text) / 3
    with AgentMemory.open(tmp_path / "bare.db", embedder=minilm, clock=_clock) as target:
        assert target.import_from(io.StringIO(bare)).vectors == "embedded"
        assert exported(target) == text  # the same model gives the same vectors
        # and, embedded as a write embeds, what each user turn states is kept as the source kept it
        for user in ("alice", "bob"):
            said = [content_hash(t) for r in source.session_records(user) for t in kept_texts(r)]
            assert len(said) >= 1 and not set(said) & {r.content_hash for r in source.session_records(user)}
            mine, theirs = target.store.lookup_vectors(user, said), source.store.lookup_vectors(user, said)
            assert set(mine) == set(theirs) == set(said)
            assert all(np.array_equal(mine[h], theirs[h]) for h in said)


def test_supersession_links_travel_with_their_records(tmp_path, minilm):
    """A write-time supersession link (``MemoryRecord.supersedes``, opt-in ``IngestConfig.link_updates``) is
    exported with its record and imported back: the same bytes, and the target finds the later record."""
    linking = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
    with AgentMemory.open(tmp_path / "linked.db", embedder=minilm, clock=_clock, ingest=linking) as memory:
        memory.add_session("ana", "s1", [{"role": "user", "content": "I live in Paris and I love my neighbourhood."}],
                           date="2023-05-01")
        memory.add_session("ana", "s2", [{"role": "user", "content": "Big news: I moved to Porto last week."}],
                           date="2023-05-20")
        old, new = (memory.session_records("ana", s)[0] for s in ("s1", "s2"))
        assert new.supersedes == (old.record_id,)
        text = exported(memory)
    line = next(r for r in map(json.loads, text.splitlines()) if r.get("supersedes"))
    assert line["record_id"] == new.record_id and line["supersedes"] == [old.record_id]
    with AgentMemory.open(tmp_path / "target.db", embedder=minilm, clock=_clock, ingest=linking) as target:
        target.import_from(io.StringIO(text))  # the header names the ingest settings: the same ones here
        assert exported(target) == text
        assert target.session_records("ana", "s2")[0].supersedes == (old.record_id,)
