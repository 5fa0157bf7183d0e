"""Unit layer (issue 29 items 7 and 9): what the agent seam's warnings say and what its date fallback does,
with a stand-in memory (pure: no store, no model). A fault's log line names no file path and no user or
session id (they stay on the ``MemoryFault`` for ``on_error``); ``recall(today="2023-08-01")`` takes the
string as ``add_session`` does, and a ``today`` that does not parse falls back to the clock, reported."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

import pytest

from cbmemory.agent import MemoryFault, recall, report_fault
from cbmemory.errors import InvalidInputError
from cbmemory.recipes import get_recipe

NOW = datetime(2024, 5, 6, 12, 0, tzinfo=timezone.utc)  # Monday, 6 May 2024


class NoMemories:
    """The part of AgentMemory that recall uses, finding nothing."""

    recipe = get_recipe("default")

    def clock(self):
        return NOW

    def search(self, query, user_id, k=None, filters=None, *, recipe=None, reference_date=None, current_only=False,
               as_of=None):
        self.reference, self.state = reference_date, (current_only, as_of)
        return []


def test_a_fault_logs_no_file_path_and_no_user_or_session_id(caplog):
    fault = MemoryFault("save", "turns not stored (StoreUnavailableError: /srv/app/data/memory.db is locked by "
                        "another connection; user 'alice-7781' in session 'support-2024-05')",
                        "alice-7781", "support-2024-05")
    seen = []
    with caplog.at_level(logging.WARNING, logger="cbmemory.agent"):
        report_fault(fault, seen.append)
    text = caplog.text
    assert "/srv/app" not in text and "memory.db" not in text
    assert "alice-7781" not in text and "support-2024-05" not in text
    assert "StoreUnavailableError" in text and "is locked" in text  # what went wrong is still said
    assert seen == [fault] and "alice-7781" in seen[0].detail  # the hook gets everything


def test_recall_takes_an_iso_date_string_as_today():
    faults = []
    out = recall(NoMemories(), "What did I do last week?", "alice", today="2023-08-01", on_error=faults.append)
    assert faults == [] and out.fault is None  # old: AttributeError inside the fail-open fallback
    assert "Today is Tuesday, 1 August 2023" in out.text


def test_recall_takes_a_today_that_does_not_parse_as_the_clock_and_reports_it():
    faults = []
    memory = NoMemories()
    out = recall(memory, "What did I do last week?", "alice", today="31/12/2024", on_error=faults.append)
    assert "Today is Monday, 6 May 2024" in out.text and memory.reference == NOW
    assert len(faults) == 1 and faults[0].stage == "recall" and "31/12/2024" in faults[0].detail


class Broken(NoMemories):
    """A memory whose search fails (a store gone): recall fails open."""

    def search(self, query, user_id, k=None, filters=None, *, recipe=None, reference_date=None, current_only=False, as_of=None):
        raise OSError("disk gone")


def test_recall_says_how_it_showed_the_memories_on_every_path():
    # issue 32: Recall.config, how the memories were (or would have been) shown, was None when recall found
    # no query to search and when it failed open; adapters looked the recipe up again to render hits
    recipe = get_recipe("default").with_(name="ranked", token_budget=300)
    ranked = recipe.context.with_(order="rank")
    for memory, query, context in ((NoMemories(), "puppy", None), (NoMemories(), " \x00 ", None),
                                   (Broken(), "puppy", None), (Broken(), "puppy", ranked)):
        faults = []
        out = recall(memory, query, "alice", recipe=recipe, context=context, on_error=faults.append)
        assert out.config == (context or recipe.context)
        assert out.config.token_budget == 300  # the budget travels with how the memories are shown
        assert (out.fault is not None) == isinstance(memory, Broken) == bool(faults)


def test_recall_passes_the_state_reads_and_says_today_is_as_of_without_a_today():
    memory = NoMemories()
    out = recall(memory, "Where do I live?", "alice", as_of="2023-05-20", current_only=True)
    assert memory.state == (True, "2023-05-20") and "Today is Saturday, 20 May 2023" in out.text
    out = recall(memory, "Where do I live?", "alice", as_of="2023-05-20", today="2023-08-01")
    assert "Today is Tuesday, 1 August 2023" in out.text  # a today given wins
    with pytest.raises(InvalidInputError, match="current_only"):
        recall(memory, "q", "alice", current_only="yes")
    with pytest.raises(InvalidInputError, match="as_of"):
        recall(memory, "q", "alice", as_of=5)
