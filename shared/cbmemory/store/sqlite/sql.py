"""Pure builders of the embedded store's SQL, and rows read back as models. No connection here.

Values are always bound as parameters; the only strings spliced into SQL are fixed fragments chosen
by code. Full-text queries never reach SQL: they become term ids searched in memory (lexical.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timezone
from functools import lru_cache

from ...models import MemoryRecord, SearchFilters, frozen_mapping

# 2: the FTS index has a second field, the raw turn. 3: no FTS5 table shared by every user; each record
# keeps its term ids (``terms``) and each user's full-text index is built from them (see lexical.py).
# 4: each record may carry a learned sparse vector (``sparse_ids``: int32, ``sparse_weights``: float32, both
# little-endian, one entry per term; both NULL when the store has no sparse encoder, see meta
# ``sparse_encoder_name``, and for a record written before one was bound, until set_sparse gives it one).
# 5: each record may name the earlier records it supersedes (``supersedes``: a JSON list of record ids, a
# user's statement that changes what an earlier one said on the same matter), found back by the partial index.
SCHEMA_VERSION = "5"
APPLICATION_ID = 0x43424D45  # "CBME": marks a SQLite file as a cbmemory store

# one session's records in the order lists give (date, position): the last turn of a long session, which every
# append reads, is found without sorting the session (stores made before it sort; the results are the same)
SESSION_ORDER_INDEX = "CREATE INDEX IF NOT EXISTS records_session_order ON records (user_id, session_id, occurred_at, position)"
# the records that supersede another, per user: few, so finding who supersedes a record reads this index only
SUPERSEDES_INDEX = "CREATE INDEX IF NOT EXISTS records_supersedes ON records (user_id) WHERE supersedes != '[]'"
# Vectors of texts derived from a user's turn (what it states: ``statements.kept_texts``), by the derived
# text's content hash, for the embedding cache (``lookup_vectors``): a read that embeds them (the current-value stage)
# finds them here instead. Made with the schema, or on the first write of a store made before them (``file.LATER``):
# the same schema (no row or result differs without them, only the time of some reads). A record's go with it,
# whatever deletes it (forget, purge, a replaced record), by the trigger.
# A rowid table: one WITHOUT ROWID holding rows this long (a 1.5 KB vector) took twice the pages. ``form``: the form
# of the texts kept (``statements.KEPT_FORM``); a table made before it gains the column on the store's first write
# (``file.LATER_COLUMNS``), its rows of form 1.
DERIVED_TABLE = """CREATE TABLE IF NOT EXISTS derived (
        user_id TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        record_id TEXT NOT NULL,
        vector BLOB NOT NULL,
        form INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (user_id, content_hash, record_id))"""
DERIVED_FORM = "ALTER TABLE derived ADD COLUMN form INTEGER NOT NULL DEFAULT 1"
DERIVED_INDEX = "CREATE INDEX IF NOT EXISTS derived_record ON derived (user_id, record_id)"
DERIVED_TRIGGER = ("CREATE TRIGGER IF NOT EXISTS records_derived_gone AFTER DELETE ON records BEGIN "
                   "DELETE FROM derived WHERE user_id = old.user_id AND record_id = old.record_id; END")
# a derived vector is kept only for a record of the same user that is stored; one kept already stays
INSERT_DERIVED = ("INSERT OR IGNORE INTO derived (user_id, content_hash, record_id, vector, form) "
                  "SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM records WHERE user_id = ?1 AND record_id = ?3)")
# a record's vectors kept of texts of an earlier form go before those of a later one are kept
DELETE_OLDER_DERIVED = "DELETE FROM derived WHERE user_id = ? AND record_id = ? AND form < ?"

SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS users (
        user_id TEXT PRIMARY KEY,
        write_seq INTEGER NOT NULL DEFAULT 0,
        delete_seq INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS sessions (
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        occurred_at REAL NOT NULL,
        annotations TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (user_id, session_id))""",
    """CREATE TABLE IF NOT EXISTS records (
        rowid INTEGER PRIMARY KEY,
        record_id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        position INTEGER NOT NULL,
        turn_id TEXT,
        role TEXT NOT NULL,
        speaker TEXT,
        text TEXT NOT NULL,
        index_text TEXT NOT NULL,
        occurred_at REAL NOT NULL,
        ingested_at REAL NOT NULL,
        expires_at REAL,
        annotations TEXT NOT NULL DEFAULT '{}',
        source_ids TEXT NOT NULL DEFAULT '[]',
        content_hash TEXT NOT NULL,
        vector BLOB NOT NULL,
        terms BLOB NOT NULL,
        sparse_ids BLOB,
        sparse_weights BLOB,
        supersedes TEXT NOT NULL DEFAULT '[]')""",
    "CREATE INDEX IF NOT EXISTS records_user ON records (user_id, session_id, position)",
    SESSION_ORDER_INDEX,
    "CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL",
    # the embedding cache looks vectors up by content hash within one user only
    "CREATE INDEX IF NOT EXISTS records_user_hash ON records (user_id, content_hash)",
    SUPERSEDES_INDEX,
    DERIVED_TABLE,
    DERIVED_INDEX,
    DERIVED_TRIGGER,
]

