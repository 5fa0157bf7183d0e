"""Unit layer (mcp_server): the MCP tools as data and plain calls, over a scripted memory: the schemas (no
``user_id`` under a scope, required without one, nothing else accepted), the scope no argument escapes, a
confirmation before anything is erased, and every fault (bad input, a store that raises, a recall that
failed open) turned into one ``ToolFault`` sentence, with the memory never called for a refused call."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cbmemory import ForgetResult, IngestResult, InvalidInputError, MemoryFault, Session
from cbmemory.mcp_server import SPECS, TOOLS, ToolFault, call


class Scripted:
    """The memory the tools call; records each call; ``raises`` makes every call raise it."""

    def __init__(self, raises: BaseException | None = None, fault: MemoryFault | None = None):
        self.calls: list[tuple] = []
        self.raises, self.fault = raises, fault

    def clock(self) -> datetime:
        return datetime(2023, 6, 1, 12, tzinfo=timezone.utc)

    def _log(self, *call):
        self.calls.append(call)
        if self.raises is not None:
            raise self.raises

    def recall(self, query, user_id, *, today=None, k=None, on_error=None, current_only=False, as_of=None):
        self._log("recall", user_id, query, today, k)
        self.state = (current_only, as_of)
        return type("R", (), {"text": "Today is Thursday, 1 June 2023.", "fault": self.fault})()

    def save(self, user_id, session_id, messages, *, date=None, on_error=None):
        self._log("save", user_id, session_id, [m.content for m in messages], date)
        return IngestResult(1, 0, 0, ("r1",))

    def search(self, query, user_id, k=None, filters=None, *, reference_date=None, current_only=False, as_of=None):
        self._log("search", user_id, query, k, filters)
        self.state = (current_only, as_of)
        return []

    def forget(self, user_id, session_id=None):
        self._log("forget", user_id, session_id)
        return ForgetResult(3, 1)

    def session_records(self, user_id, session_id=None, *, limit=None, newest_first=False):
        return []

    def sessions(self, user_id):
        self._log("sessions", user_id)
        return [Session(user_id, "s1", self.clock())]


def test_the_schemas_name_a_user_only_without_a_scope():
    assert [t.name for t in TOOLS] == ["remember", "recall", "search", "forget", "sessions"]
    for spec in TOOLS:
        scoped, shared = spec.schema(scoped=True), spec.schema(scoped=False)
        assert scoped["additionalProperties"] is False and shared["additionalProperties"] is False
        assert "user_id" not in scoped["properties"] and "user_id" not in scoped["required"]
        assert shared["required"][0] == "user_id" and shared["properties"]["user_id"]["maxLength"] == 256
        assert len(spec.description) > 40
    assert SPECS["forget"].schema(True)["properties"]["confirm"]["const"] is True


@pytest.mark.parametrize("name,args", [("recall", {"query": "q", "user_id": "bob"}),
                                       ("forget", {"confirm": True, "user_id": "bob"}),
                                       ("sessions", {"user_id": "alice"})])
def test_under_a_scope_no_argument_names_a_user(name, args):
    memory = Scripted()
    with pytest.raises(ToolFault, match="serves one user"):
        call(memory, name, args, "alice")
    assert memory.calls == []


def test_without_a_scope_the_call_names_its_user():
    memory = Scripted()
    for bad in ({"query": "q"}, {"query": "q", "user_id": 7}, {"query": "q", "user_id": ""},
                {"query": "q", "user_id": "a\x00b"}, {"query": "q", "user_id": "u" * 300}):
        with pytest.raises(ToolFault):
            call(memory, "recall", bad, None)
    assert memory.calls == []
    call(memory, "recall", {"query": "q", "user_id": "bob"}, None)
    assert memory.calls[0][:2] == ("recall", "bob")


@pytest.mark.parametrize("name,args,says", [
    ("drop", {}, "no tool 'drop'"), ("recall", {"query": "q", "sql": "1"}, "takes no argument 'sql'"),
    ("recall", {"query": 3}, "wrong type"), ("recall", {"query": "  "}, "empty"),
    ("search", {"query": "q", "k": 0}, "between 1 and 50"), ("search", {"query": "q", "k": True}, "wrong type"),
    ("forget", {}, "confirm=true"), ("forget", {"confirm": "yes"}, "wrong type"),
    ("remember", {"content": ""}, "empty"), ("remember", {"content": "hi", "session": "s\x01"}, "control"),
    ("remember", {"content": "hi", "date": "someday"}, "cannot parse date")])
def test_bad_calls_are_one_sentence_and_never_reach_the_memory(name, args, says):
    memory = Scripted()
    with pytest.raises(ToolFault, match=says):
        call(memory, name, args, "alice")
    assert memory.calls == []


def test_faults_of_the_memory_are_tool_faults():
    with pytest.raises(ToolFault, match="memory is unavailable .RuntimeError: disk on fire"):
        call(Scripted(raises=RuntimeError("disk on fire")), "sessions", {}, "alice")
    with pytest.raises(ToolFault, match="search failed: bad filter"):
        call(Scripted(raises=InvalidInputError("bad filter")), "search", {"query": "q"}, "alice")
    fault = MemoryFault("recall", "no memories recalled (StoreUnavailableError: locked)", "alice")
    with pytest.raises(ToolFault, match=r"could not recall .*locked.*Today is Thursday"):
        call(Scripted(fault=fault), "recall", {"query": "q"}, "alice")


def test_remember_dates_a_note_and_forget_erases_what_it_says():
    memory = Scripted()
    text, data = call(memory, "remember", {"content": "I moved.", "date": "2023-05-07"}, "alice")
    assert memory.calls[0][:4] == ("save", "alice", "mcp-2023-05-07", ["I moved."])
    assert data["session"] == "mcp-2023-05-07" and text == "stored in session mcp-2023-05-07 dated 2023-05-07"
    call(memory, "remember", {"content": "Now."}, "alice")
    assert memory.calls[1][2] == "mcp-2023-06-01"  # one session a day by default, the memory's clock
    text, data = call(memory, "forget", {"confirm": True, "session": "s1"}, "alice")
    assert memory.calls[2] == ("forget", "alice", "s1") and data == {"records": 3, "sessions": 1, "session": "s1"}


def test_recall_and_search_pass_the_state_reads_and_check_their_types():
    for name in ("recall", "search"):
        assert {"current_only", "as_of"} <= set(SPECS[name].schema(True)["properties"])
        memory = Scripted()
        call(memory, name, {"query": "q"}, "alice")
        assert memory.state == (False, None)  # the defaults: every memory, now
        call(memory, name, {"query": "q", "current_only": True, "as_of": "2023-05-20"}, "alice")
        assert memory.state == (True, "2023-05-20")  # a date alone: AgentMemory reads it as its day's end
        with pytest.raises(ToolFault, match="wrong type"):
            call(Scripted(), name, {"query": "q", "current_only": "yes"}, "alice")
        with pytest.raises(ToolFault, match="wrong type"):
            call(Scripted(), name, {"query": "q", "as_of": 20230520}, "alice")
