"""Pure builders of every request the Couchbase store sends. No connection here.

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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..embedding.sparse import SparseVector
from ..errors import InvalidInputError, MissingDependencyError
from ..models import NO_FILTERS, SearchFilters
from ..text import content_words, words
from .couchbase_docs import (
    ANNOTATION_SEP,
    RECORD_FIELDS,
    SEARCH_TIME_MAX,
    SEARCH_TIME_MIN,
    SPARSE_FIELD,
    SPARSE_TERM,
    SPARSE_WEIGHT,
    TEXT_FIELDS,
    VECTOR_FIELD,
    check_index_name,
    check_scope_name,
    epoch,
    rfc3339,
)

FILTER_BOOST = 0.0  # filters restrict; they must not add to the text score
# Both text fields weigh the same, as in the embedded store's BM25 over the indexed text and the raw turn.
FIELD_BOOSTS: Mapping[str, float] = {name: 1.0 for name in TEXT_FIELDS}


@lru_cache(maxsize=1)
def sdk() -> SimpleNamespace:
    """The couchbase SDK classes the store uses, imported on first use (``pip install cbmemory[couchbase]``)."""
    try:
        import couchbase.search as search
        from couchbase.logic.search import SearchQueryBuilder
        from couchbase.options import QueryOptions, SearchOptions
        from couchbase.vector_search import VectorQuery, VectorSearch
    except ImportError as exc:  # pragma: no cover - the dev install has the SDK
        raise MissingDependencyError(
            "the Couchbase store needs the couchbase SDK: pip install 'cbmemory[couchbase]'") from exc
    return SimpleNamespace(search=search, SearchQueryBuilder=SearchQueryBuilder, QueryOptions=QueryOptions,
                           SearchOptions=SearchOptions, VectorQuery=VectorQuery, VectorSearch=VectorSearch)


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


# ------------------------------------------------------------------ SQL++
@dataclass(frozen=True, slots=True)
class Statement:
    """A SQL++ statement and its named parameters (``$name`` in the text, ``name`` here)."""

    sql: str
    params: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"statement": self.sql, "named_parameters": dict(self.params)}

    def options(self, **extra: Any):
        """``QueryOptions`` carrying the parameters (and e.g. ``scan_consistency``)."""
        return sdk().QueryOptions(named_parameters=dict(self.params), **extra)


_GSI_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_#]{0,200}$")


def ident(name: str, what: str = "collection") -> str:
    """A checked collection or index name in backticks (the only names spliced into SQL++ besides the
    fixed field names below)."""
    if what == "index":
        if not _GSI_NAME.match(name):
            raise InvalidInputError(f"invalid SQL++ index name {name!r}")
        return f"`{name}`"
    return f"`{check_scope_name(name, what)}`"


def _f(alias: str, name: str) -> str:
    """A document field, always backtick-quoted (``role``, ``users`` ... are SQL++ keywords)."""
    return f"{alias}.`{name}`"


def record_where(user_id: str, filters: SearchFilters, now: datetime, alias: str = "m") -> tuple[str, dict]:
    """``WHERE`` conditions and parameters for one user's records that ``filters.admits`` at ``now``."""
    a = alias
    expires = _f(a, "expires_ts")
    parts = [f"{_f(a, 'user_id')} = $user_id", f"({expires} IS NOT VALUED OR {expires} > $now)"]
    params: dict[str, object] = {"user_id": user_id, "now": epoch(now)}
    if filters.session_ids is not None:
        parts.append(f"{_f(a, 'session_id')} IN $session_ids")
        params["session_ids"] = list(filters.session_ids)
    if filters.kinds is not None:
        parts.append(f"{_f(a, 'kind')} IN $kinds")
        params["kinds"] = list(filters.kinds)
    for col, op, value, name in (
        ("occurred_ts", ">=", filters.occurred_after, "occ_lo"),
        ("occurred_ts", "<=", filters.occurred_before, "occ_hi"),
        ("ingested_ts", ">=", filters.ingested_after, "ing_lo"),
        ("ingested_ts", "<=", filters.ingested_before, "ing_hi"),
    ):
        if value is not None:
            parts.append(f"{_f(a, col)} {op} ${name}")
            params[name] = epoch(value)
    for i, (key, wanted) in enumerate(sorted(filters.annotations.items())):
        # the field name comes from a parameter (``obj.[expr]``), never from the statement text
        parts.append(f"{_f(a, 'annotations')}.[$ak{i}] = $av{i}")
        params[f"ak{i}"] = key
        params[f"av{i}"] = wanted
    return " AND ".join(parts), params


