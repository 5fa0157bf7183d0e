"""Unit layer: golden SQL++ of every statement the Couchbase store sends, built offline: fixed text with
named parameters (``$name``) and ``obj.[expr]`` field selection, parameters encoded by the SDK's own
``N1QLQuery``; hostile values only ever travel as parameters, and names outside Couchbase's alphabet are
refused. No server is involved (that is the live suite).
"""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseVector
from cbmemory.errors import InvalidInputError
from cbmemory.models import SearchFilters
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q

from .couchbase_golden import FULL, HOSTILE, NOW, T0


# ------------------------------------------------------------------ golden SQL++
def test_list_records_golden():
    st = q.list_records("memory", "u1", SearchFilters(), NOW, limit=5, newest_first=True)
    assert st.to_json() == {
        "statement": "SELECT m.`record_id`, m.`user_id`, m.`session_id`, m.`kind`, m.`position`, m.`turn_id`, "
                     "m.`role`, m.`speaker`, m.`text`, m.`index_text`, m.`occurred_at`, m.`ingested_at`, "
                     "m.`expires_at`, m.`annotations`, m.`source_ids`, m.`content_hash`, m.`supersedes` FROM `memory` AS m "
                     "WHERE m.`user_id` = $user_id AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now) "
                     "ORDER BY m.`occurred_ts` DESC, m.`session_id` DESC, m.`position` DESC, META(m).id DESC "
                     "LIMIT $limit",
        "named_parameters": {"user_id": "u1", "now": NOW.timestamp(), "limit": 5},
    }


def test_time_range_lookup_golden():
    st = q.list_records("memory", "u1", FULL, NOW)
    where = st.sql.split(" WHERE ", 1)[1].split(" ORDER BY ")[0]
    assert where == ("m.`user_id` = $user_id AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now) "
                     "AND m.`session_id` IN $session_ids AND m.`kind` IN $kinds AND m.`occurred_ts` >= $occ_lo "
                     "AND m.`occurred_ts` <= $occ_hi AND m.`ingested_ts` <= $ing_hi "
                     "AND m.`annotations`.[$ak0] = $av0 AND m.`annotations`.[$ak1] = $av1")
    assert st.params == {"user_id": "u1", "now": NOW.timestamp(), "session_ids": ["s1", "s2", "s1"],
                         "kinds": ["turn"], "occ_lo": T0.timestamp(), "occ_hi": (T0 + timedelta(days=1)).timestamp(),
                         "ing_hi": NOW.timestamp(), "ak0": "lang", "av0": "fr", "ak1": "topic", "av1": "work"}


def test_erase_golden():
    assert q.erase_records("memory", "u1").to_json() == {
        "statement": "DELETE FROM `memory` AS m WHERE m.`user_id` = $user_id RETURNING RAW META(m).id",
        "named_parameters": {"user_id": "u1"}}
    assert q.erase_records("memory", "u1", "s2").to_json() == {
        "statement": "DELETE FROM `memory` AS m WHERE m.`user_id` = $user_id AND m.`session_id` = $session_id "
                     "RETURNING RAW META(m).id",
        "named_parameters": {"user_id": "u1", "session_id": "s2"}}
    assert q.erase_sessions("sessions", "u1", "s2").sql == (
        "DELETE FROM `sessions` AS s WHERE s.`user_id` = $user_id AND s.`session_id` = $session_id "
        "RETURNING RAW META(s).id")
    assert q.purge_expired("memory", NOW).to_json() == {
        "statement": "DELETE FROM `memory` AS m WHERE m.`expires_ts` IS NOT NULL AND m.`expires_ts` <= $now "
                     "RETURNING META(m).id AS `key`, m.`user_id` AS `user_id`, m.`record_id` AS `record_id`",
        "named_parameters": {"now": NOW.timestamp()}}
    assert q.erase_empty_sessions("sessions", "memory", ["u1", "u2"]).to_json() == {
        "statement": "DELETE FROM `sessions` AS s WHERE s.`user_id` IN $user_ids "
                     "AND [s.`user_id`, s.`session_id`] NOT IN (SELECT RAW [m.`user_id`, m.`session_id`] "
                     "FROM `memory` AS m WHERE m.`user_id` IN $user_ids) RETURNING RAW META(s).id",
        "named_parameters": {"user_ids": ["u1", "u2"]}}
    assert q.users_with_records("memory", ["u1"]).to_json() == {
        "statement": "SELECT DISTINCT RAW m.`user_id` FROM `memory` AS m WHERE m.`user_id` IN $user_ids",
        "named_parameters": {"user_ids": ["u1"]}}


