"""Unit layer: the Couchbase documents (record, session, meta), their keys, times, TTL and sparse vectors, and
the Search index definition, built offline; TTL options go through the SDK's own option processing. No server involved.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from importlib import resources

import numpy as np
import pytest

from cbmemory.dates import MAX_INSTANT, MIN_INSTANT, to_utc
from cbmemory.embedding.sparse import SparseVector
from cbmemory.errors import InvalidInputError, InvalidVectorError
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session
from cbmemory.store.couchbase import docs as d

from .couchbase_golden import HOSTILE, NOW, NOW_S, T0, V_JSON, V


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
        "source_ids": [], "supersedes": [], "content_hash": rec.content_hash, "embedding": V_JSON,
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


# ------------------------------------------------------------------ sparse vectors and the meta document
SV = SparseVector(np.array([3, 17, 2000]), np.array([0.1, 1.5, 2.25], dtype=np.float32))


def test_a_sparse_vector_is_stored_as_term_objects_sql_can_unnest():
    rec = _record()
    got = d.record_body(rec, V, SV)
    assert got == {**d.record_body(rec, V), "sparse": [{"t": 3, "w": float(np.float32(0.1))}, {"t": 17, "w": 1.5},
                                                        {"t": 2000, "w": 2.25}]}
    assert [type(e["t"]) for e in got["sparse"]] == [int] * 3  # JSON numbers, not numpy scalars
    stored = json.loads(json.dumps(got))
    assert d.body_sparse(stored) == SV  # exactly: float32 weights survive as JSON doubles
    assert d.body_to_record(stored) == rec  # the record reads back the same with or without the field
    assert "sparse" not in d.record_body(rec, V) and d.body_sparse(d.record_body(rec, V)) is None
    empty = d.record_body(rec, V, SparseVector(np.array([], dtype=np.int32), np.array([], dtype=np.float32)))
    assert empty["sparse"] == [] and len(d.body_sparse(empty)) == 0


@pytest.mark.parametrize("bad", [
    "3:0.5", {"t": 3, "w": 0.5}, [3, 0.5], [{"t": 3}], [{"w": 0.5}], [{"t": "3", "w": 0.5}], [{"t": 3.0, "w": 0.5}],
    [{"t": True, "w": 0.5}], [{"t": 3, "w": "0.5"}], [{"t": 3, "w": None}], [{"t": 3, "w": False}],
    [{"t": 5, "w": 1.0}, {"t": 3, "w": 1.0}], [{"t": 3, "w": 1.0}, {"t": 3, "w": 1.0}], [{"t": -1, "w": 1.0}],
    [{"t": 2 ** 31, "w": 1.0}], [{"t": 2 ** 70, "w": 1.0}], [{"t": 3, "w": 1e300}], [None],
])
def test_a_malformed_sparse_field_is_a_typed_error(bad):
    body = {**d.record_body(_record(), V), "sparse": bad}
    with pytest.raises(InvalidVectorError):
        d.body_sparse(body)
    assert d.body_to_record(body) == _record()  # reading the record itself never looks at it


def test_a_document_without_a_sparse_vector_counts_as_changed_once_one_is_written():
    rec = _record()
    assert d.record_signature(d.record_body(rec, V)) != d.record_signature(d.record_body(rec, V, SV))
    assert d.record_signature(d.record_body(rec, V, SV)) == d.record_signature(json.loads(json.dumps(
        d.record_body(rec, V, SV))))


def test_meta_document_fields():
    assert d.meta_body("e", 4) == {"schema": 1, "embedder_name": "e", "embedder_dimension": 4}
    assert d.meta_doc(d.sparse_meta("splade")) == {"schema": 1, "sparse_encoder": "splade"}
    assert d.meta_doc({**d.embedder_meta("e", 4), **d.sparse_meta("splade")}) == {
        "schema": 1, "embedder_name": "e", "embedder_dimension": 4, "sparse_encoder": "splade"}


def test_an_expiry_past_the_search_range_is_left_to_the_key_check():
    """The index cannot hold it: flagged, the record could never be found; the key-by-key check applies it."""
    assert d.record_body(_record(expires_at=datetime(3000, 1, 1, tzinfo=timezone.utc)), V)["has_expiry"] is False
    assert d.record_body(_record(expires_at=d.SEARCH_TIME_MAX), V)["has_expiry"] is True


def test_times_always_have_four_digit_years():
    """``strftime("%Y")`` writes year 5 as ``5`` on Linux, which no parser reads back."""
    early = datetime(5, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    assert d.rfc3339(early) == "0005-01-02T03:04:05.000006Z"
    assert d.parse_time(d.rfc3339(early)) == early
    assert d.rfc3339(T0) == "2023-05-07T13:56:00.000000Z"


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
    for name in d.TEXT_FIELDS:  # the indexed text and the raw turn, as in the embedded store's BM25
        text = field(name)
        assert text["type"] == "text" and text["analyzer"] == "en"  # stems
        assert text["include_term_vectors"] is True  # phrases need positions
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
    props = defn["params"]["mapping"]["types"]["team_a.mem"]["properties"]
    assert set(d.TEXT_FIELDS) <= set(props)  # both full-text fields, whatever the keyspace
    sdk_index = SearchIndex.from_json(defn)  # what ensure_schema hands to upsert_index
    assert sdk_index.name == "idx_a" and sdk_index.source_type == "gocbcore"
    assert json.loads(sdk_index.as_dict()["params_json"]) == defn["params"]
    with pytest.raises(InvalidInputError):
        d.search_index_definition("b", "s", "c", 0)


def test_couchbase_documents_with_out_of_range_times_read_back_clamped():
    """Poison input (tests/reliability/test_poison_input.py): stored times out of range read back clamped."""
    day = to_utc("2023-05-07")
    ok = [{"role": "user", "content": "I adopted a puppy called Biscuit."}]
    rec = build_records("alice", "s1", validate_messages(ok), day, day)[0]
    body = d.record_body(rec, np.ones(4, dtype=np.float32) / 2)
    body.update(occurred_at="9999-12-31T23:59:59.999999Z", ingested_at="0001-01-01T00:00:00+01:00",
                expires_at="9999-12-31T23:00:00-05:00")
    got = d.body_to_record(body)
    assert (got.occurred_at, got.ingested_at, got.expires_at) == (MAX_INSTANT, MIN_INSTANT, MAX_INSTANT)
    session = d.session_body(Session("alice", "s1", day))
    session["occurred_at"] = "9999-12-31T23:59:59.999999Z"
    assert d.body_to_session(session).occurred_at == MAX_INSTANT
    assert d.parse_time(d.rfc3339(day)) == day
