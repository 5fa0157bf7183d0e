"""The embedded store's write transactions: record batches (merge, replace a session, append), erasure
and expiry. Each function runs inside the caller's write transaction on the connection it is given and
returns the users whose rows changed, so the store can mark them for every process's in-memory copy.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np

from ...embedding.sparse import SparseVector
from ...errors import SparseEncoderBoundError, WriteConflictError
from ...models import IngestResult, MemoryRecord, Session
from .. import lexical
from ..base import WriteMode
from ..sessions import leftovers
from . import sql as q

WipeStep = Literal["rebuild", "checkpoint"]

_CHUNK = 500  # bound on parameters per IN (...) list
_INSERT = (
    "INSERT INTO records (record_id, user_id, session_id, kind, position, turn_id, role, speaker, text, "
    "index_text, occurred_at, ingested_at, expires_at, annotations, source_ids, content_hash, vector, terms, "
    "sparse_ids, sparse_weights, supersedes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def sparse_blobs(vector: SparseVector | None) -> tuple[bytes | None, bytes | None]:
    """How a record's sparse vector is stored: its ids (int32) and weights (float32), little-endian;
    ``(None, None)`` for a record without one."""
    if vector is None:
        return None, None
    return vector.ids.astype("<i4").tobytes(), vector.weights.astype("<f4").tobytes()


def _in(ids: Sequence[object]) -> str:
    return ",".join("?" * len(ids))


def _signature(rec: MemoryRecord) -> tuple:
    """What makes a stored record the same as a new one (re-writing it then changes nothing)."""
    return (rec.content_hash, rec.occurred_at.timestamp(),
            None if rec.expires_at is None else rec.expires_at.timestamp(),
            json.dumps(dict(rec.annotations), sort_keys=True), json.dumps(list(rec.supersedes)))


def _check_append(c: sqlite3.Connection, records: Sequence[MemoryRecord]) -> None:
    """Appended records must follow every record already in their session: positions are taken from
    what the writer saw, so a concurrent append in between makes this write wrong, and it is refused."""
    first: dict[tuple[str, str, str], int] = {}
    for r in records:
        key = (r.user_id, r.session_id, r.kind)
        first[key] = min(first.get(key, r.position), r.position)
    for (user, session, kind), pos in first.items():
        taken = c.execute("SELECT 1 FROM records WHERE user_id = ? AND session_id = ? AND kind = ? "
                          "AND position >= ? LIMIT 1", (user, session, kind, pos)).fetchone()
        if taken:
            raise WriteConflictError(f"another writer appended to session {session!r} first; nothing was written")


def write_batch(c: sqlite3.Connection, sessions: Sequence[Session], records: Sequence[MemoryRecord],
                vectors: np.ndarray, mode: WriteMode, sparse: Sequence[SparseVector] | None = None,
                ) -> tuple[IngestResult, dict[str, bool]]:
    """Store ``records`` (row i of ``vectors`` is record i's, and ``sparse[i]`` its sparse vector when the
    store has a sparse encoder) and their ``sessions``. A record stored unchanged keeps its stored vectors.

    ``merge`` upserts; ``replace`` makes each of ``sessions`` exactly the batch's records (records of the
    session not in the batch are deleted); ``append`` refuses a batch whose positions another writer has
    taken since they were read (``WriteConflictError``). Returns the result and, per user written,
    whether any of their rows was deleted or replaced.
    """
    if sparse is None and records and (
            bound := c.execute("SELECT value FROM meta WHERE key = 'sparse_encoder_name'").fetchone()) is not None:
        # bound by another connection since the caller checked: these records would be missed by sparse search
        raise SparseEncoderBoundError(bound[0], f"this store holds sparse vectors from {bound[0]!r} (bound since "
                                      "the write was checked): write one per record")
    if mode == "append":
        _check_append(c, records)
    old_dates: dict[tuple[str, str], float | None] = {}  # what replace compares the new dates with
    for s in sessions:
        if mode == "replace":
            row = c.execute("SELECT occurred_at FROM sessions WHERE user_id = ? AND session_id = ?",
                            (s.user_id, s.session_id)).fetchone()
            old_dates[(s.user_id, s.session_id)] = row[0] if row else None
        c.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, ?) ON CONFLICT (user_id, session_id) DO UPDATE SET "
            "occurred_at = excluded.occurred_at, annotations = excluded.annotations",
            (s.user_id, s.session_id, s.occurred_at.timestamp(), json.dumps(dict(s.annotations))),
        )
    existing: dict[str, tuple] = {}
    ids = [r.record_id for r in records]
    for i in range(0, len(ids), _CHUNK):
        part = ids[i : i + _CHUNK]
        sql = ("SELECT record_id, rowid, content_hash, occurred_at, expires_at, annotations, supersedes "
               f"FROM records WHERE record_id IN ({_in(part)})")
        existing.update({row[0]: row[1:] for row in c.execute(sql, part)})
    inserted = replaced = unchanged = 0
    rows: list[tuple[object, ...]] = []
    stale: list[int] = []  # rowids
    touched: dict[str, bool] = {}  # user written -> whether any of their rows were replaced or deleted
    written_sessions: set[tuple[str, str]] = set()
    sparse_of: Sequence[SparseVector | None] = [None] * len(records) if sparse is None else sparse
    for rec, vec, sv in zip(records, vectors, sparse_of, strict=True):
        old = existing.get(rec.record_id)
        sig = _signature(rec)
        if old is not None:
            if (old[1], old[2], old[3], json.dumps(json.loads(old[4]), sort_keys=True), old[5]) == sig:
                unchanged += 1
                continue
            stale.append(old[0])
            replaced += 1
        else:
            inserted += 1
        touched[rec.user_id] = touched.get(rec.user_id, False) or old is not None
        written_sessions.add((rec.user_id, rec.session_id))
        rows.append((
            rec.record_id, rec.user_id, rec.session_id, rec.kind, rec.position, rec.turn_id, rec.role,
            rec.speaker, rec.text, rec.index_text, sig[1], rec.ingested_at.timestamp(), sig[2],
            json.dumps(dict(rec.annotations)), json.dumps(list(rec.source_ids)), rec.content_hash,
            vec.tobytes(), lexical.encode(rec.index_text, rec.text), *sparse_blobs(sv), sig[4],
        ))
    dropped: set[str] = set()
    if mode == "replace":
        by_session: dict[tuple[str, str], dict[str, MemoryRecord]] = {}  # grouped once: a batch of many sessions
        for r in records:
            by_session.setdefault((r.user_id, r.session_id), {})[r.record_id] = r
        for s in sessions:
            key = (s.user_id, s.session_id)
            batch = by_session.get(key, {})
            changed = key in written_sessions or old_dates[key] not in (None, s.occurred_at.timestamp())
            stored = c.execute("SELECT record_id, kind, rowid FROM records WHERE user_id = ? AND session_id = ?",
                               key).fetchall()
            rowid = {rid: r for rid, _, r in stored}
            gone = [rowid[rid] for rid in leftovers([(rid, kind) for rid, kind, _ in stored], batch, changed)]
            if gone:
                stale += gone
                touched[s.user_id] = True
                dropped.add(s.user_id)
    for i in range(0, len(stale), _CHUNK):
        rowids = stale[i : i + _CHUNK]
        c.execute(f"DELETE FROM records WHERE rowid IN ({_in(rowids)})", rowids)
    c.executemany(_INSERT, rows)
    for user in sorted(dropped):  # records a replace deleted: the links to them go too
        c.execute(q.UNLINK_GONE, (user,))
    return IngestResult(inserted, replaced, unchanged, tuple(ids)), touched


def keep_derived(c: sqlite3.Connection, users: Mapping[str, str],
                 derived: Sequence[tuple[str, str, np.ndarray, int]]) -> int:
    """Keep each (record id, content hash, vector, form) of a text derived from a record of this write (``users``:
    each record's user), where that user's record is stored (``sql.INSERT_DERIVED``), after the record's vectors of
    texts of an earlier form go; one kept already (of this form or a later one) stays. Returns how many were kept."""
    c.executemany(q.DELETE_OLDER_DERIVED, list(dict.fromkeys((users[rid], rid, form) for rid, _, _, form in derived)))
    return c.executemany(q.INSERT_DERIVED, [(users[rid], h, rid, vec.tobytes(), form)
                                            for rid, h, vec, form in derived]).rowcount


def set_sparse(c: sqlite3.Connection, user_id: str, vectors: Mapping[str, SparseVector]) -> int:
    """Store each vector on the user's record of that id where the record has none (records of other users,
    unknown ids and records that have a vector are left alone). Returns how many were set."""
    cur = c.executemany("UPDATE records SET sparse_ids = ?, sparse_weights = ? "
                        "WHERE user_id = ? AND record_id = ? AND sparse_ids IS NULL",
                        [(*sparse_blobs(vec), user_id, rid) for rid, vec in vectors.items()])
    return max(cur.rowcount, 0)  # summed over the statements


def erase(c: sqlite3.Connection, user_id: str, session_id: str | None) -> tuple[int, int]:
    """Delete a user's records (raw and derived) and sessions, or one session's. Returns both counts."""
    where, args = ("user_id = ?", (user_id,)) if session_id is None else \
        ("user_id = ? AND session_id = ?", (user_id, session_id))
    records = c.execute(f"DELETE FROM records WHERE {where}", args).rowcount
    sessions = c.execute(f"DELETE FROM sessions WHERE {where}", args).rowcount
    if session_id is not None and records:
        c.execute(q.UNLINK_GONE, (user_id,))  # links of the user's other records to the erased ones
    return records, sessions


def purge(c: sqlite3.Connection, now: float) -> tuple[int, dict[str, bool]]:
    """Delete expired records, and the sessions left with no record."""
    users = [r[0] for r in c.execute(
        "SELECT DISTINCT user_id FROM records WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,))]
    if not users:
        return 0, {}
    n = c.execute("DELETE FROM records WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,)).rowcount
    for user in users:
        c.execute(q.UNLINK_GONE, (user,))
        c.execute("DELETE FROM sessions WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM records r WHERE "
                  "r.user_id = sessions.user_id AND r.session_id = sessions.session_id)", (user,))
    return n, dict.fromkeys(users, True)


def mark_users(c: sqlite3.Connection, touched: dict[str, bool]) -> None:
    """Give the users written a new number from the file's counter (``write_seq``; ``delete_seq`` too where
    rows were deleted or replaced), so every process sees their in-memory copy is stale. The row of a user
    left with no records is deleted: nothing of a forgotten user stays in the file."""
    if not touched:
        return
    row = c.execute("SELECT value FROM meta WHERE key = 'seq'").fetchone()
    if row is None:  # a file from before the counter: start above every number it gave
        row = c.execute("SELECT max(max(write_seq, delete_seq)) FROM users").fetchone()
    seq = int(row[0] or 0) + 1
    c.execute("INSERT INTO meta VALUES ('seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
              (str(seq),))
    for user, deleted in touched.items():
        if deleted and c.execute("SELECT 1 FROM records WHERE user_id = ? LIMIT 1", (user,)).fetchone() is None:
            c.execute("DELETE FROM users WHERE user_id = ?", (user,))
            continue
        c.execute(
            "INSERT INTO users (user_id, write_seq, delete_seq) VALUES (?, ?, ?) ON CONFLICT (user_id) DO UPDATE "
            "SET write_seq = excluded.write_seq, delete_seq = CASE WHEN ? THEN excluded.delete_seq ELSE delete_seq END",
            (user, seq, seq, int(deleted)),
        )


def set_wipe_pending(c: sqlite3.Connection, step: WipeStep | None) -> None:
    """Kept in the file, so that whichever process writes next finishes a wipe a reader blocked: the file
    still has to be ``rebuild``-t, or only its WAL ``checkpoint``-ed (``None``: nothing pending)."""
    if step is None:
        c.execute("DELETE FROM meta WHERE key = 'wipe_pending'")
    else:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('wipe_pending', ?)", (step,))


def wipe_pending(c: sqlite3.Connection) -> WipeStep | None:
    row = c.execute("SELECT value FROM meta WHERE key = 'wipe_pending'").fetchone()
    if row is None:
        return None
    return "checkpoint" if row[0] == "checkpoint" else "rebuild"
