"""Unit layer (store builders): every query builder (SQLite FTS5 and SQL, Couchbase Search and SQL++) takes
each of the hostile strings (tests/support/hostile.py) as a plain value: the built query has the same shape
as with a harmless value. Pure functions; that the SQLite ones also run on a real file without error and
never leak another user's record: tests/reliability/test_hostile_builders.py."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone

import numpy as np
import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.models import SearchFilters
from cbmemory.store import lexical
from cbmemory.store.sqlite import sql as sq
from cbmemory.text import content_words, words
from tests.support.hostile import HOSTILE

NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
QUOTED = re.compile(r'^"(?:[^"]|"")*"(?: OR "(?:[^"]|"")*")*$')  # only double-quoted strings, OR-ed


def _evil_filters(evil: str) -> SearchFilters:
    return SearchFilters(session_ids=(evil, "s1"), kinds=(evil, "turn"), annotations={evil: evil})


# ------------------------------------------------------------------ SQLite: full-text terms and SQL builders
@pytest.mark.parametrize("evil", HOSTILE)
def test_full_text_queries_become_term_ids_only(evil):
    """Query text never reaches SQL: it becomes 64-bit term ids, one per stemmed word (none for no word)."""
    terms = lexical.query_terms(content_words(evil))
    assert terms.dtype == np.int64 and np.all(terms != 0)
    assert len(terms) <= len(content_words(evil)) * 4
    if not words(evil):
        assert lexical.term_ids(evil) == []


@pytest.mark.parametrize("evil", HOSTILE)
def test_sql_filters_bind_every_value_and_keep_their_shape(evil):
    where, params = sq.filter_clause(evil, _evil_filters(evil), 0.0)
    benign, _ = sq.filter_clause("u", SearchFilters(session_ids=("x", "s1"), kinds=("x", "turn"),
                                                    annotations={"k": "v"}), 0.0)
    assert where == benign  # the SQL text does not depend on the values
    assert params["user_id"] == evil and evil in params.values()


# ------------------------------------------------------------------ Couchbase: Search requests and SQL++
cb = pytest.importorskip("cbmemory.store.couchbase.requests")


@pytest.fixture(scope="module")
def sdk():
    pytest.importorskip("couchbase", reason="the Couchbase builders need the couchbase SDK (cbmemory[couchbase])")
    return cb.sdk()


def _shape(obj):
    if isinstance(obj, dict):
        return {k: _shape(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_shape(v) for v in obj]
    return type(obj).__name__


def _leaves(obj, key=None):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, k)
    elif isinstance(obj, list):
        for v in obj:
            yield from _leaves(v, key)
    else:
        yield key, obj


def _body(request):
    return cb.search_body("cbmemory_memory", request, cb.search_options(10))


def _user_is_required(body: dict, user: str) -> None:
    """The user term is a conjunct of the k-NN pre-filter and of the text query (no other user can match)."""
    if "knn" in body:
        assert {"field": "user_id", "term": user} in body["knn"][0]["filter"]["conjuncts"]
    if "conjuncts" in body["query"]:
        assert {"field": "user_id", "term": user, "boost": 0.0} in body["query"]["conjuncts"]


@pytest.mark.parametrize("evil", HOSTILE)
def test_couchbase_search_requests_keep_hostile_text_as_values(sdk, evil):
    v = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    # as many harmless words as the hostile text has content words (each word is a clause of its own)
    text = " ".join(f"alpha{i}" for i in range(len(dict.fromkeys(content_words(evil))))) or "the"
    phrase = "alpha" if words(evil) else "  "
    benign_f = SearchFilters(session_ids=("someone", "s1"), kinds=("someone", "turn"),
                             annotations={"someone": "someone"})
    built = [
        (cb.vector_request(evil, v, 5, _evil_filters(evil), NOW), cb.vector_request("someone", v, 5, benign_f, NOW)),
        (cb.text_request(evil, _evil_filters(evil), NOW, query=evil, phrases=[evil]),
         cb.text_request("someone", benign_f, NOW, query=text, phrases=[phrase])),
        (cb.vector_request("bob", v, 5, _evil_filters(evil), NOW),
         cb.vector_request("bob", v, 5, SearchFilters(session_ids=("x", "s1"), kinds=("x", "turn"),
                                                      annotations={"x": "x"}), NOW)),
    ]
    for req, benign in built:
        if req is None:  # nothing searchable in the hostile text: no request, as with the harmless one
            assert benign is None and not content_words(evil) and not words(evil)
            continue
        body = _body(req)
        assert _shape(body) == _shape(_body(benign))  # same structure as with harmless values
        json.loads(json.dumps(body))
        mine = {evil, evil.strip(), f"{evil}\u001f{evil}"}  # as given, as a phrase, as an annotation term
        for key, value in _leaves(body):
            if isinstance(value, str) and value in mine:
                assert key in ("term", "match", "match_phrase"), (key, value)
        assert not any(k == "query" for k, _ in _leaves(body["query"]))  # never a query-string query
    _user_is_required(_body(built[0][0]), evil)
    req = cb.text_request("bob", _evil_filters(evil), NOW, query=evil, phrases=[evil])
    if req is None:
        assert not content_words(evil) and not words(evil)
    else:
        _user_is_required(_body(req), "bob")


@pytest.mark.parametrize("evil", HOSTILE)
def test_couchbase_sqlpp_statements_bind_every_value(sdk, evil):
    f, benign_f = _evil_filters(evil), SearchFilters(session_ids=("x", "s1"), kinds=("x", "turn"),
                                                     annotations={"k": "v"})
    pairs = [
        (cb.list_records("memory", evil, f, NOW, limit=5), cb.list_records("memory", "u", benign_f, NOW, limit=5)),
        (cb.erase_records("memory", evil, evil), cb.erase_records("memory", "u", "s")),
        (cb.erase_sessions("memory", evil), cb.erase_sessions("memory", "u")),
        (cb.count_records("memory", NOW, evil), cb.count_records("memory", NOW, "u")),
        (cb.list_sessions("sessions", evil), cb.list_sessions("sessions", "u")),
        (cb.lookup_vectors("memory", evil, [evil]), cb.lookup_vectors("memory", "u", ["h"])),
    ]
    for statement, benign in pairs:
        assert statement.sql == benign.sql
        assert evil in [v for _, v in _leaves(statement.to_json()["named_parameters"])]
    where, params = cb.record_where(evil, f, NOW)
    assert where == cb.record_where("u", benign_f, NOW)[0] and params["user_id"] == evil


@pytest.mark.parametrize("evil", HOSTILE)
def test_couchbase_names_are_checked_before_they_reach_sqlpp(evil):
    for what in ("collection", "index"):
        try:
            name = cb.ident(evil, what)
        except InvalidInputError:
            continue
        assert name == f"`{evil}`" and re.fullmatch(r"[A-Za-z0-9_%#-]+", evil)


def test_there_are_at_least_fifty_hostile_strings():
    assert len(HOSTILE) >= 50 and len(set(HOSTILE)) == len(HOSTILE)


def test_a_long_token_gets_its_term_id_without_being_held():
    """Term ids are cached by token: a word's length is held, a pasted dump's one long token is hashed each time,
    with the same id (the store's index does not change)."""
    import hashlib

    lexical._cached_term_id.cache_clear()
    dump = "deadbeef" * 8192  # one token of 64 KiB
    stem = lexical.stemmer().stemWord(dump)
    expected = int.from_bytes(hashlib.blake2b(stem.encode("utf-8"), digest_size=8).digest(), "little", signed=True)
    assert lexical.term_ids(dump) == [expected] == lexical.term_ids(dump)
    assert lexical._cached_term_id.cache_info().currsize == 0
    assert lexical.term_ids("moved moving") == lexical.term_ids("move") * 2  # words: the same stem, cached
    assert lexical._cached_term_id.cache_info().currsize == 3  # by token: moved, moving, move


def test_indexing_pasted_dumps_holds_none_of_them():
    """Neither the term ids' cache nor the stemmer's keeps a pasted dump's long token once it is indexed."""
    import gc
    import tracemalloc

    lexical.term_ids("warm up the stemmer")
    gc.collect()
    tracemalloc.start()
    try:
        for i in range(200):
            lexical.term_ids(f"{i:08x}" * 8192)  # 200 distinct tokens of 64 KiB: 12.5 MiB if any cache held them
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 1 << 20