def list_records(collection: str, user_id: str, filters: SearchFilters, now: datetime, *,
                 limit: int | None = None, newest_first: bool = False) -> Statement:
    """The user's records in conversation order; also the time-range lookup without a query."""
    where, params = record_where(user_id, filters, now)
    return _listing(collection, where, params, limit=limit, newest_first=newest_first)


def records_without_sparse(collection: str, user_id: str, now: datetime, *, limit: int | None = None) -> Statement:
    """The user's live records (every kind) whose document has no ``sparse`` field, in conversation order (the
    listing of ``list_records``, one condition added), at most ``limit``. ``IS MISSING``, not ``IS NOT
    VALUED``: exactly the documents a sub-document insert of the field can complete (``set_sparse``); the
    store never writes the field as ``null``."""
    where, params = record_where(user_id, NO_FILTERS, now)
    return _listing(collection, f"{where} AND {_f('m', SPARSE_FIELD)} IS MISSING", params, limit=limit)


def users_missing_sparse(collection: str, now: datetime) -> Statement:
    """The users who have a live record whose document has no ``sparse`` field (ids only; the same
    ``IS MISSING`` as ``records_without_sparse``)."""
    u, e = _f("m", "user_id"), _f("m", "expires_ts")
    return Statement(f"SELECT DISTINCT RAW {u} FROM {ident(collection)} AS m WHERE {u} IS VALUED "
                     f"AND {_f('m', SPARSE_FIELD)} IS MISSING AND ({e} IS NOT VALUED OR {e} > $now)",
                     {"now": epoch(now)})


def _listing(collection: str, where: str, params: dict[str, object], *, limit: int | None = None,
             newest_first: bool = False) -> Statement:
    """Records' listed fields under ``where``, in conversation order (then by key), at most ``limit``."""
    o = "DESC" if newest_first else "ASC"
    fields = ", ".join(_f("m", name) for name in RECORD_FIELDS)
    sql = (f"SELECT {fields} FROM {ident(collection)} AS m WHERE {where} "
           f"ORDER BY {_f('m', 'occurred_ts')} {o}, {_f('m', 'session_id')} {o}, {_f('m', 'position')} {o}, "
           f"META(m).id {o}")
    if limit is not None:
        sql += " LIMIT $limit"
        params["limit"] = limit
    return Statement(sql, params)


def _erase(collection: str, alias: str, user_id: str, session_id: str | None) -> Statement:
    params: dict[str, object] = {"user_id": user_id}
    where = f"{_f(alias, 'user_id')} = $user_id"
    if session_id is not None:
        where += f" AND {_f(alias, 'session_id')} = $session_id"
        params["session_id"] = session_id
    return Statement(f"DELETE FROM {ident(collection)} AS {alias} WHERE {where} RETURNING RAW META({alias}).id",
                     params)


def erase_records(collection: str, user_id: str, session_id: str | None = None) -> Statement:
    """Delete a user's records (or one session's), returning the deleted keys."""
    return _erase(collection, "m", user_id, session_id)


def erase_sessions(collection: str, user_id: str, session_id: str | None = None) -> Statement:
    return _erase(collection, "s", user_id, session_id)


def purge_expired(collection: str, now: datetime) -> Statement:
    """Delete every expired record, returning one ``{"key", "user_id"}`` row per deleted document (the
    count, and the users whose empty sessions are deleted next)."""
    e = _f("m", "expires_ts")
    return Statement(f"DELETE FROM {ident(collection)} AS m WHERE {e} IS NOT NULL AND {e} <= $now "
                     f"RETURNING META(m).id AS `key`, {_f('m', 'user_id')} AS `user_id`", {"now": epoch(now)})