def test_write_mode_statements_golden():
    assert q.session_records("memory", "u1", "s1").to_json() == {
        "statement": "SELECT m.`record_id`, m.`kind` FROM `memory` AS m "
                     "WHERE m.`user_id` = $user_id AND m.`session_id` = $session_id",
        "named_parameters": {"user_id": "u1", "session_id": "s1"}}
    assert q.append_conflict("memory", "u1", "s1", "turn", 3, ["r3", "r4"]).to_json() == {
        "statement": "SELECT RAW m.`record_id` FROM `memory` AS m WHERE m.`user_id` = $user_id "
                     "AND m.`session_id` = $session_id AND m.`kind` = $kind AND m.`position` >= $position "
                     "AND m.`record_id` NOT IN $record_ids LIMIT 1",
        "named_parameters": {"user_id": "u1", "session_id": "s1", "kind": "turn", "position": 3,
                             "record_ids": ["r3", "r4"]}}


def test_other_statements_golden():
    assert q.count_records("memory", NOW, "u1").to_json() == {
        "statement": "SELECT RAW COUNT(1) FROM `memory` AS m WHERE m.`user_id` = $user_id "
                     "AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now)",
        "named_parameters": {"now": NOW.timestamp(), "user_id": "u1"}}
    assert q.count_records("memory", NOW).sql.startswith(
        "SELECT RAW COUNT(1) FROM `memory` AS m WHERE m.`user_id` IS VALUED AND")
    assert q.list_users("memory").sql == (
        "SELECT DISTINCT RAW m.`user_id` FROM `memory` AS m WHERE m.`user_id` IS VALUED")
    assert q.list_sessions("sessions", "u1").to_json() == {
        "statement": "SELECT s.`user_id`, s.`session_id`, s.`occurred_at`, s.`annotations` FROM `sessions` AS s "
                     "WHERE s.`user_id` = $user_id ORDER BY s.`occurred_ts`, s.`session_id`",
        "named_parameters": {"user_id": "u1"}}
    assert q.lookup_vectors("memory", "u1", ["h1", "h2"]).to_json() == {
        "statement": "SELECT m.`content_hash`, m.`embedding` FROM `memory` AS m "
                     "WHERE m.`user_id` = $user_id AND m.`content_hash` IN $hashes",
        "named_parameters": {"user_id": "u1", "hashes": ["h1", "h2"]}}
    assert [s.sql for s in q.secondary_indexes("memory", "sessions")] == [
        "CREATE INDEX `cbm_memory_user` IF NOT EXISTS ON `memory`(`user_id`, `session_id`, `occurred_ts`, `position`)",
        "CREATE INDEX `cbm_memory_expiry` IF NOT EXISTS ON `memory`(`expires_ts`)",
        "CREATE INDEX `cbm_memory_hash` IF NOT EXISTS ON `memory`(`user_id`, `content_hash`)",
        # neighbours: one span per window of (user, session, kind, positions)
        "CREATE INDEX `cbm_memory_window` IF NOT EXISTS ON `memory`(`user_id`, `session_id`, `kind`, `position`)",
        # the array key leads: an UNNEST scan uses an array index only then; same variable as the statement's
        "CREATE INDEX `cbm_memory_sparse` IF NOT EXISTS ON `memory`(ALL ARRAY e.`t` FOR e IN `sparse` END, `user_id`)",
        # superseding: the records linking to any of a few ids, per user
        "CREATE INDEX `cbm_memory_supersedes` IF NOT EXISTS ON `memory`(ALL ARRAY x FOR x IN `supersedes` END, "
        "`user_id`)",
        "CREATE INDEX `cbm_sessions_user` IF NOT EXISTS ON `sessions`(`user_id`, `occurred_ts`, `session_id`)",
    ]


