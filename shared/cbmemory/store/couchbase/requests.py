"""Pure builders of every request the Couchbase store sends. No connection here. The SQL++ statements are
built in ``sqlpp`` and re-exported here, so ``requests`` names every builder; the SDK's classes come from
``sdk`` on first use.

- Search requests are the SDK's own objects (``SearchRequest``, ``VectorSearch``, query classes); the SDK
  builds their JSON in Python before handing it to its C++ core, so ``search_body`` can show, without a
  server, the exact body that goes to ``POST /api/bucket/{b}/scope/{s}/index/{i}/query``.
- SQL++ statements are fixed text plus named parameters (``$user_id`` ...). Values are never spliced into
  statement text; the only names in it are collection and index names, checked against Couchbase's name
  alphabet and backtick-quoted.

Untrusted text reaches the Search service only as the text of ``match``/``match_phrase`` queries (analysed
as words, never parsed as query-string syntax) and as exact ``term`` values; never as a ``query`` string
query, whose ``+ - : ^ * ~ "`` syntax would be interpreted.

Filters mean what ``filters.admits`` says (checked by tests/contract/test_filter_semantics.py). They go
into a vector request as the ``knn`` pre-filter (so the nearest neighbours are chosen among the user's own
live records) and into a text request as zero-boost conjuncts (they restrict without adding to the score).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from ...models import SearchFilters
from ...text import content_words, words
from .docs import (
    ANNOTATION_SEP,
    SEARCH_TIME_MAX,
    SEARCH_TIME_MIN,
    TEXT_FIELDS,
    VECTOR_FIELD,
    check_index_name,
    rfc3339,
)
from .sdk import sdk
from .sqlpp import (
    Statement,
    append_conflict,
    count_all,
    count_records,
    erase_empty_sessions,
    erase_records,
    erase_sessions,
    ident,
    kind_counts,
    list_records,
    list_sessions,
    list_users,
    lookup_vectors,
    neighbours,
    purge_expired,
    record_where,
    records_without_sparse,
    secondary_indexes,
    session_records,
    sparse_search,
    superseding,
    unlink,
    users_missing_sparse,
    users_with_records,
)

FILTER_BOOST = 0.0  # filters restrict; they must not add to the text score
# Both text fields weigh the same, as in the embedded store's BM25 over the indexed text and the raw turn.
FIELD_BOOSTS: Mapping[str, float] = {name: 1.0 for name in TEXT_FIELDS}


# ------------------------------------------------------------------ Search: filters
def _searchable(dt: datetime) -> datetime:
    return min(max(dt, SEARCH_TIME_MIN), SEARCH_TIME_MAX)


def filter_clauses(user_id: str, filters: SearchFilters, now: datetime, *, boost: float | None = None) -> list:
    """One query per restriction: the user, live records, then the optional filters (all must hold).

    ``boost`` goes on every leaf query (bleve ignores boosts on compound queries); ``FILTER_BOOST`` (0)
    makes the clauses restrict the text query without adding to its score.

    Instants the Search service cannot take as range endpoints (before ``SEARCH_TIME_MIN``, after
    ``SEARCH_TIME_MAX``) never reach it: such a lower bound is dropped, as is such an upper bound, a bound
    no indexed date can meet becomes ``match_none``, and ``now`` is clamped into the range. So a request
    never fails and means ``filters.admits`` for records dated inside the range (the property test checks
    this). Outside it the index cannot tell: under a time filter on a date, a record dated outside the range
    may be missed or let through; a record expiring after ``SEARCH_TIME_MAX`` is let through once expired;
    with ``now`` before ``SEARCH_TIME_MIN``, one expiring between the two is missed. What is let through,
    the store's key-by-key check removes."""
    s = sdk().search
    extra = {} if boost is None else {"boost": boost}
    clauses = [
        s.TermQuery(user_id, field="user_id", **extra),
        s.DisjunctionQuery(  # no expiry (or one past what the index holds), or an expiry after now
            s.BooleanFieldQuery(False, field="has_expiry", **extra),
            s.DateRangeQuery(start=rfc3339(_searchable(now)), inclusive_start=False, field="expires_at", **extra),
            min=1),
    ]
    for name, values in (("session_id", filters.session_ids), ("kind", filters.kinds)):
        if values is None:
            continue
        if not values:
            clauses.append(s.MatchNoneQuery())
        else:
            clauses.append(s.DisjunctionQuery(*(s.TermQuery(v, field=name, **extra)
                                                for v in dict.fromkeys(values)), min=1))
    for name, lo, hi in (("occurred_at", filters.occurred_after, filters.occurred_before),
                         ("ingested_at", filters.ingested_after, filters.ingested_before)):
        if (lo is not None and lo > SEARCH_TIME_MAX) or (hi is not None and hi < SEARCH_TIME_MIN):
            clauses.append(s.MatchNoneQuery())  # no indexed date is that far out
            continue
        bounds: dict[str, Any] = {}
        if lo is not None and lo > SEARCH_TIME_MIN:
            bounds.update(start=rfc3339(lo), inclusive_start=True)
        if hi is not None and hi < SEARCH_TIME_MAX:
            bounds.update(end=rfc3339(hi), inclusive_end=True)
        if bounds:
            clauses.append(s.DateRangeQuery(field=name, **bounds, **extra))
    for key, value in sorted(filters.annotations.items()):
        if ANNOTATION_SEP in key:  # stored keys are ids, never holding it: "k\x1fv" + "w" must not match k="v\x1fw"
            clauses.append(s.MatchNoneQuery())
        else:
            clauses.append(s.TermQuery(f"{key}{ANNOTATION_SEP}{value}", field="annotation_terms", **extra))
    return clauses


