"""Unit layer: what the Couchbase store sends for ``neighbours`` (issue 22, break 7) and for annotations
beyond the limits (break 5), built offline against the in-process SDK fake (tests/support/couchbase_fake.py,
no backend coverage: the live contract suite runs the same contract tests against a server). Golden SQL++:
one disjunct per window whose bounds are named parameters, over the ``cbm_memory_window`` index
(user, session, kind, position); hostile session ids and kinds only ever travel as parameters."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import SearchFilters, Session, frozen_mapping
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q
from cbmemory.store.couchbase.client import CHUNK
from cbmemory.store.windows import Window
from cbmemory.validation import MAX_ANNOTATION_KEYS

from .couchbase_golden import HOSTILE, NOW, T0

FIELDS = ("m.`record_id`, m.`user_id`, m.`session_id`, m.`kind`, m.`position`, m.`turn_id`, m.`role`, "
          "m.`speaker`, m.`text`, m.`index_text`, m.`occurred_at`, m.`ingested_at`, m.`expires_at`, "
          "m.`annotations`, m.`source_ids`, m.`content_hash`, m.`supersedes`")


def test_neighbours_statement_golden():
    st = q.neighbours("memory", "u1", [Window("s1", "turn", 1, 3), Window("s2", "round", -1, 1)],
                      SearchFilters(annotations={"topic": "work"}), NOW)
    assert st.to_json() == {
        "statement": f"SELECT {FIELDS} FROM `memory` AS m WHERE m.`user_id` = $user_id "
                     "AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now) "
                     "AND m.`annotations`.[$ak0] = $av0 "
                     "AND ((m.`session_id` = $ws0 AND m.`kind` = $wk0 AND m.`position` BETWEEN $wlo0 AND $whi0) "
                     "OR (m.`session_id` = $ws1 AND m.`kind` = $wk1 AND m.`position` BETWEEN $wlo1 AND $whi1)) "
                     "ORDER BY m.`occurred_ts` ASC, m.`session_id` ASC, m.`position` ASC, META(m).id ASC",
        "named_parameters": {"user_id": "u1", "now": NOW.timestamp(), "ak0": "topic", "av0": "work",
                             "ws0": "s1", "wk0": "turn", "wlo0": 1, "whi0": 3,
                             "ws1": "s2", "wk1": "round", "wlo1": -1, "whi1": 1},
    }


@pytest.mark.parametrize("evil", HOSTILE)
def test_neighbours_statement_binds_hostile_ids_as_values(evil):
    st = q.neighbours("memory", evil, [Window(evil, evil, 0, 2)], SearchFilters(annotations={evil: evil}), NOW)
    golden = q.neighbours("memory", "u", [Window("s", "k", 0, 2)], SearchFilters(annotations={"a": "b"}), NOW)
    assert st.sql == golden.sql  # the text never changes with the values
    assert {st.params[p] for p in ("user_id", "ws0", "wk0", "ak0", "av0")} == {evil}


def _session(user, session, n, **kw):
    msgs = validate_messages([{"role": "user", "content": f"turn {i}", "turn_id": f"{session}:{i}"}
                              for i in range(n)])
    return Session(user, session, T0), build_records(user, session, msgs, T0, NOW, **kw)


def _rows(recs):
    return [{f: d.record_body(r, np.ones(4, np.float32) / 2)[f] for f in d.RECORD_FIELDS} for r in recs]


def test_neighbours_send_one_statement_of_merged_windows_and_read_its_rows(store, state):
    _, recs = _session("u1", "s1", 6)
    state.query_answer = lambda sql, o: _rows(recs[1:4])
    got = store.neighbours("u1", [("s1", "turn", 3), ("s1", "turn", 2)], 1, SearchFilters(kinds=("turn",)), now=NOW)
    (query,) = [c for c in state.calls if c[0] == "query"]
    expected = q.neighbours("memory", "u1", [Window("s1", "turn", 1, 4)], SearchFilters(kinds=("turn",)), NOW)
    assert query[1] == expected.sql and query[2]["named_parameters"] == dict(expected.params)
    assert query[2]["scan_consistency"].value == "request_plus"
    assert got == list(recs[1:4])


def test_many_windows_go_in_chunks_and_come_back_in_conversation_order(store, state):
    _, recs = _session("u1", "s1", 2 * CHUNK + 10)
    by_statement = iter([_rows(recs[CHUNK:]), _rows(recs[:CHUNK])])  # a later chunk's rows first
    state.query_answer = lambda sql, o: next(by_statement)
    anchors = [("s1", "turn", 2 * i) for i in range(CHUNK + 5)]  # radius 0: one window each, none merged
    got = store.neighbours("u1", anchors, 0, now=NOW)
    sent = [c for c in state.calls if c[0] == "query"]
    assert [len([k for k in c[2]["named_parameters"] if k.startswith("ws")]) for c in sent] == [CHUNK, 5]
    assert [r.position for r in got] == sorted(r.position for r in recs)


def test_neighbours_that_can_find_nothing_send_nothing(store, state):
    assert store.neighbours("u1", [], 1, now=NOW) == []
    assert store.neighbours("u1", [("s1", "turn", 1)], 1, SearchFilters(kinds=()), now=NOW) == []
    assert store.neighbours("u1", [("s1", "turn", 1)], 1, SearchFilters(session_ids=()), now=NOW) == []
    assert [c for c in state.calls if c[0] == "query"] == []


def test_annotations_beyond_the_limits_send_nothing(store, state):
    sess, recs = _session("u1", "s1", 2)
    many = frozen_mapping({f"k{i}": "v" for i in range(MAX_ANNOTATION_KEYS + 1)})
    with pytest.raises(InvalidInputError, match="MAX_ANNOTATION_KEYS"):
        store.write([sess], [recs[0], replace(recs[1], annotations=many)], np.ones((2, 4), np.float32) / 2)
    with pytest.raises(InvalidInputError, match="MAX_ANNOTATION_KEYS"):
        store.write([replace(sess, annotations=many)], recs, np.ones((2, 4), np.float32) / 2)
    assert state.calls == []  # not a read, not a write
