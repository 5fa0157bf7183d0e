"""Contract layer: a memory file moves between backends through the store contract alone: SQLite -> Couchbase
-> SQLite gives back the same file, byte for byte. Couchbase is the SDK fake of tests/support (documents in
dicts); its SQL++ answers are computed here from the documents the store wrote (the statements' own
parameters pick the user and the hashes), so what is checked is what the store sends and how it reads the
rows back, not a Couchbase server."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta, timezone

from cbmemory import AgentMemory, Message
from cbmemory.store import SQLiteStore
from cbmemory.store.couchbase import CouchbaseStore
from cbmemory.store.couchbase import docs as d
from tests.support.couchbase_fake import FakeCluster, FakeState
from tests.support.embedders import FourDims

NOW = datetime(2023, 6, 1, 12, 0, tzinfo=timezone.utc)


def _clock() -> datetime:
    return NOW


def answer_from_docs(state: FakeState, scope: str):
    """SQL++ answers for the reads an export makes (users, sessions, records, vectors), from the documents."""
    def answer(sql: str, options) -> list:
        params = options.get("named_parameters") or {} if hasattr(options, "get") else {}
        memory = list(state.docs.get(f"{scope}.memory", {}).values())
        sessions = list(state.docs.get(f"{scope}.sessions", {}).values())
        user = params.get("user_id")
        if not sql.startswith("SELECT"):  # the store's index definitions
            return []
        if "SELECT DISTINCT RAW" in sql:
            return [m["user_id"] for m in memory]
        if "`embedding`" in sql and "$hashes" in sql:
            return [{"content_hash": m["content_hash"], d.VECTOR_FIELD: m[d.VECTOR_FIELD]} for m in memory
                    if m["user_id"] == user and m["content_hash"] in params["hashes"]]
        if "`sessions`" in sql:
            return [{k: s[k] for k in ("user_id", "session_id", "occurred_at", "annotations")}
                    for s in sorted(sessions, key=lambda s: (s["occurred_at"], s["session_id"])) if s["user_id"] == user]
        if "ORDER BY" in sql and "`memory`" in sql:
            rows = [m for m in memory if m["user_id"] == user]
            return [{f: m.get(f) for f in d.RECORD_FIELDS} for m in rows]
        raise AssertionError(f"an export sent a statement this fake does not answer: {sql}")

    return answer


def test_sqlite_to_couchbase_to_sqlite_gives_back_the_same_file(tmp_path):
    with AgentMemory(SQLiteStore(tmp_path / "a.db"), embedder=FourDims(), clock=_clock) as first:
        first.add_session("alice", "s1", [{"role": "user", "content": "I moved to Lyon yesterday."},
                                          {"role": "assistant", "content": "Nice!"}], date="2023-05-07",
                          annotations={"channel": "mobile"}, ttl=timedelta(days=30))
        rid = first.session_records("alice", "s1")[0].record_id
        first.add_messages("alice", "s2", [Message("user", "When did I move?", restates=(rid,))], date="2023-05-20")
        first.add_session("bob", "b1", [{"role": "user", "content": "Rex is my dog."}], date="2023-05-01")
        original = io.StringIO()
        first.export_to(original)
    text = original.getvalue()

    state = FakeState()
    state.query_answer = answer_from_docs(state, d.DEFAULT_SCOPE)
    with AgentMemory(CouchbaseStore(FakeCluster(state), "cbm"), embedder=FourDims(), clock=_clock) as cb:
        result = cb.import_from(io.StringIO(text))
        assert (result.sessions, result.records, result.vectors) == (3, 4, "kept")
        assert len(state.docs[f"{d.DEFAULT_SCOPE}.memory"]) == 4
        via = io.StringIO()
        cb.export_to(via)
    assert via.getvalue() == text

    with AgentMemory(SQLiteStore(tmp_path / "b.db"), embedder=FourDims(), clock=_clock) as last:
        last.import_from(io.StringIO(via.getvalue()))
        back = io.StringIO()
        last.export_to(back)
    assert back.getvalue() == text
    echo = [json.loads(x) for x in text.splitlines() if '"session_id":"s2"' in x and '"record"' in x]
    assert echo[0]["source_ids"] == [rid]