def prefilter(user_id: str, filters: SearchFilters, now: datetime):
    """The ``knn`` pre-filter: nearest neighbours are searched only among these documents."""
    return sdk().search.ConjunctionQuery(*filter_clauses(user_id, filters, now))


# ------------------------------------------------------------------ Search: text
def _on_both_fields(text: str, *, phrase: bool = False):
    """``match`` (or ``match_phrase``) of ``text`` on each text field with its boost, any field matching."""
    s = sdk().search
    if phrase:
        parts = [s.MatchPhraseQuery(text, field=f, boost=b) for f, b in FIELD_BOOSTS.items()]
    else:
        parts = [s.MatchQuery(text, field=f, boost=b, match_operator="or") for f, b in FIELD_BOOSTS.items()]
    return s.DisjunctionQuery(*parts, min=1)


def text_clause(query: str | None, phrases: Sequence[str] = ()):
    """Any content word of ``query`` or any exact phrase, each on both text fields with equal boosts;
    ``None`` when nothing searchable is left.

    The words are ``text.content_words`` (the ones the embedded store searches), each a ``match`` query
    per field (the index's ``en`` analyser tokenises and stems it as it did the stored text); a phrase is
    a ``match_phrase`` per field. No query syntax is ever interpreted."""
    clauses = [_on_both_fields(word) for word in dict.fromkeys(content_words(query or ""))]
    seen: set[str] = set()
    for phrase in phrases:
        key = " ".join(words(phrase))
        if key and key not in seen:
            seen.add(key)
            clauses.append(_on_both_fields(phrase.strip(), phrase=True))
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else sdk().search.DisjunctionQuery(*clauses, min=1)


def text_query(user_id: str, filters: SearchFilters, now: datetime, text):
    """The filters as zero-boost conjuncts, then the text clause."""
    return sdk().search.ConjunctionQuery(*filter_clauses(user_id, filters, now, boost=FILTER_BOOST), text)


# ------------------------------------------------------------------ Search: requests
def _floats(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, dtype=np.float32).reshape(-1)]