def erase_empty_sessions(sessions: str, memory: str, user_ids: Sequence[str]) -> Statement:
    """Delete these users' sessions that hold no record any more, returning the deleted keys. The subquery
    is not correlated (it only reads the parameters): it runs once, over the users' (user, session) pairs."""
    s_user, s_session = _f("s", "user_id"), _f("s", "session_id")
    m_user = _f("m", "user_id")
    return Statement(
        f"DELETE FROM {ident(sessions)} AS s WHERE {s_user} IN $user_ids AND [{s_user}, {s_session}] NOT IN "
        f"(SELECT RAW [{m_user}, {_f('m', 'session_id')}] FROM {ident(memory)} AS m WHERE {m_user} IN $user_ids) "
        f"RETURNING RAW META(s).id", {"user_ids": list(user_ids)})


def users_with_records(collection: str, user_ids: Sequence[str]) -> Statement:
    """Which of these users still have a record (expired or not): the others' user documents go."""
    u = _f("m", "user_id")
    return Statement(f"SELECT DISTINCT RAW {u} FROM {ident(collection)} AS m WHERE {u} IN $user_ids",
                     {"user_ids": list(user_ids)})


def session_records(collection: str, user_id: str, session_id: str) -> Statement:
    """Ids and kinds of every record of one session (expired ones too), for ``write(mode="replace")``."""
    return Statement(
        f"SELECT {_f('m', 'record_id')}, {_f('m', 'kind')} FROM {ident(collection)} AS m "
        f"WHERE {_f('m', 'user_id')} = $user_id AND {_f('m', 'session_id')} = $session_id",
        {"user_id": user_id, "session_id": session_id})


def append_conflict(collection: str, user_id: str, session_id: str, kind: str, position: int,
                    record_ids: Sequence[str]) -> Statement:
    """A record of the session and kind at ``position`` or after it that is not one of the batch's own
    (``record_ids``: a retried append finds its own records there); at most one id comes back."""
    return Statement(
        f"SELECT RAW {_f('m', 'record_id')} FROM {ident(collection)} AS m WHERE {_f('m', 'user_id')} = $user_id "
        f"AND {_f('m', 'session_id')} = $session_id AND {_f('m', 'kind')} = $kind "
        f"AND {_f('m', 'position')} >= $position AND {_f('m', 'record_id')} NOT IN $record_ids LIMIT 1",
        {"user_id": user_id, "session_id": session_id, "kind": kind, "position": position,
         "record_ids": list(record_ids)})


def count_records(collection: str, now: datetime, user_id: str | None = None) -> Statement:
    params: dict[str, object] = {"now": epoch(now)}
    who = f"{_f('m', 'user_id')} IS VALUED"
    if user_id is not None:
        who = f"{_f('m', 'user_id')} = $user_id"
        params["user_id"] = user_id
    e = _f("m", "expires_ts")
    return Statement(f"SELECT RAW COUNT(1) FROM {ident(collection)} AS m WHERE {who} "
                     f"AND ({e} IS NOT VALUED OR {e} > $now)", params)


def list_users(collection: str) -> Statement:
    u = _f("m", "user_id")
    return Statement(f"SELECT DISTINCT RAW {u} FROM {ident(collection)} AS m WHERE {u} IS VALUED")


def list_sessions(collection: str, user_id: str) -> Statement:
    fields = ", ".join(_f("s", name) for name in ("user_id", "session_id", "occurred_at", "annotations"))
    return Statement(f"SELECT {fields} FROM {ident(collection)} AS s WHERE {_f('s', 'user_id')} = $user_id "
                     f"ORDER BY {_f('s', 'occurred_ts')}, {_f('s', 'session_id')}", {"user_id": user_id})


def lookup_vectors(collection: str, user_id: str, content_hashes: Sequence[str]) -> Statement:
    """One user's stored vectors by content hash (never another user's: the embedding cache must not
    reveal, by its speed, what others wrote)."""
    h = _f("m", "content_hash")
    return Statement(f"SELECT {h}, {_f('m', VECTOR_FIELD)} FROM {ident(collection)} AS m "
                     f"WHERE {_f('m', 'user_id')} = $user_id AND {h} IN $hashes",
                     {"user_id": user_id, "hashes": list(content_hashes)})


