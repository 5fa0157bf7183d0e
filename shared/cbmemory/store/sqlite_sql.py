"""Pure builders of the embedded store's SQL and FTS5 expressions. No connection here.

Values are always bound as parameters; the only strings spliced into SQL are fixed fragments chosen
by code. FTS5 query text is built from word tokens, each wrapped in double quotes, so user input can
never use FTS5 operators (``NEAR``, ``AND``, ``*``, ``:`` column filters, ``-``, parentheses).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ..models import SearchFilters
from ..text import content_words, words

SCHEMA_VERSION = "2"  # 2: the FTS index has a second field, the raw turn
APPLICATION_ID = 0x43424D45  # "CBME": marks a SQLite file as a cbmemory store

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
        vector BLOB NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS records_user ON records (user_id, session_id, position)",
    "CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS records_hash ON records (content_hash)",
    # Two fields: the indexed text (date, speaker, the turn and any context such as the turn it answers)
    # and the raw turn. BM25 weighs both equally, so the turn's own words count twice and its context once
    # (a two-field BM25F): context helps find an answer without drowning the turn that holds it.
    """CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(
        index_text, text, content='records', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS records_ai AFTER INSERT ON records BEGIN
        INSERT INTO records_fts (rowid, index_text, text) VALUES (new.rowid, new.index_text, new.text); END""",
    """CREATE TRIGGER IF NOT EXISTS records_ad AFTER DELETE ON records BEGIN
        INSERT INTO records_fts (records_fts, rowid, index_text, text)
        VALUES ('delete', old.rowid, old.index_text, old.text);
        END""",
]

RECORD_COLUMNS = (
    "r.rowid, r.record_id, r.user_id, r.session_id, r.kind, r.position, r.turn_id, r.role, r.speaker, "
    "r.text, r.index_text, r.occurred_at, r.ingested_at, r.expires_at, r.annotations, r.source_ids, "
    "r.content_hash"
)


def epoch(dt: datetime | None) -> float | None:
    return None if dt is None else dt.timestamp()


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def match_any(query: str) -> str | None:
    """FTS5 expression matching any content word of ``query`` (``None`` when there is none)."""
    terms = content_words(query)
    return " OR ".join(_quote(t) for t in terms) if terms else None


def match_phrases(phrases: Sequence[str]) -> str | None:
    """FTS5 expression matching any of the phrases as a contiguous sequence of words."""
    quoted = []
    for phrase in phrases:
        toks = words(phrase)
        if toks:
            quoted.append(_quote(" ".join(toks)))
    return " OR ".join(dict.fromkeys(quoted)) if quoted else None


def filter_clause(user_id: str, filters: SearchFilters, now: float, alias: str = "r") -> tuple[str, dict]:
    """``WHERE`` conditions (joined by AND) and their named parameters for one user's live records."""
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
    for i, (key, value) in enumerate(sorted(filters.annotations.items())):
        parts.append(
            f"EXISTS (SELECT 1 FROM json_each({a}.annotations) j WHERE j.key = :ak{i} AND j.value = :av{i})"
        )
        params[f"ak{i}"] = key
        params[f"av{i}"] = value
    return " AND ".join(parts), params


# BM25 of every row matching ``?`` (higher is better), in rowid order. The store keeps the rows of the
# queried user that pass the filters (it holds those columns in memory), so the index is read in one pass
# without a join to ``records`` per match.
FTS_SCORES = "SELECT rowid, -bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?"


def list_select(where: str, newest_first: bool, limited: bool) -> str:
    order = "DESC" if newest_first else "ASC"
    sql = (f"SELECT {RECORD_COLUMNS} FROM records r WHERE {where} "
           f"ORDER BY r.occurred_at {order}, r.session_id {order}, r.position {order}, r.rowid {order}")
    return sql + (" LIMIT :limit" if limited else "")