def vector_request(user_id: str, vector: np.ndarray, num_candidates: int, filters: SearchFilters,
                   now: datetime):
    """k-nearest-neighbour request over the user's live records (``num_candidates`` is always explicit:
    the SDK would otherwise send ``k: 3``)."""
    m = sdk()
    vq = m.VectorQuery(VECTOR_FIELD, _floats(vector), num_candidates=num_candidates,
                       prefilter=prefilter(user_id, filters, now))
    return m.search.SearchRequest.create(m.VectorSearch.from_vector_query(vq))


def text_request(user_id: str, filters: SearchFilters, now: datetime, query: str | None = None,
                 phrases: Sequence[str] = ()):
    """Full-text request (words and/or phrases) restricted by the filters; ``None`` if nothing to match."""
    text = text_clause(query, phrases)
    if text is None:
        return None
    return sdk().search.SearchRequest.create(text_query(user_id, filters, now, text))


def search_options(limit: int, *, consistent_with: object | None = None, timeout: float | None = None):
    """``SearchOptions``: a row limit and at-plus consistency (the ``MutationState`` of this store's own
    writes)."""
    kw: dict[str, Any] = {"limit": limit}
    if consistent_with is not None:
        kw["consistent_with"] = consistent_with
    if timeout is not None:
        kw["timeout"] = timedelta(seconds=timeout)
    return sdk().SearchOptions(**kw)


def search_body(index_name: str, request: Any, options: Any | None = None) -> dict[str, Any]:
    """The JSON body the SDK sends for ``scope.search(index_name, request, options)``.

    The query and ``knn`` parts come from the SDK's own encoder (``SearchQueryBuilder.as_encodable``);
    the envelope follows the C++ core's ``search_request::encode_to`` (couchbase-cxx-client,
    core/operations/document_search.cxx): ``query``, ``knn``, ``explain``, ``size``, ``from``, ``fields``,
    ``includeLocations`` and ``ctl.consistency``. ``ctl.timeout`` is left out (the core fills it in).
    """
    args = (options,) if options is not None else ()
    builder = sdk().SearchQueryBuilder.create_search_query_from_request(index_name, request, *args)
    enc = builder.as_encodable()
    body: dict[str, Any] = {"query": json.loads(enc["query"])}
    ctl: dict[str, Any] = {}
    if "vector_search" in enc:
        body["knn"] = json.loads(enc["vector_search"])
        if "vector_query_combination" in enc:
            body["knn_operator"] = enc["vector_query_combination"]
    for src, dst in (("explain", "explain"), ("limit", "size"), ("skip", "from")):
        if enc.get(src):
            body[dst] = enc[src]
    if enc.get("disable_scoring"):
        body["score"] = "none"
    if enc.get("include_locations"):
        body["includeLocations"] = True
    if enc.get("fields"):
        body["fields"] = enc["fields"]
    if enc.get("mutation_state"):
        vectors: dict[str, int] = {}
        for token in enc["mutation_state"]:
            key = f"{token['partition_id']}/{token['partition_uuid']}"
            vectors[key] = max(vectors.get(key, 0), token["sequence_number"])
        ctl["consistency"] = {"level": "at_plus", "vectors": {index_name: vectors}}
    if ctl:
        body["ctl"] = ctl
    return body


__all__ = [
    "FIELD_BOOSTS", "Statement", "append_conflict", "check_index_name", "count_all", "count_records",
    "erase_empty_sessions", "erase_records", "erase_sessions", "filter_clauses", "ident", "kind_counts",
    "list_records", "list_sessions", "list_users", "lookup_vectors", "neighbours", "prefilter", "purge_expired",
    "record_where", "records_without_sparse", "sdk", "search_body", "search_options", "secondary_indexes",
    "session_records", "sparse_search", "superseding", "text_clause", "text_query", "text_request", "unlink", "users_missing_sparse",
    "users_with_records", "vector_request",
]
