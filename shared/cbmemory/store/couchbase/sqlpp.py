"""Pure builders of every SQL++ statement the Couchbase store sends (re-exported by ``requests``,
which builds its Search requests). No connection here.

Statements are fixed text plus named parameters (``$user_id`` ...). Values are never spliced into statement
text; the only names in it are collection and index names, checked against Couchbase's name alphabet and
backtick-quoted, and the fixed field names below. Filters mean what ``filters.admits`` says (checked by
tests/contract/test_filter_semantics.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ...embedding.sparse import SparseVector
from ...errors import InvalidInputError
from ...models import NO_FILTERS, SearchFilters
from ..windows import Window
from .docs import (
    RECORD_FIELDS,
    SPARSE_FIELD,
    SPARSE_TERM,
    SPARSE_WEIGHT,
    VECTOR_FIELD,
    check_scope_name,
    epoch,
)
from .sdk import sdk  # the SDK's classes, imported on first use


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


def neighbours(collection: str, user_id: str, merged: Sequence[Window], filters: SearchFilters,
               now: datetime) -> Statement:
    """The user's records inside ``merged`` (each a session, a kind and an inclusive range of positions; no
    record in two) that ``filters.admits`` at ``now``, in ``list_records``' order. One disjunct per window,
    its bounds named parameters (``$ws0``, ``$wk0``, ``$wlo0``, ``$whi0``, ...): with the user's equality,
    each is a span of ``cbm_memory_window`` (user, session, kind, position), so the Query service reads the
    windows' index entries and documents, not their sessions'."""
    where, params = record_where(user_id, filters, now)
    spans = []
    for i, w in enumerate(merged):
        spans.append(f"({_f('m', 'session_id')} = $ws{i} AND {_f('m', 'kind')} = $wk{i} "
                     f"AND {_f('m', 'position')} BETWEEN $wlo{i} AND $whi{i})")
        params.update({f"ws{i}": w.session_id, f"wk{i}": w.kind, f"wlo{i}": w.lo, f"whi{i}": w.hi})
    return _listing(collection, f"{where} AND ({' OR '.join(spans)})", params)


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
    """Delete every expired record, returning one ``{"key", "user_id", "record_id"}`` row per deleted
    document (the count, the users whose empty sessions are deleted next, and the records whose links go)."""
    e = _f("m", "expires_ts")
    return Statement(f"DELETE FROM {ident(collection)} AS m WHERE {e} IS NOT NULL AND {e} <= $now "
                     f"RETURNING META(m).id AS `key`, {_f('m', 'user_id')} AS `user_id`, "
                     f"{_f('m', 'record_id')} AS `record_id`", {"now": epoch(now)})


def _links_to(alias: str) -> str:
    return f"ANY x IN {_f(alias, 'supersedes')} SATISFIES x IN $ids END"


def superseding(collection: str, user_id: str, record_ids: Sequence[str], now: datetime) -> Statement:
    """The user's live records that supersede any of ``record_ids``: ``{"record_id", "supersedes"}`` rows in
    conversation order (``cbm_memory_supersedes`` indexes the links)."""
    where, params = record_where(user_id, NO_FILTERS, now)
    params["ids"] = list(record_ids)
    return Statement(
        f"SELECT {_f('m', 'record_id')}, {_f('m', 'supersedes')} FROM {ident(collection)} AS m "
        f"WHERE {where} AND {_links_to('m')} ORDER BY {_f('m', 'occurred_ts')}, {_f('m', 'session_id')}, "
        f"{_f('m', 'position')}, META(m).id", params)


def unlink(collection: str, user_id: str, record_ids: Sequence[str]) -> Statement:
    """Drop the user's records' links to ``record_ids`` (records just erased)."""
    links = _f("m", "supersedes")
    return Statement(
        f"UPDATE {ident(collection)} AS m SET {links} = ARRAY x FOR x IN {links} WHEN x NOT IN $ids END "
        f"WHERE {_f('m', 'user_id')} = $user_id AND {_links_to('m')}", {"user_id": user_id, "ids": list(record_ids)})


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
    ``ensure_schema`` to get the current keys (e.g. ``cbm_memory_hash`` on ``(user_id, content_hash)``). A
    store made by an older version gains the indexes it lacks (e.g. ``cbm_memory_window``, for ``neighbours``)
    the next time ``ensure_schema`` runs: each is made ``IF NOT EXISTS``.

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
        create("cbm_memory_window", memory, ("user_id", "session_id", "kind", "position")),
        create("cbm_memory_sparse", memory, (terms, "user_id")),
        create("cbm_memory_supersedes", memory, ("ALL ARRAY x FOR x IN `supersedes` END", "user_id")),
        create("cbm_sessions_user", sessions, ("user_id", "occurred_ts", "session_id")),
    ]


__all__ = [
    "Statement", "append_conflict", "count_all", "count_records", "erase_empty_sessions", "erase_records",
    "erase_sessions", "ident", "kind_counts", "list_records", "list_sessions", "list_users", "lookup_vectors",
    "neighbours", "purge_expired", "record_where", "records_without_sparse", "secondary_indexes",
    "session_records", "sparse_search", "superseding", "unlink", "users_missing_sparse", "users_with_records"
]