# From schema 2: the records gain their term ids (filled in by the store), the shared FTS5 index goes.
MIGRATE_FROM_2 = [
    "ALTER TABLE records ADD COLUMN terms BLOB NOT NULL DEFAULT x''",
    "DROP TRIGGER IF EXISTS records_ai",
    "DROP TRIGGER IF EXISTS records_ad",
    "DROP TABLE IF EXISTS records_fts",
    "DROP INDEX IF EXISTS records_hash",
    "CREATE INDEX IF NOT EXISTS records_user_hash ON records (user_id, content_hash)",
]

# From schema 3: the records gain their sparse vector, NULL for every record written before (adding a
# column without a default rewrites no row).
MIGRATE_FROM_3 = [
    "ALTER TABLE records ADD COLUMN sparse_ids BLOB",
    "ALTER TABLE records ADD COLUMN sparse_weights BLOB",
]

# From schema 4: the records gain their links to the records they supersede, none for those already there
# (a column with a constant default rewrites no row).
MIGRATE_FROM_4 = [
    "ALTER TABLE records ADD COLUMN supersedes TEXT NOT NULL DEFAULT '[]'",
    SUPERSEDES_INDEX,
    SESSION_ORDER_INDEX,
]

# the user's live records that supersede any of the given ones: (the newer record's id, the older one's id)
SUPERSEDING = ("SELECT r.record_id, j.value FROM records r, json_each(r.supersedes) j WHERE r.user_id = ? "
               "AND r.supersedes != '[]' AND (r.expires_at IS NULL OR r.expires_at > ?) AND j.value IN ({ids}) "
               "ORDER BY r.occurred_at, r.session_id, r.position, r.rowid")

# a user's links to records that are gone (after a forget or a purge), dropped from the records left
UNLINK_GONE = ("UPDATE records SET supersedes = (SELECT json_group_array(j.value) FROM json_each(records.supersedes) j "
               "WHERE EXISTS (SELECT 1 FROM records o WHERE o.record_id = j.value AND o.user_id = records.user_id)) "
               "WHERE user_id = ? AND supersedes != '[]'")

# Made when a sparse encoder is bound (not by the schema: a store never bound writes no entry to it): the
# records without a sparse vector, i.e. those written before the binding until set_sparse gives them one,
# so finding them reads this index, not the table. A store bound before it existed has none and reads the
# table instead; the index changes no result.
WITHOUT_SPARSE_INDEX = ("CREATE INDEX IF NOT EXISTS records_without_sparse ON records (user_id, expires_at) "
                        "WHERE sparse_ids IS NULL")

RECORD_COLUMNS = (
    "r.rowid, r.record_id, r.user_id, r.session_id, r.kind, r.position, r.turn_id, r.role, r.speaker, "
    "r.text, r.index_text, r.occurred_at, r.ingested_at, r.expires_at, r.annotations, r.source_ids, "
    "r.content_hash, r.supersedes"
)


def epoch(dt: datetime | None) -> float | None:
    return None if dt is None else dt.timestamp()


