"""Unit layer: golden JSON of every request the Couchbase store sends, built offline.

Search bodies come from the SDK's own encoder (``SearchQueryBuilder.as_encodable``) wrapped the way the
SDK's C++ core wraps them (``search_body``); SQL++ parameters go through the SDK's ``N1QLQuery`` encoder;
KV expiries through the SDK's option processing. Expected JSON follows the Couchbase documentation:
Search request (``query``, ``knn`` with ``field``/``k``/``vector``/``filter``, ``size``, ``explain``,
``ctl.consistency``), query types (``term``, ``match`` + ``operator``, ``match_phrase``, ``conjuncts``,
``disjuncts`` + ``min``, ``bool``, date ranges with ``start``/``end``/``inclusive_*``), SQL++ named
parameters (``$name``) and ``obj.[expr]`` field selection.

No server is involved: this checks what is sent, not what a server answers (that is the live suite).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from importlib import resources

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import SearchFilters, Session
from cbmemory.store import couchbase_docs as d
from cbmemory.store import couchbase_requests as q
from cbmemory.text import content_words

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW_S = "2024-01-01T00:00:00.000000Z"
V = np.array([0.6, 0.8, 0.0], dtype=np.float32)
V_JSON = [float(np.float32(0.6)), float(np.float32(0.8)), 0.0]

# Filters a request always carries: the user, and "no expiry or an expiry after now".
USER_PRE = [
    {"field": "user_id", "term": "u1"},
    {"min": 1, "disjuncts": [{"field": "has_expiry", "bool": False},
                             {"field": "expires_at", "start": NOW_S, "inclusive_start": False}]},
]
USER_CONJ = [  # the same as conjuncts of a text query: zero boost, so they do not score
    {"field": "user_id", "term": "u1", "boost": 0.0},
    {"min": 1, "disjuncts": [{"field": "has_expiry", "bool": False, "boost": 0.0},
                             {"field": "expires_at", "start": NOW_S, "inclusive_start": False, "boost": 0.0}]},
]

HOSTILE = [
    "'", '"', "`", "``", "'; DROP INDEX `cbm_memory_user` ON `memory`; --", "$user_id", "$1",
    "a' OR '1'='1", '" OR ""="', "`memory` WHERE 1=1 --", "SELECT * FROM `users`", "DELETE FROM memory",
    "UNION SELECT RAW META().id", "NULL", "MISSING", "/* */", "+must -not", "field:value",
    'index_text:"a phrase"', "wild*card?", "fuzzy~2", "boost^10", "(a OR b) AND NOT c", "\\", "/regex.*/",
    '{"match_all": {}}', "}]}", "\u2028 line sep", "émoji 🎉 ünïcode", "%_", "a\nb\tc",
]


def body(request, limit=10, **opts):
    return q.search_body("cbmemory_memory", request, q.search_options(limit, **opts))


# ------------------------------------------------------------------ golden Search requests
def test_vector_request_golden():
    got = body(q.vector_request("u1", V, 20, SearchFilters(), NOW), 20)
    assert got == {
        "query": {"match_none": None},  # the SDK's stand-in when a request has only a vector search
        "knn": [{"field": "embedding", "k": 20, "vector": V_JSON, "filter": {"conjuncts": USER_PRE}}],
        "size": 20,
    }


def test_num_candidates_is_always_explicit():
    """Without it the SDK sends k=3 (couchbase/logic/search.py), silently capping recall."""
    got = body(q.vector_request("u1", V, 1, SearchFilters(), NOW), 1)
    assert got["knn"][0]["k"] == 1
    assert body(q.vector_request("u1", V, 500, SearchFilters(), NOW), 500)["knn"][0]["k"] == 500


def test_text_request_golden():
    got = body(q.text_request("u1", SearchFilters(), NOW, query="Biscuit the puppy?"))
    assert got == {
        "query": {"conjuncts": [*USER_CONJ,
                                {"field": "index_text", "match": "Biscuit the puppy?", "operator": "or"}]},
        "size": 10,
    }


def test_phrase_request_golden_dedupes_and_skips_empty_phrases():
    got = body(q.text_request("u1", SearchFilters(), NOW,
                              phrases=["Nordstrom friends and family sale", "  nordstrom FRIENDS and family sale",
                                       "?!", "7 May"]))
    assert got == {
        "query": {"conjuncts": [*USER_CONJ, {"min": 1, "disjuncts": [
            {"field": "index_text", "match_phrase": "Nordstrom friends and family sale"},
            {"field": "index_text", "match_phrase": "7 May"},
        ]}]},
        "size": 10,
    }


def test_nothing_to_match_sends_nothing():
    assert q.text_request("u1", SearchFilters(), NOW, query="the of and?") is None
    assert q.text_request("u1", SearchFilters(), NOW, query="   ") is None
    assert q.text_request("u1", SearchFilters(), NOW, phrases=["", "...", "\n"]) is None


def test_hybrid_request_golden_is_one_request_with_knn_and_text():
    req = q.hybrid_request("u1", V, 50, SearchFilters(), NOW, query="adopted puppy", phrases=["Biscuit"])
    got = body(req, 100, explain=True)
    assert got == {
        "query": {"conjuncts": [*USER_CONJ, {"min": 1, "disjuncts": [
            {"field": "index_text", "match": "adopted puppy", "operator": "or"},
            {"field": "index_text", "match_phrase": "Biscuit"},
        ]}]},
        "knn": [{"field": "embedding", "k": 50, "vector": V_JSON, "filter": {"conjuncts": USER_PRE}}],
        "explain": True,
        "size": 100,
    }


def test_hybrid_request_without_text_is_vector_only():
    got = body(q.hybrid_request("u1", V, 5, SearchFilters(), NOW, query="the?"), 10)
    assert got["query"] == {"match_none": None} and got["knn"][0]["k"] == 5


FULL = SearchFilters(session_ids=("s1", "s2", "s1"), kinds=("turn",), occurred_after=T0,
                     occurred_before=T0 + timedelta(days=1), ingested_before=NOW,
                     annotations={"topic": "work", "lang": "fr"})
FULL_CLAUSES = [
    {"min": 1, "disjuncts": [{"field": "session_id", "term": "s1"}, {"field": "session_id", "term": "s2"}]},
    {"min": 1, "disjuncts": [{"field": "kind", "term": "turn"}]},
    {"field": "occurred_at", "start": "2023-05-07T13:56:00.000000Z", "inclusive_start": True,
     "end": "2023-05-08T13:56:00.000000Z", "inclusive_end": True},
    {"field": "ingested_at", "end": NOW_S, "inclusive_end": True},
    {"field": "annotation_terms", "term": "lang\u001ffr"},
    {"field": "annotation_terms", "term": "topic\u001fwork"},
]


def _boosted(clause):
    """The same clause with boost 0 on every leaf (as in a text query's conjuncts)."""
    if "disjuncts" in clause:
        return {**clause, "disjuncts": [_boosted(c) for c in clause["disjuncts"]]}
    return {**clause, "boost": 0.0}


def test_filtered_vector_request_golden():
    got = body(q.vector_request("u1", V, 10, FULL, NOW))
    assert got["knn"][0]["filter"] == {"conjuncts": [*USER_PRE, *FULL_CLAUSES]}


def test_filtered_text_request_golden():
    got = body(q.text_request("u1", FULL, NOW, query="work"))
    assert got["query"] == {"conjuncts": [*USER_CONJ, *(_boosted(c) for c in FULL_CLAUSES),
                                          {"field": "index_text", "match": "work", "operator": "or"}]}


def test_empty_session_or_kind_filter_matches_nothing():
    got = body(q.vector_request("u1", V, 3, SearchFilters(session_ids=()), NOW))
    assert {"match_none": None} in got["knn"][0]["filter"]["conjuncts"]
    got = body(q.text_request("u1", SearchFilters(kinds=()), NOW, query="x"))
    assert {"match_none": None} in got["query"]["conjuncts"]


def test_at_plus_consistency_golden():
    from couchbase.mutation_state import MutationState
    from couchbase.result import MutationToken

    state = MutationState()
    for vb, seq in ((12, 7), (12, 9), (40, 3)):
        state.add_mutation_token(MutationToken({"partition_id": vb, "partition_uuid": 1000 + vb,
                                                "sequence_number": seq, "bucket_name": "cbmemory"}))
    got = body(q.text_request("u1", SearchFilters(), NOW, query="x"), consistent_with=state)
    assert got["ctl"] == {"consistency": {"level": "at_plus",
                                          "vectors": {"cbmemory_memory": {"12/1012": 9, "40/1040": 3}}}}


# ------------------------------------------------------------------ hostile input in Search requests
def _swap(obj, old, new):
    if isinstance(obj, dict):
        return {k: _swap(v, old, new) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_swap(v, old, new) for v in obj]
    return new if obj == old else obj


def _strings(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_text_is_a_match_value_and_never_changes_the_request_shape(evil):
    req = q.text_request("u1", SearchFilters(), NOW, query=evil)
    if req is None:  # nothing searchable in it (punctuation, stopwords): no request at all
        assert content_words(evil) == []
        return
    got = body(req)
    assert list(_strings(got)).count(evil) == 1
    assert got["query"]["conjuncts"][-1] == {"field": "index_text", "match": evil, "operator": "or"}
    assert _swap(got, evil, "PLACEHOLDER") == body(q.text_request("u1", SearchFilters(), NOW, query="PLACEHOLDER"))
    json.dumps(got)  # serialisable as is


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_phrase_is_a_match_phrase_value(evil):
    req = q.text_request("u1", SearchFilters(), NOW, phrases=[evil])
    if req is None:
        return
    got = body(req)
    assert got["query"]["conjuncts"][-1] == {"field": "index_text", "match_phrase": evil.strip()}
    assert "query" not in json.dumps(got["query"]["conjuncts"][-1])  # never a query-string query


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_ids_and_annotations_are_exact_term_values(evil):
    f = SearchFilters(session_ids=(evil,), annotations={"k": evil})
    got = body(q.hybrid_request(evil, V, 5, f, NOW, query="hello"))
    pre = got["knn"][0]["filter"]["conjuncts"]
    assert pre[0] == {"field": "user_id", "term": evil}
    assert pre[2] == {"min": 1, "disjuncts": [{"field": "session_id", "term": evil}]}
    assert pre[3] == {"field": "annotation_terms", "term": "k\u001f" + evil}
    assert got["query"]["conjuncts"][0] == {"field": "user_id", "term": evil, "boost": 0.0}
    benign = body(q.hybrid_request("someone", V, 5, SearchFilters(session_ids=("someone",),
                                                                    annotations={"k": "someone"}), NOW,
                                   query="hello"))
    assert _swap(_swap(got, evil, "someone"), "k\u001f" + evil, "k\u001fsomeone") == benign


def _dicts(obj):
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _dicts(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _dicts(v)


def test_no_query_string_query_is_ever_built():
    """A ``{"query": "..."}`` query-string query would interpret ``+ - : ^ * ~``; none is ever sent."""
    for evil in HOSTILE:
        got = body(q.hybrid_request("u1", V, 5, FULL, NOW, query=evil, phrases=[evil]))
        assert not any("query" in node for node in _dicts([got["query"], got["knn"]]))


# ------------------------------------------------------------------ hybrid: splitting one response
def _term(field, term, value):
    return {"value": value, "message": f"weight({field}:{term}^1.000000 in doc), product of:",
            "children": [{"value": 1.0, "message": "queryWeight(...)"}]}


def _text_expl(value):  # conjunction: zero-boost filters first, text last (as text_query builds it)
    return {"value": value, "message": "sum of:", "children": [
        _term("user_id", "u1", 0.0),
        {"value": 0.0, "message": "product of:", "children": [_term("has_expiry", "F", 0.0)]},
        {"value": value, "message": "product of:", "children": [_term("index_text", "puppi", value)]},
    ]}


def _knn_expl(value):  # bleve >= 2.4.3 (scorer_knn.go); older servers send null
    return {"value": value, "message": "sum of:", "children": [
        {"value": value, "message": "fieldWeight(embedding in doc 1f2e), score of:", "children": [
            {"value": value, "message": f"vector(field(embedding:1f2e) with similarity_metric(dot_product)={value:e}"}]}]}


def test_split_hit_found_by_both():
    expl = {"value": 2.5, "message": "sum of:", "children": [_text_expl(1.75), _knn_expl(0.75)]}
    assert q.split_hybrid_score(2.5, expl) == (1.75, 0.75)
    old = {"value": 2.5, "message": "sum of:", "children": [_text_expl(1.75), None]}
    assert q.split_hybrid_score(2.5, old) == (1.75, 0.75)


def test_split_hit_found_by_text_only():
    assert q.split_hybrid_score(1.75, _text_expl(1.75)) == (1.75, None)
    two = {"value": 1.2, "message": "sum of:", "children": [_term("user_id", "u1", 0.0), _text_expl(1.2)]}
    assert q.split_hybrid_score(1.2, two) == (1.2, None)


def test_split_hit_found_by_vector_only():
    assert q.split_hybrid_score(0.5, _knn_expl(0.5)) == (None, 0.5)
    assert q.split_hybrid_score(0.5, {}) == (None, 0.5)
    assert q.split_hybrid_score(-0.1, None) == (None, -0.1)


def test_split_ignores_user_text_that_looks_like_a_field():
    """A query word ``embedding`` or a user called ``index_text:x`` does not fool the split."""
    expl = _text_expl(1.0)
    expl["children"][0] = _term("user_id", "index_text:x", 0.0)
    expl["children"][2]["children"][0] = _term("index_text", "embedding", 1.0)
    assert q.split_hybrid_score(1.0, expl) == (1.0, None)


# ------------------------------------------------------------------ golden SQL++
def test_list_records_golden():
    st = q.list_records("memory", "u1", SearchFilters(), NOW, limit=5, newest_first=True)
    assert st.to_json() == {
        "statement": "SELECT m.`record_id`, m.`user_id`, m.`session_id`, m.`kind`, m.`position`, m.`turn_id`, "
                     "m.`role`, m.`speaker`, m.`text`, m.`index_text`, m.`occurred_at`, m.`ingested_at`, "
                     "m.`expires_at`, m.`annotations`, m.`source_ids`, m.`content_hash` FROM `memory` AS m "
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
                     "RETURNING META(m).id AS `key`, m.`user_id` AS `user_id`",
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
        "CREATE INDEX `cbm_sessions_user` IF NOT EXISTS ON `sessions`(`user_id`, `occurred_ts`, `session_id`)",
    ]


def _all_statements(user, session, filt, hashes):
    return [
        q.list_records("memory", user, filt, NOW, limit=3),
        q.erase_records("memory", user, session), q.erase_sessions("sessions", user, session),
        q.count_records("memory", NOW, user), q.list_sessions("sessions", user),
        q.lookup_vectors("memory", user, hashes),
        q.erase_empty_sessions("sessions", "memory", [user]), q.users_with_records("memory", [user]),
        q.session_records("memory", user, session),
        q.append_conflict("memory", user, session, hashes[0], 0, [session]),
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


# ------------------------------------------------------------------ documents, ids, TTL
def _record(expires_at=None, annotations=None):
    msgs = validate_messages([{"role": "user", "content": "I adopted a puppy", "turn_id": "s1:0"}])
    return build_records("u1", "s1", msgs, T0, NOW, expires_at=expires_at, annotations=annotations)[0]


def test_record_document_golden_and_round_trip():
    rec = _record(expires_at=NOW + timedelta(hours=1), annotations={"topic": "pets"})
    got = d.record_body(rec, V)
    assert got == {
        "schema": 1, "record_id": rec.record_id, "user_id": "u1", "session_id": "s1", "kind": "turn",
        "position": 0, "turn_id": "s1:0", "role": "user", "speaker": None, "text": "I adopted a puppy",
        "index_text": "[Sunday, 7 May 2023] user: I adopted a puppy",
        "occurred_at": "2023-05-07T13:56:00.000000Z", "occurred_ts": T0.timestamp(),
        "ingested_at": NOW_S, "ingested_ts": NOW.timestamp(),
        "expires_at": "2024-01-01T01:00:00.000000Z", "expires_ts": (NOW + timedelta(hours=1)).timestamp(),
        "has_expiry": True, "annotations": {"topic": "pets"}, "annotation_terms": ["topic\u001fpets"],
        "source_ids": [], "content_hash": rec.content_hash, "embedding": V_JSON,
    }
    assert d.body_to_record(json.loads(json.dumps(got))) == rec
    assert np.allclose(d.body_vector(got), V)


def test_record_without_expiry_is_indexed_as_such():
    got = d.record_body(_record(), V)
    assert (got["expires_at"], got["expires_ts"], got["has_expiry"]) == (None, None, False)


def test_ttl_is_a_relative_document_expiry_sent_in_seconds():
    from couchbase.logic.options import get_valid_multi_args
    from couchbase.options import UpsertMultiOptions, UpsertOptions

    wall = datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert d.kv_expiry(None, wall) is None
    assert d.kv_expiry(wall + timedelta(hours=1), wall) == timedelta(hours=1)
    assert d.kv_expiry(wall + timedelta(seconds=0.2), wall) == timedelta(seconds=1)  # rounded up, never 0
    assert d.kv_expiry(wall - timedelta(seconds=1), wall) is None  # already past: kept, hidden by reads
    opts = UpsertMultiOptions(per_key_options={"k": UpsertOptions(expiry=d.kv_expiry(wall + timedelta(hours=1), wall))})
    assert get_valid_multi_args(UpsertMultiOptions, {}, opts) == {"per_key_options": {"k": {"expiry": 3600}}}


def test_document_keys():
    rec = _record()
    assert d.record_key(rec.record_id) == rec.record_id and len(rec.record_id) == 32
    for evil in HOSTILE:
        key = d.record_key(evil)
        assert key.startswith("r::") and len(key) == 35 and key == d.record_key(evil)
        assert d.session_key(evil, evil).startswith("s::") and d.user_key(evil).startswith("u::")
    assert d.session_key("u1", "s1") != d.session_key("u1", "s2") != d.user_key("u1")


def test_session_document_round_trip():
    s = Session("u1", "s1", T0, {"place": "Lyon"})
    got = d.session_body(s)
    assert got == {"schema": 1, "user_id": "u1", "session_id": "s1", "occurred_at": "2023-05-07T13:56:00.000000Z",
                   "occurred_ts": T0.timestamp(), "annotations": {"place": "Lyon"}}
    assert d.body_to_session(got) == s


def test_signature_decides_unchanged():
    a = d.record_body(_record(), V)
    assert d.record_signature(a) == d.record_signature(json.loads(json.dumps(a)))
    assert d.record_signature(a) != d.record_signature(d.record_body(_record(annotations={"x": "y"}), V))
    assert d.record_signature(a) != d.record_signature(d.record_body(_record(expires_at=NOW), V))


def test_client_side_check_matches_the_filters():
    rec = _record(annotations={"topic": "pets"})
    assert d.matches(rec, "u1", SearchFilters(), NOW)
    assert not d.matches(rec, "u2", SearchFilters(), NOW)
    assert not d.matches(_record(expires_at=NOW), "u1", SearchFilters(), NOW)
    assert d.matches(_record(expires_at=NOW), "u1", SearchFilters(), NOW - timedelta(seconds=1))
    assert not d.matches(rec, "u1", SearchFilters(session_ids=()), NOW)
    assert not d.matches(rec, "u1", SearchFilters(kinds=("round",)), NOW)
    assert d.matches(rec, "u1", SearchFilters(occurred_after=T0, occurred_before=T0), NOW)
    assert not d.matches(rec, "u1", SearchFilters(occurred_after=T0 + timedelta(seconds=1)), NOW)
    assert not d.matches(rec, "u1", SearchFilters(ingested_before=NOW - timedelta(seconds=1)), NOW)
    assert not d.matches(rec, "u1", SearchFilters(annotations={"topic": "work"}), NOW)


# ------------------------------------------------------------------ the Search index definition
def test_shipped_index_definition():
    raw = json.loads((resources.files("cbmemory") / "data" / d.INDEX_DEFINITION_FILE).read_text())
    assert raw["type"] == "fulltext-index" and raw["sourceType"] == "gocbcore"
    assert raw["params"]["store"] == {"indexType": "scorch", "segmentVersion": 16}  # vectors need segment 16
    assert raw["params"]["doc_config"]["mode"] == "scope.collection.type_field"
    mapping = raw["params"]["mapping"]
    assert mapping["default_mapping"]["enabled"] is False and mapping["index_dynamic"] is False
    props = mapping["types"]["agentmemory.memory"]["properties"]

    def field(name):
        (f,) = props[name]["fields"]
        return f

    assert field("embedding") == {"name": "embedding", "type": "vector", "dims": 384, "similarity": "dot_product",
                                  "vector_index_optimized_for": "recall", "index": True}
    text = field("index_text")
    assert text["analyzer"] == "en" and text["include_term_vectors"] is True  # stems; phrases need positions
    for name in ("user_id", "session_id", "kind", "annotation_terms"):
        assert field(name)["type"] == "text" and field(name)["analyzer"] == "keyword"
    for name in ("occurred_at", "ingested_at", "expires_at"):
        assert field(name)["type"] == "datetime"
    assert field("has_expiry")["type"] == "boolean"
    assert not any(f.get("store") for p in props.values() for f in p["fields"])  # hits are fetched by key


def test_index_definition_for_a_keyspace_and_dimension():
    from couchbase.management.search import SearchIndex

    defn = d.search_index_definition("mybucket", "team_a", "mem", 8, "idx_a")
    assert defn["name"] == "idx_a" and defn["sourceName"] == "mybucket"
    assert list(defn["params"]["mapping"]["types"]) == ["team_a.mem"]
    assert d.index_dimension(defn["params"]) == 8
    assert d.index_dimension(d.search_index_definition("b", "s", "c", 384)["params"]) == 384
    sdk_index = SearchIndex.from_json(defn)  # what ensure_schema hands to upsert_index
    assert sdk_index.name == "idx_a" and sdk_index.source_type == "gocbcore"
    assert json.loads(sdk_index.as_dict()["params_json"]) == defn["params"]
    with pytest.raises(InvalidInputError):
        d.search_index_definition("b", "s", "c", 0)