SPARSE_Q = SparseVector(np.array([7, 1012, 30521]), np.array([0.5, 1.25, 2.0], dtype=np.float32))


def test_sparse_search_golden():
    st = q.sparse_search("memory", "u1", SPARSE_Q, SearchFilters(), NOW, 20)
    assert st.to_json() == {
        "statement": "SELECT META(m).id AS `key`, `score` FROM `memory` AS m UNNEST m.`sparse` AS e "
                     "WHERE m.`user_id` = $user_id AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now) "
                     "AND e.`t` IN $terms GROUP BY META(m).id "
                     "LETTING `score` = SUM(e.`w` * $weights[ARRAY_POSITION($terms, e.`t`)]) HAVING `score` > 0 "
                     "ORDER BY `score` DESC, META(m).id ASC LIMIT $limit",
        "named_parameters": {"user_id": "u1", "now": NOW.timestamp(), "terms": [7, 1012, 30521],
                             "weights": [0.5, 1.25, 2.0], "limit": 20},
    }
    params = st.params
    assert all(type(t) is int for t in params["terms"]) and all(type(w) is float for w in params["weights"])


def test_sparse_search_takes_the_same_filters_as_the_listing():
    st = q.sparse_search("memory", "u1", SPARSE_Q, FULL, NOW, 4)
    where = st.sql.split(" WHERE ", 1)[1].split(" AND e.`t` IN $terms")[0]
    listing = q.list_records("memory", "u1", FULL, NOW)
    assert where == listing.sql.split(" WHERE ", 1)[1].split(" ORDER BY ")[0]
    assert {k: v for k, v in st.params.items() if k not in ("terms", "weights", "limit")} == listing.params


def test_sparse_weights_travel_as_the_exact_float32_values():
    odd = SparseVector(np.array([3]), np.array([0.1], dtype=np.float32))
    (w,) = q.sparse_search("memory", "u1", odd, SearchFilters(), NOW, 1).params["weights"]
    assert w == float(np.float32(0.1)) and w != 0.1  # as stored in documents (couchbase_docs.sparse_terms)


LISTED = ("m.`record_id`, m.`user_id`, m.`session_id`, m.`kind`, m.`position`, m.`turn_id`, m.`role`, "
          "m.`speaker`, m.`text`, m.`index_text`, m.`occurred_at`, m.`ingested_at`, m.`expires_at`, "
          "m.`annotations`, m.`source_ids`, m.`content_hash`, m.`supersedes`")


def test_records_without_sparse_golden():
    assert q.records_without_sparse("memory", "u1", NOW, limit=50).to_json() == {
        "statement": f"SELECT {LISTED} FROM `memory` AS m "
                     "WHERE m.`user_id` = $user_id AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now) "
                     "AND m.`sparse` IS MISSING "
                     "ORDER BY m.`occurred_ts` ASC, m.`session_id` ASC, m.`position` ASC, META(m).id ASC "
                     "LIMIT $limit",
        "named_parameters": {"user_id": "u1", "now": NOW.timestamp(), "limit": 50},
    }
    unlimited = q.records_without_sparse("memory", "u1", NOW)
    assert not unlimited.sql.endswith("LIMIT $limit") and dict(unlimited.params) == {"user_id": "u1",
                                                                                      "now": NOW.timestamp()}


