"""Integration layer (a real SQLite file): what two reads of the embedded store cost, counted, not timed
(issue 22). Work is counted in SQLite virtual-machine instructions (a progress handler called on every
instruction of the store's connection) and in JSON parses, so each test is deterministic on a busy machine;
the speed goals are the bench's (``cbmemory bench``, the long-session row).

- Break 5: an annotation filter's cost must not grow with the size of the records' annotations. The same
  records, once with two annotation keys each and once with 62 (about 13 KB), searched with the same filter:
  the same work (the annotations are read into the user's pair index once, at the first filtered search). Before, each pair of the filter re-parsed every record's JSON inside SQLite (``json_each``
  per pair), so the work grew with the keys and with the pairs; a listing still evaluates the filter in SQL,
  now with one ``json_each`` per record whatever the number of pairs.
- Break 7: the window of a hit (``with_window``, ``context_boost``) must not read its whole session. The same
  hits in a 40-turn and in a 4,000-turn session: the same work, up to the depth of the index's b-tree. The
  windows are found by position in the user's columns in memory (loaded once per user, as for a search;
  loaded before counting here), so the work counted is the windows' records read by rowid.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager

import numpy as np
import pytest

from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Hit, SearchFilters, Session
from cbmemory.recipes import get_recipe
from cbmemory.retrieval.engine import with_window
from cbmemory.retrieval.neighbourhood import context_boost
from cbmemory.retrieval.pool import fused, unite
from cbmemory.retrieval.stages import Fusion
from cbmemory.store import SQLiteStore
from cbmemory.store.candidates import Candidates
from cbmemory.store.signals import Signal
from cbmemory.store.sqlite import sql as q
from tests.contract.store_contract import DIM, NOW, T0, unit

TEAMS = ("red", "blue")
FILLER = {f"note{i:02d}": "x" * 200 for i in range(60)}  # 60 more keys, about 12.8 KB


def write_sessions(store, user, sessions, turns, annotations=lambda s: {}, first=0):
    for s in range(first, first + sessions):
        sid = f"s{s:03d}"
        msgs = validate_messages([{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} of {sid}",
                                   "turn_id": f"{sid}:{i}"} for i in range(turns)])
        ann = annotations(s)
        recs = build_records(user, sid, msgs, T0, NOW, annotations=ann)
        store.write([Session(user, sid, T0)], recs, np.stack([unit(i % DIM) for i in range(turns)]))


@contextmanager
def counted(store):
    """Counts the SQLite VM instructions the store's connection runs inside the block."""
    steps = [0]

    def step():
        steps[0] += 1
        return 0  # go on
    store._db.conn.set_progress_handler(step, 1)
    try:
        yield steps
    finally:
        store._db.conn.set_progress_handler(None, 1)


@pytest.fixture
def annotated(tmp_path):
    """Two stores of the same 200 records in 10 sessions: ``small`` with 2 annotation keys a record (team,
    session), ``large`` with the same two and 60 more of 200 characters."""
    stores = {}
    for name, extra in (("small", {}), ("large", FILLER)):
        store = SQLiteStore(tmp_path / f"{name}.db")
        store.bind_embedder("test-embedder", DIM)
        write_sessions(store, "u", 10, 20, lambda s, extra=extra: {"team": TEAMS[s % 2], "session": f"s{s}", **extra})
        stores[name] = store
    yield stores
    for store in stores.values():
        store.close()


def test_an_annotation_filter_costs_the_same_however_large_the_annotations(annotated):
    warm = SearchFilters(annotations={"team": "red"})
    for store in annotated.values():  # the user's columns and annotation pairs are read once, first
        assert len(store.search(Signal.VECTOR, "u", unit(0), 5, warm, now=NOW)) == 5
    work = {}
    for name, store in annotated.items():
        f = SearchFilters(annotations={"team": "blue", "session": "s3"})
        with counted(store) as steps:
            hits = store.search(Signal.VECTOR, "u", unit(1), 50, f, now=NOW)
            hits += store.search(Signal.BM25, "u", "turn", 50, f, now=NOW)
        assert len(hits) == 40 and {h.record.session_id for h in hits} == {"s003"}
        work[name] = steps[0]
    assert work["large"] <= 1.1 * work["small"], work  # before: about 7x (json_each over 62 keys per pair)