def sparse_search(collection: str, user_id: str, query: SparseVector, filters: SearchFilters, now: datetime,
                  limit: int) -> Statement:
    """The user's live records admitted by ``filters``, scored server-side by the dot product of their stored
    sparse vector with ``query``: best first (ties by document key), positive scores only, at most ``limit``.

    Each record's ``sparse`` array is unnested; only its terms among the query's (``$terms``, the query's ids
    in increasing order) are kept, each weighed by the query's weight of that term (``$weights``, at the
    same position: ``ARRAY_POSITION``, never -1 there, as the term is in ``$terms``), and summed per record
    (``GROUP BY`` its key). A record without the field, or whose field holds no such term, has no row. The
    term predicate leads the ``cbm_memory_sparse`` array index (``secondary_indexes``), which an UNNEST scan
    can use. Rows: ``{"key": document key, "score": number}``."""
    where, params = record_where(user_id, filters, now)
    t, w = _f("e", SPARSE_TERM), _f("e", SPARSE_WEIGHT)
    key = "META(m).id"
    params.update(terms=[int(x) for x in query.ids.tolist()],
                  weights=[float(x) for x in query.weights.tolist()], limit=limit)
    return Statement(
        f"SELECT {key} AS `key`, `score` FROM {ident(collection)} AS m UNNEST {_f('m', SPARSE_FIELD)} AS e "
        f"WHERE {where} AND {t} IN $terms GROUP BY {key} "
        f"LETTING `score` = SUM({w} * $weights[ARRAY_POSITION($terms, {t})]) HAVING `score` > 0 "
        f"ORDER BY `score` DESC, {key} ASC LIMIT $limit", params)


def kind_counts(collection: str) -> Statement:
    k = _f("m", "kind")
    return Statement(f"SELECT {k}, COUNT(1) AS n FROM {ident(collection)} AS m "
                     f"WHERE {_f('m', 'user_id')} IS VALUED GROUP BY {k}")


def count_all(collection: str) -> Statement:
    return Statement(f"SELECT RAW COUNT(1) FROM {ident(collection)} AS s WHERE {_f('s', 'user_id')} IS VALUED")


def secondary_indexes(memory: str, sessions: str) -> list[Statement]:
    """The GSI indexes the statements above use (``CREATE INDEX name IF NOT EXISTS ON ...``). An index of
    the same name made by an older version is kept as it is (``IF NOT EXISTS``): drop it and call
    ``ensure_schema`` to get the current keys (e.g. ``cbm_memory_hash`` on ``(user_id, content_hash)``).

    ``cbm_memory_sparse`` indexes every term of each record's sparse vector, then its user, for
    ``sparse_search``: an UNNEST scan uses an array index only when the array key leads (Couchbase's
    "Array Indexing" reference), so the term comes first; its variable ``e`` and ``ALL`` (every element, as
    UNNEST yields them) match that statement's ``UNNEST m.sparse AS e``."""
    def create(name: str, coll: str, keys: Sequence[str]) -> Statement:
        cols = ", ".join(k if k.startswith("ALL ARRAY ") else f"`{k}`" for k in keys)
        return Statement(f"CREATE INDEX {ident(name, 'index')} IF NOT EXISTS ON {ident(coll)}({cols})")
    terms = f"ALL ARRAY e.`{SPARSE_TERM}` FOR e IN `{SPARSE_FIELD}` END"
    return [
        create("cbm_memory_user", memory, ("user_id", "session_id", "occurred_ts", "position")),
        create("cbm_memory_expiry", memory, ("expires_ts",)),
        create("cbm_memory_hash", memory, ("user_id", "content_hash")),
        create("cbm_memory_sparse", memory, (terms, "user_id")),
        create("cbm_sessions_user", sessions, ("user_id", "occurred_ts", "session_id")),
    ]


__all__ = [
    "FIELD_BOOSTS", "Statement", "append_conflict", "check_index_name", "count_all", "count_records",
    "erase_empty_sessions", "erase_records", "erase_sessions", "filter_clauses", "ident", "kind_counts",
    "list_records", "list_sessions", "list_users", "lookup_vectors", "prefilter", "purge_expired",
    "record_where", "records_without_sparse", "sdk", "search_body", "search_options", "secondary_indexes",
    "session_records", "sparse_search", "text_clause", "text_query", "text_request", "users_missing_sparse",
    "users_with_records", "vector_request",
]
