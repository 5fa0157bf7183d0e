"""Unit layer (retrieval.current): which memories a later one changed, as of a date, and what takes a hidden
hit's place. A stand-in store holds the links (``superseding``, as the store contract answers it from the
newer records' ``supersedes``) and the records: the backends' own answers are the contract tests' to check;
here, the read logic over them (chains, reverts, as_of, places, derived records)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory.errors import InvalidDateError, InvalidInputError
from cbmemory.models import Hit, MemoryRecord, SearchFilters
from cbmemory.retrieval.current import Superseded, changes_at, changes_of
from cbmemory.validation import check_reads

D0 = datetime(2023, 5, 7, tzinfo=timezone.utc)


def rec(rid: str, day: int, supersedes: tuple[str, ...] = (), session: str = "s") -> MemoryRecord:
    when = D0 + timedelta(days=day)
    return MemoryRecord(rid, "ana", session, "turn", day, "user", rid, rid, when, when, rid, supersedes=supersedes)


class Links:
    """Just what ``Superseded`` reads of a store: ``superseding`` and ``get_records``, over a few records."""

    def __init__(self, *records: MemoryRecord):
        self.records = {r.record_id: r for r in records}
        self.asked: list[list[str]] = []

    def superseding(self, user_id: str, ids: list[str], now: datetime | None = None) -> dict[str, tuple[str, ...]]:
        self.asked.append(list(ids))
        return {i: tuple(r.record_id for r in self.records.values() if i in r.supersedes) for i in ids
                if any(i in r.supersedes for r in self.records.values())}

    def get_records(self, user_id: str, ids: list[str]) -> list[MemoryRecord]:
        return [self.records[i] for i in ids if i in self.records]


def derived(rid: str, day: int, sources: tuple[str, ...], kind: str = "event") -> MemoryRecord:
    when = D0 + timedelta(days=day)
    return MemoryRecord(rid, "ana", "s", kind, day, "user", rid, rid, when, when, rid,  # type: ignore[arg-type]
                        source_ids=sources)


def superseded(store: Links, as_of: datetime | None = None) -> Superseded:
    return Superseded(store, "ana", D0 + timedelta(days=365), as_of)  # type: ignore[arg-type]  # a stand-in


HISTORY = Links(rec("paris", 0), rec("porto", 30, ("paris",)), rec("paris2", 60, ("porto",)), rec("chat", 5))


def records(*ids: str) -> list[MemoryRecord]:
    return [HISTORY.records[i] for i in ids]


def test_a_chain_of_changes_ends_at_what_holds_now():
    s = superseded(HISTORY)
    assert s.of(records("paris", "porto", "paris2", "chat")) == {"paris", "porto"}
    assert s.current("paris") == ("paris2",)  # A -> B -> A: the revert holds
    assert s.current("porto") == ("paris2",) and s.current("chat") == ()


def test_as_of_counts_only_the_changes_said_by_then():
    between = superseded(HISTORY, D0 + timedelta(days=40))
    assert between.of(records("paris", "porto")) == {"paris"}  # Porto held on day 40
    assert between.current("paris") == ("porto",)
    before = superseded(HISTORY, D0 + timedelta(days=10))
    assert before.of(records("paris", "porto")) == set()
    assert changes_at(HISTORY, "ana", ["paris"], None, D0 + timedelta(days=10)) == {}  # type: ignore[arg-type]


def test_each_record_is_asked_of_the_store_once():
    store = Links(*HISTORY.records.values())
    s = superseded(store)
    s.of(records("paris", "chat"))
    s.of(records("paris", "chat", "porto"))
    assert store.asked == [["paris", "chat"], ["porto"]]


def hit(rid: str, score: float) -> Hit:
    return Hit(HISTORY.records[rid], score)


def test_a_hidden_hit_gives_its_place_to_what_holds_now():
    s = superseded(HISTORY)
    out = s.instead([hit("paris", 0.9), hit("chat", 0.5)], SearchFilters())
    assert [h.record.record_id for h in out] == ["paris2", "chat"]
    assert out[0].score == 0.9  # the place and score of the hit it stands in for
    # one that ranks further down moves up to the hidden one's place, once
    out = s.instead([hit("porto", 0.9), hit("chat", 0.5), hit("paris2", 0.1)], SearchFilters())
    assert [(h.record.record_id, h.score) for h in out] == [("paris2", 0.1), ("chat", 0.5)]


def test_a_stand_in_the_filters_leave_out_is_not_shown():
    s = superseded(HISTORY)
    out = s.instead([hit("paris", 0.9), hit("chat", 0.5)], SearchFilters(occurred_before=D0 + timedelta(days=50)))
    assert [h.record.record_id for h in out] == ["chat"]


def test_changed_records_leave_the_context():
    s = superseded(HISTORY)
    h = Hit(HISTORY.records["chat"], 1.0, context=(HISTORY.records["paris"], HISTORY.records["paris2"]))
    assert [r.record_id for r in s.without_context([h])[0].context] == ["paris2"]


def test_check_reads_bounds_a_date_alone_by_the_end_of_its_day():
    end = datetime(2023, 5, 20, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert check_reads(False, "2023-05-20") == end
    assert check_reads(True, "2023/05/20 (Sat)") == end
    assert check_reads(False, datetime(2023, 5, 20).date()) == end
    assert check_reads(False, "2023-05-20T10:00:00Z") == datetime(2023, 5, 20, 10, tzinfo=timezone.utc)
    assert check_reads(False, "2023/05/20 (Sat) 10:00") == datetime(2023, 5, 20, 10, tzinfo=timezone.utc)
    assert check_reads(False, None) is None


def test_check_reads_refuses_what_is_not_a_bool_or_a_date():
    for flag in ("yes", 1, None):
        with pytest.raises(InvalidInputError, match="current_only"):
            check_reads(flag, None)
    with pytest.raises(InvalidInputError, match="as_of must be a datetime"):
        check_reads(False, 20230520)
    with pytest.raises(InvalidDateError, match="as_of"):
        check_reads(False, "someday")


def test_a_derived_record_is_changed_when_every_record_it_was_made_from_was():
    event = derived("ev-paris", 0, ("paris",))  # "Ana lives in Paris", extracted from the turn "paris"
    both = derived("ev-both", 5, ("paris", "chat"))  # made from a changed turn and one that holds
    summary = derived("sum", 60, ("paris", "porto"), kind="summary")  # every source changed (A -> B -> A)
    store = Links(*HISTORY.records.values(), event, both, summary)
    assert changes_of(store, "ana", [event, both, summary, HISTORY.records["chat"]], None, None) == {  # type: ignore[arg-type]
        "ev-paris": ("porto",), "sum": ("porto", "paris2")}
    s = superseded(store)
    assert s.of([event, both, summary]) == {"ev-paris", "sum"}
    assert s.current("ev-paris") == ("paris2",)  # followed on from the turns that changed its source
    out = s.instead([Hit(event, 0.9), Hit(both, 0.5)], SearchFilters())
    assert [h.record.record_id for h in out] == ["paris2", "ev-both"]
    # as of day 40 Porto had changed Paris, not yet Porto: the event of Paris is changed, the summary is not
    between = superseded(store, D0 + timedelta(days=40))
    assert between.of([event, summary]) == {"ev-paris"}
    assert changes_of(store, "ana", [derived("orphan", 0, ())], None, None) == {}  # type: ignore[arg-type]