def filter_clause(user_id: str, filters: SearchFilters, now: float, alias: str = "r") -> tuple[str, dict]:
    """``WHERE`` conditions (joined by AND) and their named parameters for one user's records that
    ``filters.admits`` at ``now`` (epoch seconds)."""
    a = alias
    parts = [f"{a}.user_id = :user_id", f"({a}.expires_at IS NULL OR {a}.expires_at > :now)"]
    params: dict[str, object] = {"user_id": user_id, "now": now}
    if filters.session_ids is not None:
        names = [f":s{i}" for i in range(len(filters.session_ids))]
        params.update({n[1:]: s for n, s in zip(names, filters.session_ids, strict=True)})
        parts.append(f"{a}.session_id IN ({', '.join(names)})" if names else "0")
    if filters.kinds is not None:
        names = [f":kind{i}" for i in range(len(filters.kinds))]
        params.update({n[1:]: s for n, s in zip(names, filters.kinds, strict=True)})
        parts.append(f"{a}.kind IN ({', '.join(names)})" if names else "0")
    for col, op, value, name in (
        ("occurred_at", ">=", filters.occurred_after, "occ_lo"),
        ("occurred_at", "<=", filters.occurred_before, "occ_hi"),
        ("ingested_at", ">=", filters.ingested_after, "ing_lo"),
        ("ingested_at", "<=", filters.ingested_before, "ing_hi"),
    ):
        if value is not None:
            parts.append(f"{a}.{col} {op} :{name}")
            params[name] = epoch(value)
    if filters.annotations:
        # every pair, with one parse of the record's annotations (not one per pair): a record's keys are
        # unique, so it holds them all when as many of its entries match one of the pairs
        pairs = []
        for i, (key, wanted) in enumerate(sorted(filters.annotations.items())):
            pairs.append(f"(j.key = :ak{i} AND j.value = :av{i})")
            params[f"ak{i}"] = key
            params[f"av{i}"] = wanted
        parts.append(f"(SELECT count(*) FROM json_each({a}.annotations) j WHERE {' OR '.join(pairs)}) = :an")
        params["an"] = len(pairs)
    return " AND ".join(parts), params


def turns_to_keep(kept_table: bool, formed: bool, limited: bool) -> str:
    """The user's (``:user``) own live turns with no kept vector (of form ``:form`` or later where the table has
    forms: ``formed``; every one when the file has no ``derived`` table yet, or ``kept_table`` is false), whose record
    id is after ``:after``, in id order: those written before their vectors were kept, or kept of an earlier form."""
    of_form = " AND d.form >= :form" if formed else ""
    unkept = (" AND NOT EXISTS (SELECT 1 FROM derived d WHERE d.user_id = r.user_id AND d.record_id = r.record_id"
              f"{of_form})" if kept_table else "")
    return (f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.user_id = :user AND r.kind = 'turn' AND r.role = 'user' "
            f"AND r.record_id > :after AND (r.expires_at IS NULL OR r.expires_at > :now){unkept} "
            "ORDER BY r.record_id" + (" LIMIT :limit" if limited else ""))


def list_select(where: str, newest_first: bool, limited: bool) -> str:
    order = "DESC" if newest_first else "ASC"
    sql = (f"SELECT {RECORD_COLUMNS} FROM records r WHERE {where} "
           f"ORDER BY r.occurred_at {order}, r.session_id {order}, r.position {order}, r.rowid {order}")
    return sql + (" LIMIT :limit" if limited else "")


# a user's annotations from one record on (the records indexed since), for annotation_index.AnnotationIndex
ANNOTATIONS_AFTER = ("SELECT rowid, annotations FROM records WHERE user_id = ? AND rowid > ? AND rowid <= ? "
                     "AND annotations != '{}' ORDER BY rowid")


# ------------------------------------------------------------------ rows back to models
_MIN = datetime.min.replace(tzinfo=timezone.utc)
_MAX = datetime.max.replace(tzinfo=timezone.utc)


@lru_cache(maxsize=8192)  # a session's records share their dates, a batch its ingest time
def stored_time(x: float) -> datetime:
    """A stored time; one outside what ``datetime`` holds (written by an older version, which accepted
    it) reads as the nearest end of the range, so no read fails on stored data."""
    try:
        return datetime.fromtimestamp(x, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return _MAX if x > 0 else _MIN


def _annotations(raw: str) -> Mapping[str, str]:
    return frozen_mapping(None) if raw == "{}" else frozen_mapping(json.loads(raw))


def row_to_record(row: sqlite3.Row | tuple) -> MemoryRecord:
    """A row of ``RECORD_COLUMNS`` as a record."""
    (_rowid, record_id, user_id, session_id, kind, position, turn_id, role, speaker, text, index_text,
     occurred, ingested, expires, annotations, source_ids, chash, supersedes) = row[:18]
    return MemoryRecord(
        record_id=record_id, user_id=user_id, session_id=session_id, kind=kind, position=position,
        role=role, text=text, index_text=index_text, occurred_at=stored_time(occurred),
        ingested_at=stored_time(ingested), content_hash=chash, turn_id=turn_id, speaker=speaker,
        annotations=_annotations(annotations), expires_at=None if expires is None else stored_time(expires),
        source_ids=() if source_ids == "[]" else tuple(json.loads(source_ids)),
        supersedes=() if supersedes == "[]" else tuple(json.loads(supersedes)),
    )
