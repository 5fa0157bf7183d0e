"""Unit layer (store.couchbase): the slot-key links of an LLM enricher (``cbmemory.memory.updates.keyed``) over
the Couchbase store, against the in-process fake of the SDK (tests/support/couchbase_fake.py: KV is a dict,
SQL++ answers are scripted). Checked: a record's slot annotations are stored in its document and its exact-match
terms, and the lookup of the latest earlier statement with a key is one user's ``list_records`` SQL++ with the
reserved pair as bound parameters, newest first; its answer links the statement. What a server answers to that
SQL++ is the contract's (tests/contract/test_filter_semantics.py checks the annotation clause's meaning)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import numpy as np

from cbmemory.ingest import IngestConfig, build_records, validate_messages
from cbmemory.ingest.slots import marker, with_slots
from cbmemory.memory.updates import SLOT_SEARCHED, linked
from cbmemory.models import SearchFilters, Session, frozen_mapping
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q

T0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _said(user, session, text, when, slots):
    [rec] = build_records(user, session, validate_messages([{"role": "user", "content": text}]), when, NOW)
    return Session(user, session, when), replace(rec, annotations=frozen_mapping(with_slots(rec.annotations, slots)))


def test_a_keyed_statement_is_linked_through_one_users_listing(store, state):
    s1, paris = _said("u1", "s1", "I live in Paris.", T0, {"home_city": "Paris"})
    s2, porto = _said("u1", "s2", "Unpacking boxes in my Porto flat tonight.", T0 + timedelta(days=30),
                      {"home_city": "Porto"})
    store.write([s1], [paris], np.ones((1, 4)) / 2)
    body = state.docs["team_a.memory"][d.record_key(paris.record_id)]
    assert body["annotations"]["cbmemory.slot.home_city"] == "1"
    assert "cbmemory.slot.home_city\x1f1" in body["annotation_terms"]
    state.calls.clear()
    state.query_answer = lambda sql, o: ([{f: body[f] for f in d.RECORD_FIELDS}]
                                         if "cbmemory.slot.home_city" in o["named_parameters"].values() else [])
    [out] = linked(store, [porto], np.ones((1, 4)) / 2, NOW, IngestConfig(link_updates=True))
    assert out.supersedes == (paris.record_id,)
    expected = q.list_records("memory", "u1", SearchFilters(kinds=("turn",), annotations=marker("home_city"),
                                                            occurred_before=porto.occurred_at),
                              NOW, limit=SLOT_SEARCHED, newest_first=True)
    [query] = [c for c in state.calls if c[0] == "query"]
    assert query[1] == expected.sql and query[2]["named_parameters"] == dict(expected.params)
    assert "u1" in expected.params.values()
    # the same value found there links nothing
    state.query_answer = lambda sql, o: [{f: body[f] for f in d.RECORD_FIELDS}]
    _, again = _said("u1", "s3", "Still loving life in Paris.", T0 + timedelta(days=40), {"home_city": "Paris"})
    [out] = linked(store, [again], np.ones((1, 4)) / 2, NOW, IngestConfig(link_updates=True))
    assert out.supersedes == ()
