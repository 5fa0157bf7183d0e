"""Unit layer: golden JSON of every Search request the Couchbase store sends, built offline.

Search bodies come from the SDK's own encoder (``SearchQueryBuilder.as_encodable``) wrapped the way the
SDK's C++ core wraps them (``search_body``). Expected JSON follows the Couchbase documentation: Search
request (``query``, ``knn`` with ``field``/``k``/``vector``/``filter``, ``size``, ``ctl.consistency``),
query types (``term``, ``match`` + ``operator``, ``match_phrase``, ``conjuncts``, ``disjuncts`` + ``min``,
``bool``, date ranges with ``start``/``end``/``inclusive_*``). SQL++ statements are in test_sqlpp.py,
document bodies and the index definition in test_documents.py.

No server is involved: this checks what is sent, not what a server answers (that is the live suite).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from cbmemory.claims import SLOTS, rule_phrases, rule_words
from cbmemory.models import SearchFilters
from cbmemory.retrieval.followed import claim_query
from cbmemory.store.couchbase import docs as d
from cbmemory.store.couchbase import requests as q
from cbmemory.store.signals import Signal
from cbmemory.text import content_words

from .couchbase_golden import FULL, HOSTILE, NOW, NOW_S, V_JSON, V

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



def words_on_both_fields(*words):
    """The text clause of a query: each word a ``match`` on both text fields, equal boosts (one word: no
    outer disjunction)."""
    per_word = [{"min": 1, "disjuncts": [{"field": f, "match": w, "operator": "or", "boost": 1.0}
                                         for f in ("index_text", "text")]} for w in words]
    return per_word[0] if len(per_word) == 1 else {"min": 1, "disjuncts": per_word}


def phrase_on_both_fields(phrase):
    return {"min": 1, "disjuncts": [{"field": f, "match_phrase": phrase, "boost": 1.0} for f in ("index_text", "text")]}




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


def test_text_request_golden_is_each_content_word_on_both_fields_with_equal_boosts():
    """The embedded store's BM25 weighs the indexed text and the raw turn equally and searches the query's
    content words (stopwords out, each word once); the Search request does the same on both fields."""
    got = body(q.text_request("u1", SearchFilters(), NOW, query="Biscuit the puppy? PUPPY"))
    assert got == {
        "query": {"conjuncts": [*USER_CONJ, words_on_both_fields("biscuit", "puppy")]},
        "size": 10,
    }
    assert q.FIELD_BOOSTS == {"index_text": 1.0, "text": 1.0}
    assert d.TEXT_FIELDS == ("index_text", "text")
    one = body(q.text_request("u1", SearchFilters(), NOW, query="puppy"))
    assert one["query"]["conjuncts"][-1] == words_on_both_fields("puppy")


def test_phrase_request_golden_dedupes_and_skips_empty_phrases():
    got = body(q.text_request("u1", SearchFilters(), NOW,
                              phrases=["Nordstrom friends and family sale", "  nordstrom FRIENDS and family sale",
                                       "?!", "7 May"]))
    assert got == {
        "query": {"conjuncts": [*USER_CONJ, {"min": 1, "disjuncts": [
            phrase_on_both_fields("Nordstrom friends and family sale"),
            phrase_on_both_fields("7 May"),
        ]}]},
        "size": 10,
    }


def test_words_and_phrases_in_one_text_clause():
    got = body(q.text_request("u1", SearchFilters(), NOW, query="adopted puppy", phrases=["Biscuit"]))
    assert got["query"]["conjuncts"][-1] == {"min": 1, "disjuncts": [
        *words_on_both_fields("adopted", "puppy")["disjuncts"], phrase_on_both_fields("Biscuit")]}


def test_nothing_to_match_sends_nothing():
    assert q.text_request("u1", SearchFilters(), NOW, query="the of and?") is None
    assert q.text_request("u1", SearchFilters(), NOW, query="   ") is None
    assert q.text_request("u1", SearchFilters(), NOW, phrases=["", "...", "\n"]) is None


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
                                          words_on_both_fields("work")]}


def test_empty_session_or_kind_filter_matches_nothing():
    got = body(q.vector_request("u1", V, 3, SearchFilters(session_ids=()), NOW))
    assert {"match_none": None} in got["knn"][0]["filter"]["conjuncts"]
    got = body(q.text_request("u1", SearchFilters(kinds=()), NOW, query="x"))
    assert {"match_none": None} in got["query"]["conjuncts"]


def test_an_annotation_key_holding_the_separator_matches_nothing():
    """Stored annotation keys are ids (no control characters): a filter key holding ``\x1f`` must not match
    the term of another key whose value holds it (``a\x1fb`` = ``c`` vs ``a`` = ``b\x1fc``)."""
    got = body(q.vector_request("u1", V, 3, SearchFilters(annotations={"a\u001fb": "c"}), NOW))
    assert got["knn"][0]["filter"]["conjuncts"][-1] == {"match_none": None}
    assert not any("annotation_terms" in json.dumps(c) for c in got["knn"][0]["filter"]["conjuncts"])


def test_instants_the_search_service_cannot_take_never_reach_it():
    """bleve refuses range endpoints outside 1677-12-01..2262-04-11T11:59:59Z (the whole request fails):
    such bounds are dropped or become match_none, and ``now`` is clamped."""
    utc = timezone.utc
    far = SearchFilters(occurred_after=datetime(1, 1, 2, tzinfo=utc), occurred_before=datetime(9999, 12, 30, tzinfo=utc),
                        ingested_after=datetime(3000, 1, 1, tzinfo=utc), kinds=("turn",))
    got = body(q.vector_request("u1", V, 3, far, datetime(3000, 1, 1, tzinfo=utc)))
    pre = got["knn"][0]["filter"]["conjuncts"]
    assert pre[1]["disjuncts"][1] == {"field": "expires_at", "start": "2262-04-11T11:59:59.000000Z",
                                      "inclusive_start": False}
    assert pre[2:] == [{"min": 1, "disjuncts": [{"field": "kind", "term": "turn"}]}, {"match_none": None}]
    before = SearchFilters(ingested_before=datetime(1600, 1, 1, tzinfo=utc))
    assert body(q.vector_request("u1", V, 3, before, NOW))["knn"][0]["filter"]["conjuncts"][2:] == [
        {"match_none": None}]


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
def test_hostile_text_reaches_the_request_only_as_its_content_words(evil):
    req = q.text_request("u1", SearchFilters(), NOW, query=evil)
    if req is None:  # nothing searchable in it (punctuation, stopwords): no request at all
        assert content_words(evil) == []
        return
    got = body(req)
    wanted = list(dict.fromkeys(content_words(evil)))
    assert got["query"]["conjuncts"][-1] == words_on_both_fields(*wanted)
    assert got == body(q.text_request("u1", SearchFilters(), NOW, query=" ".join(wanted)))
    json.dumps(got)  # serialisable as is


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_phrase_is_a_match_phrase_value(evil):
    req = q.text_request("u1", SearchFilters(), NOW, phrases=[evil])
    if req is None:
        return
    got = body(req)
    assert got["query"]["conjuncts"][-1] == phrase_on_both_fields(evil.strip())
    assert "query" not in json.dumps(got["query"]["conjuncts"][-1])  # never a query-string query


@pytest.mark.parametrize("evil", HOSTILE)
def test_hostile_ids_and_annotations_are_exact_term_values(evil):
    f = SearchFilters(session_ids=(evil,), annotations={"k": evil})
    got = body(q.vector_request(evil, V, 5, f, NOW))
    pre = got["knn"][0]["filter"]["conjuncts"]
    assert pre[0] == {"field": "user_id", "term": evil}
    assert pre[2] == {"min": 1, "disjuncts": [{"field": "session_id", "term": evil}]}
    assert pre[3] == {"field": "annotation_terms", "term": "k\u001f" + evil}
    text = body(q.text_request(evil, f, NOW, query="hello"))
    assert text["query"]["conjuncts"][0] == {"field": "user_id", "term": evil, "boost": 0.0}
    benign_f = SearchFilters(session_ids=("someone",), annotations={"k": "someone"})
    for built, benign in ((got, body(q.vector_request("someone", V, 5, benign_f, NOW))),
                          (text, body(q.text_request("someone", benign_f, NOW, query="hello")))):
        assert _swap(_swap(built, evil, "someone"), "k\u001f" + evil, "k\u001fsomeone") == benign


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
        knn = body(q.vector_request("u1", V, 5, FULL, NOW))
        text = q.text_request("u1", FULL, NOW, query=evil, phrases=[evil])
        got = [knn["knn"], body(text)["query"] if text is not None else {}]
        assert not any("query" in node for node in _dicts(got))


# ------------------------------------------------------------------ the claim search's request
def _clauses(node) -> int:
    """Query objects in a Search query (a leaf with a field, or a compound of conjuncts or disjuncts)."""
    if isinstance(node, dict):
        own = 1 if {"field", "conjuncts", "disjuncts"} & node.keys() else 0
        return own + sum(_clauses(v) for v in node.values())
    return sum(_clauses(v) for v in node) if isinstance(node, list) else 0


@pytest.mark.parametrize("kind", sorted(SLOTS))
def test_the_claim_search_for_every_kind_stays_within_searchs_default_clause_limit(kind):
    """Couchbase Search refuses a request of more than 1,024 clauses by default (``bleveMaxClauseCount``). The claim
    search (``followed.claim_query``) asks for a kind's rule phrases only while they fit, for their words otherwise;
    with every filter set, its request stays within the limit."""
    signal, query = claim_query(kind)
    request = (q.text_request("u1", FULL, NOW, phrases=query) if signal is Signal.ENTITY
               else q.text_request("u1", FULL, NOW, query=query))
    assert 0 < _clauses(body(request)["query"]) <= 1024


def test_the_claim_search_asks_for_phrases_where_they_fit_and_a_rule_of_many_for_its_words():
    assert claim_query("schedule") == (Signal.ENTITY, list(rule_phrases("schedule")))
    assert claim_query("car") == (Signal.BM25, rule_words("car"))