def test_annotations_are_read_once_however_many_pairs_and_searches(annotated, monkeypatch):
    """Each record's annotations are read from the file once, at the first filtered search, and each distinct
    text parsed once (a session's annotations are copied onto its records); a filter of 16 pairs and
    further searches read and parse nothing more."""
    from cbmemory.store.sqlite import annotation_index

    parsed, reads = [], []

    class CountingJson:
        @staticmethod
        def loads(text):
            parsed.append(len(text))
            return json.loads(text)
    monkeypatch.setattr(annotation_index, "json", CountingJson)
    store = annotated["large"]
    store._db.conn.set_trace_callback(lambda sql: reads.append(sql) if "annotations != '{}'" in sql else None)
    pairs = {"team": "red", **{k: v for k, v in list(FILLER.items())[:15]}}  # 16 pairs
    for f in (SearchFilters(annotations=pairs), SearchFilters(annotations={"team": "blue"}),
              SearchFilters(annotations={"session": "s4"})):
        store.search(Signal.VECTOR, "u", unit(0), 5, f, now=NOW)
        store.search(Signal.BM25, "u", "turn", 5, f, now=NOW)
    assert len(reads) == 1 and len(parsed) == 10  # 200 records, 10 sessions' texts
    write_sessions(store, "u2", 1, 3)  # another user's write changes nothing of u's
    write_sessions(store, "u", 1, 20, lambda s: {"team": "red"}, first=10)  # u's own: a session of 20 more
    assert len(store.search(Signal.VECTOR, "u", unit(0), 300, SearchFilters(annotations={"team": "red"}), now=NOW)) == 120
    assert len(reads) == 2 and len(parsed) == 11  # the appended records only


def test_a_listing_parses_each_record_once_whatever_the_number_of_pairs():
    c = sqlite3.connect(":memory:")
    for statement in q.SCHEMA:
        c.execute(statement)
    for n in (1, 16):
        where, params = q.filter_clause("u", SearchFilters(annotations={f"k{i}": "v" for i in range(n)}), 0.0)
        plan = [row[3] for row in c.execute(f"EXPLAIN QUERY PLAN {q.list_select(where, False, False)}", params)]
        assert sum("VIRTUAL TABLE" in step for step in plan) == 1, plan  # one json_each a record, not n


@pytest.fixture
def sessions(tmp_path):
    """One user's 40-turn session ``s000`` in one store and 4,000-turn session ``s000`` in another."""
    stores = {}
    for turns in (40, 4_000):
        store = SQLiteStore(tmp_path / f"session-{turns}.db")
        store.bind_embedder("test-embedder", DIM)
        write_sessions(store, "u", 1, turns)
        write_sessions(store, "other", 1, 50)  # another user, the same session id
        stores[turns] = store
    yield stores
    for store in stores.values():
        store.close()


def _hits(store, positions):
    by_position = {r.position: r for r in store.list_records("u", now=NOW)}
    return [Hit(by_position[p], 1.0 - p / 100) for p in positions]


def test_the_window_reads_the_hits_neighbours_not_their_session(sessions):
    work, shown = {}, {}
    for turns, store in sessions.items():
        hits = _hits(store, [10, 11, 25])
        store.neighbours("u", [("s000", "turn", 0)], 1, now=NOW)  # the user's columns, loaded once
        with counted(store) as steps:
            out = with_window(store, "u", hits, 1, SearchFilters(), NOW)
        work[turns] = steps[0]
        shown[turns] = [[r.position for r in h.context] for h in out]
    assert shown[40] == shown[4_000] == [[9, 11], [10, 12], [24, 26]]
    assert work[4_000] <= 1.5 * work[40], work  # before: the whole session, about 100x


def test_the_neighbour_term_reads_the_candidates_neighbours_not_their_session(sessions):
    config = get_recipe("default_no_window").retrieval
    work, ranked = {}, {}
    for turns, store in sessions.items():
        pool = fused(unite({"vector": Candidates.from_hits("u", _hits(store, [10, 12, 30]))}), {}, Fusion.WEIGHTED, 60)
        store.neighbours("u", [("s000", "turn", 0)], 1, now=NOW)  # the user's columns, loaded once
        with counted(store) as steps:
            ranking = context_boost(config, store, "u", pool, SearchFilters(), NOW, depth=10)
            out = ranking.hits(store, range(min(10, len(ranking.order))))
        work[turns] = steps[0]
        ranked[turns] = [(h.record.position, round(h.score, 6)) for h in out]
    assert ranked[40] == ranked[4_000] and {p for p, _ in ranked[40]} == {9, 10, 11, 12, 13, 29, 30, 31}
    assert work[4_000] <= 1.5 * work[40], work