def test_records_without_sparse_is_the_listing_with_one_condition_more():
    """Same fields, same live-records condition, same conversation order as ``list_records`` (every kind: no
    kind or session restriction)."""
    listing = q.list_records("memory", "u1", SearchFilters(), NOW, limit=7)
    missing = q.records_without_sparse("memory", "u1", NOW, limit=7)
    head, tail = listing.sql.split(" ORDER BY ")
    assert missing.sql == f"{head} AND m.`sparse` IS MISSING ORDER BY {tail}"
    assert missing.params == listing.params


def test_users_missing_sparse_golden():
    assert q.users_missing_sparse("memory", NOW).to_json() == {
        "statement": "SELECT DISTINCT RAW m.`user_id` FROM `memory` AS m WHERE m.`user_id` IS VALUED "
                     "AND m.`sparse` IS MISSING AND (m.`expires_ts` IS NOT VALUED OR m.`expires_ts` > $now)",
        "named_parameters": {"now": NOW.timestamp()},
    }


def _all_statements(user, session, filt, hashes):
    return [
        q.list_records("memory", user, filt, NOW, limit=3),
        q.erase_records("memory", user, session), q.erase_sessions("sessions", user, session),
        q.count_records("memory", NOW, user), q.list_sessions("sessions", user),
        q.lookup_vectors("memory", user, hashes),
        q.erase_empty_sessions("sessions", "memory", [user]), q.users_with_records("memory", [user]),
        q.session_records("memory", user, session),
        q.append_conflict("memory", user, session, hashes[0], 0, [session]),
        q.sparse_search("memory", user, SPARSE_Q, filt, NOW, 5),
        q.records_without_sparse("memory", user, NOW, limit=4),
    ]


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_values_never_reach_sql_text(evil):
    filt = SearchFilters(session_ids=(evil,), kinds=(evil,), annotations={evil: evil})
    bad = _all_statements(evil, evil, filt, [evil])
    good = _all_statements("x", "x", SearchFilters(session_ids=("x",), kinds=("x",), annotations={"x": "x"}), ["x"])
    for b, g in zip(bad, good, strict=True):
        assert b.sql == g.sql  # values only travel as parameters
        assert evil in [x for v in b.params.values() for x in (v if isinstance(v, list) else [v])]


@pytest.mark.parametrize("evil", HOSTILE[:8])
def test_sdk_encodes_named_parameters_as_json(evil):
    from couchbase.logic.n1ql import N1QLQuery
    from couchbase.n1ql import QueryScanConsistency

    st = q.list_records("memory", evil, SearchFilters(session_ids=(evil,)), NOW)
    params = N1QLQuery.create_query_object(st.sql, st.options(
        scan_consistency=QueryScanConsistency.REQUEST_PLUS)).params
    assert params["statement"] == st.sql and params["scan_consistency"] == "request_plus"
    assert params["named_parameters"]["$user_id"] == json.dumps(evil).encode()
    assert params["named_parameters"]["$session_ids"] == json.dumps([evil]).encode()
    st = q.sparse_search("memory", evil, SPARSE_Q, SearchFilters(), NOW, 3)
    params = N1QLQuery.create_query_object(st.sql, st.options()).params["named_parameters"]
    assert params["$user_id"] == json.dumps(evil).encode()
    assert json.loads(params["$terms"]) == [7, 1012, 30521] and json.loads(params["$weights"]) == [0.5, 1.25, 2.0]


@pytest.mark.parametrize("name", ["mem`ory", "memory` WHERE 1=1 --", "_system", "%x", "a.b", "a b", "", "m\u00e9m",
                                  "x" * 252])
def test_names_outside_couchbases_alphabet_are_refused(name):
    with pytest.raises(InvalidInputError):
        q.list_users(name)
    with pytest.raises(InvalidInputError):
        d.search_index_definition("cbmemory", name, "memory", 8)


def test_index_names_are_checked():
    with pytest.raises(InvalidInputError):
        q.ident("cbm-x", "index")
    with pytest.raises(InvalidInputError):
        d.check_index_name("1abc")
