"""The embedded store's file: opening it, making or upgrading its schema, checking it, and what
SQLite's errors about it mean.

Pure helpers, no store state. SQLite reports a missing, read-only or damaged file as ``sqlite3`` errors,
often only at the first read or write; here they become cbmemory's typed errors with a one-line message
that says what to do:

* missing, for a caller that may not create it (every reader): ``StoreNotFoundError``, nothing created;
* not writable (a read-only file, or a directory where SQLite cannot create the file's ``-wal``):
  ``ReadOnlyStoreError`` at open for a caller that means to write, telling it to pass ``read_only=True``;
* damaged: ``CorruptStoreError``, from :func:`check_integrity` before the first write and from any read
  or write that meets a damaged page;
* not a cbmemory file at all: ``NotAStoreError`` (a text file here; other SQLite files in the store).

Connections come from :func:`connect` as :class:`StoreConnection`; the store holds its :class:`StoreLock`
around every use of one, which turns errors about the file itself into the typed errors (chained to
SQLite's); every other ``sqlite3`` error (constraints, a busy file, SQL) is raised unchanged.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...errors import (
    CbMemoryError,
    CorruptStoreError,
    InvalidInputError,
    NotAStoreError,
    ReadOnlyStoreError,
    StoreNotFoundError,
    StoreUnavailableError,
)
from .. import lexical
from . import sql as q
from .write import set_wipe_pending, wipe_pending

# SQLite's primary result codes for errors about the file (an extended code's low byte is its primary code)
SQLITE_PERM = 3
SQLITE_BUSY = 5
SQLITE_LOCKED = 6
SQLITE_READONLY = 8
SQLITE_CORRUPT = 11
SQLITE_CANTOPEN = 14
SQLITE_NOTADB = 26

# What SQLite says for each: Python < 3.11 gives the message only, not ``sqlite_errorcode``
MESSAGES = {
    "access permission denied": SQLITE_PERM,
    "attempt to write a readonly database": SQLITE_READONLY,
    "database disk image is malformed": SQLITE_CORRUPT,
    "database is locked": SQLITE_BUSY,
    "database table is locked": SQLITE_LOCKED,
    "unable to open database file": SQLITE_CANTOPEN,
    "file is not a database": SQLITE_NOTADB,
}


def error_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of ``exc`` (``None`` for errors raised by Python's module itself)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF
    return MESSAGES.get(str(exc))


def classify(exc: sqlite3.Error, path: str, *, opening: bool = False,
             read_only: bool = False) -> CbMemoryError | None:
    """The typed error ``exc`` stands for when it is about the store's file, else ``None``.

    ``opening``: the file has not yet been seen to be a SQLite database, so "not a database" means not a
    store (afterwards it means a damaged header). ``read_only``: the store was opened with ``read_only``.
    """
    code = error_code(exc)
    if code == SQLITE_NOTADB and opening:
        return NotAStoreError(f"{path} is not a cbmemory store: {exc}")
    if code in (SQLITE_CORRUPT, SQLITE_NOTADB):
        return CorruptStoreError(f"{path} is damaged ({exc}); restore it from a backup")
    if code == SQLITE_READONLY:
        if read_only:
            return opened_read_only(path)
        return ReadOnlyStoreError(f"{path} cannot be written ({exc}): the file or its directory is read-only; "
                                  "pass read_only=True to read it")
    if code in (SQLITE_CANTOPEN, SQLITE_PERM):
        return StoreUnavailableError(f"{path} cannot be opened ({exc}); check that it and its directory "
                                     "exist and can be read")
    return None


def opened_read_only(path: str) -> ReadOnlyStoreError:
    return ReadOnlyStoreError(f"{path} was opened with read_only=True; open it without read_only to write")


def opening_error(exc: sqlite3.Error, path: str) -> CbMemoryError:
    """What an error of SQLite's while a store checks its file (before it is known to be a store) means."""
    if error_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED):  # a good file another connection holds locked
        return StoreUnavailableError(f"{path} is locked by another connection ({exc}); try again")
    return classify(exc, path, opening=True) or NotAStoreError(f"{path} is not a cbmemory store: {exc}")


def _raise_typed(conn: sqlite3.Connection, exc: sqlite3.Error) -> None:
    """Raise the typed error ``exc`` stands for, if any (the caller re-raises ``exc`` otherwise)."""
    typed = classify(exc, getattr(conn, "path", "the store"), opening=getattr(conn, "opening", False),
                     read_only=getattr(conn, "read_only", False))
    if typed is not None:
        raise typed from exc


class StoreLock:
    """The store's lock, held around every use of its connection. A ``sqlite3.Error`` raised while it is held
    leaves as the typed error it stands for (see :func:`classify`), so a damaged, read-only or vanished file
    is reported the same way on every path, at no cost per statement or row."""

    def __init__(self) -> None:
        self._rlock = threading.RLock()
        self.conn: sqlite3.Connection | None = None

    def __enter__(self) -> StoreLock:
        self._rlock.acquire()
        return self

    def __exit__(self, kind: object, exc: BaseException | None, tb: object) -> None:
        try:
            if isinstance(exc, sqlite3.Error) and self.conn is not None:
                _raise_typed(self.conn, exc)
        finally:
            self._rlock.release()


class StoreConnection(sqlite3.Connection):
    """A connection to a store's file, knowing what its errors mean (used with :class:`StoreLock`).

    ``path`` names the file in messages; ``read_only`` is True when it was opened read-only; ``opening``
    is True until the store has seen the file is a cbmemory store (see :func:`classify`).
    """

    path = ":memory:"
    read_only = False
    opening = True



def file_uri(file: Path, mode: str, *, immutable: bool = False) -> str:
    """SQLite URI of ``file`` (percent-encoded, so any file name works) opened with ``mode``."""
    return f"{file.absolute().as_uri()}?mode={mode}" + ("&immutable=1" if immutable else "")


def _connect(target: str, path: str, *, read_only: bool, timeout: float) -> StoreConnection:
    try:
        conn = sqlite3.connect(target, uri=target.startswith("file:"), timeout=timeout, isolation_level=None,
                               check_same_thread=False, factory=StoreConnection)
    except sqlite3.Error as exc:
        raise classify(exc, path, opening=True, read_only=read_only) or StoreUnavailableError(
            f"{path} cannot be opened: {exc}") from exc
    assert isinstance(conn, StoreConnection)
    conn.path, conn.read_only = path, read_only
    return conn


def _writable_dir(directory: Path) -> bool:
    return os.access(directory, os.W_OK | os.X_OK)


def connect(path: str, *, create: bool = True, read_only: bool = False, timeout: float = 30.0) -> StoreConnection:
    """A connection to the store file at ``path`` (or ``":memory:"``), checked before SQLite opens it.

    ``create``: a missing file may be created (else ``StoreNotFoundError``, and nothing is created).
    ``read_only``: only read (never creates a file); otherwise a file that cannot be written, or that lies
    in a directory where SQLite cannot create its ``-wal``, is refused now with ``ReadOnlyStoreError``
    rather than at the first write. The file's content is the caller's to check.
    """
    if path == ":memory:":
        if read_only:
            raise InvalidInputError("a ':memory:' store starts empty; it cannot be opened read_only")
        return _connect(path, path, read_only=False, timeout=timeout)
    file = Path(path)
    directory = file.absolute().parent
    if not file.exists():
        if read_only or not create:
            raise StoreNotFoundError(f"{path} does not exist (nothing was created); check the path")
        if not directory.is_dir():
            raise StoreNotFoundError(f"cannot create {path}: the directory {directory} does not exist")
        if not _writable_dir(directory):
            raise ReadOnlyStoreError(f"cannot create {path}: the directory {directory} is read-only")
        return _connect(file_uri(file, "rwc"), path, read_only=False, timeout=timeout)
    if not os.access(file, os.R_OK):
        raise StoreUnavailableError(f"{path} cannot be read (permission denied)")
    if read_only:
        return _connect_read_only(file, path, timeout)
    if not os.access(file, os.W_OK):
        raise ReadOnlyStoreError(f"{path} is a read-only file; pass read_only=True to read it")
    wal, shm = Path(f"{file}-wal"), Path(f"{file}-shm")
    if not _writable_dir(directory) and not (wal.exists() and shm.exists() and os.access(wal, os.W_OK)
                                             and os.access(shm, os.W_OK)):
        raise ReadOnlyStoreError(f"{path} is in a read-only directory, where SQLite cannot create its "
                                 f"{wal.name}; pass read_only=True to read it")
    return _connect(file_uri(file, "rw"), path, read_only=False, timeout=timeout)


def _connect_read_only(file: Path, path: str, timeout: float) -> StoreConnection:
    conn = _connect(file_uri(file, "ro"), path, read_only=True, timeout=timeout)
    try:
        # reads the header and, for a WAL file, opens the -shm index: where SQLite cannot create that
        # (a read-only directory) this is the statement that fails
        conn.cursor(sqlite3.Cursor).execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.Error as exc:
        conn.close()
        if error_code(exc) not in (SQLITE_READONLY, SQLITE_CANTOPEN) or _writable_dir(file.absolute().parent):
            raise classify(exc, path, opening=True, read_only=True) or NotAStoreError(
                f"{path} is not a cbmemory store: {exc}") from exc
        failure = exc
    # A read-only directory: SQLite cannot create the -wal and -shm files a WAL database is read through.
    # ``immutable=1`` reads the database file alone, without them and without locks. That is exact while
    # no -wal holds changes not yet copied into the file (a writer that closed cleanly leaves none) and
    # nobody writes the file while it is open, which holds where no one here may create files beside it;
    # a writer with more rights could still change it, and a read may then fail (as CorruptStoreError).
    wal = Path(f"{file}-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise ReadOnlyStoreError(f"{path} has changes not yet merged from {wal.name} and lies in a read-only "
                                 "directory; open it once where it can be written") from failure
    return _connect(file_uri(file, "ro", immutable=True), path, read_only=True, timeout=timeout)


def check_integrity(conn: sqlite3.Connection, path: str) -> None:
    """Raise ``CorruptStoreError`` unless SQLite's ``quick_check`` finds the file sound.

    ``quick_check`` reads every page (time grows with the file's size) and checks pages, b-trees and the
    free list, not whether indexes agree with their tables (``integrity_check``, several times slower).
    """
    try:
        rows = conn.cursor(sqlite3.Cursor).execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as exc:
        if error_code(exc) not in (SQLITE_CORRUPT, SQLITE_NOTADB):
            raise
        rows = [(str(exc),)]
    problems = [" ".join(str(r[0]).split()) for r in rows if r[0] != "ok"]
    if problems:
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise CorruptStoreError(f"{path} is damaged (integrity check: {problems[0]}{more}); nothing was "
                                "written to it; restore it from a backup")


# ------------------------------------------------------------------ schema
@contextmanager
def transaction(c: sqlite3.Connection, write: bool = True) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` (or a read ``BEGIN``) ... ``COMMIT``; rolled back if the block raises."""
    c.execute("BEGIN IMMEDIATE" if write else "BEGIN")
    with committed(c):
        yield c


def begin_immediate(c: sqlite3.Connection, timeout_ms: int) -> bool:
    """``BEGIN IMMEDIATE`` without waiting inside SQLite for another connection's write lock (the caller
    waits, without holding the store's lock). ``False`` when the lock is held elsewhere."""
    c.execute("PRAGMA busy_timeout = 0")
    try:
        c.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if error_code(exc) not in (SQLITE_BUSY, SQLITE_LOCKED):
            raise
        return False
    finally:
        c.execute(f"PRAGMA busy_timeout = {timeout_ms}")  # the one it was opened with
    return True


@contextmanager
def committed(c: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``COMMIT`` after the block (begun by :func:`begin_immediate`); rolled back if it raises."""
    try:
        yield c
    except BaseException:
        c.execute("ROLLBACK")
        raise
    c.execute("COMMIT")


def meta(c: sqlite3.Connection, key: str) -> str | None:
    row = c.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def prepare(c: sqlite3.Connection, path: str, *, create: bool, read_only: bool) -> bool:
    """Check that the file behind ``c`` is a cbmemory store (``NotAStoreError`` otherwise), set the
    connection up (WAL unless ``read_only``, ``secure_delete``) and, for an empty file when ``create``
    and not ``read_only``, make it a store of the current schema. Returns whether this call made it.
    The schema version of an existing store is the caller's to check."""
    app_id = c.execute("PRAGMA application_id").fetchone()[0]
    if app_id != q.APPLICATION_ID:
        tables = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != 0 or tables:
            raise NotAStoreError(f"{path} is a SQLite file of some other application")
        if read_only or not create:
            raise NotAStoreError(f"{path} is an empty file, not a cbmemory store")
    if not read_only:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
    c.execute("PRAGMA secure_delete=ON")  # erased memories are overwritten, not left in free pages
    if app_id == q.APPLICATION_ID:
        return False
    with transaction(c):
        if c.execute("PRAGMA application_id").fetchone()[0] == q.APPLICATION_ID:
            return False  # another connection made it meanwhile
        for stmt in q.SCHEMA:
            c.execute(stmt)
        c.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (q.SCHEMA_VERSION,))
        c.execute(f"PRAGMA application_id={q.APPLICATION_ID}")
    return True


UPGRADABLE = ("2", "3", "4")  # older schema versions an open upgrades in place
# Parts of the current schema that a store of it made before them lacks, by name: the same schema (no row or
# result differs without them, only the time of some reads), so they are made on the store's first write, never
# on open or a read (an older schema's upgrade makes them after its last step). In the order they are made.
LATER = {"records_session_order": q.SESSION_ORDER_INDEX, "derived": q.DERIVED_TABLE,
         "derived_record": q.DERIVED_INDEX, "records_derived_gone": q.DERIVED_TRIGGER}


# Columns of the current schema that a table of a ``LATER`` part made before them lacks (a table made now has them),
# made the same way.
LATER_COLUMNS = {("derived", "form"): q.DERIVED_FORM}


def missing_later(c: sqlite3.Connection) -> list[str]:
    """The statements of the ``LATER`` parts (and ``LATER_COLUMNS``) a store of the current schema lacks (a read)."""
    have = {name for (name,) in c.execute("SELECT name FROM sqlite_master")}
    columns = [stmt for (table, column), stmt in LATER_COLUMNS.items()
               if table in have and not has_column(c, table, column)]
    return [stmt for name, stmt in LATER.items() if name not in have] + columns


def has_column(c: sqlite3.Connection, table: str, column: str) -> bool:
    """Whether ``table`` (one of the schema's) has ``column`` (a read)."""
    return any(row[1] == column for row in c.execute(f"PRAGMA table_info({table})"))


def has_table(c: sqlite3.Connection, name: str) -> bool:
    """Whether the file has table ``name`` (a ``LATER`` one may not be there yet: a read)."""
    return c.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def upgrade(c: sqlite3.Connection) -> bool:
    """Bring an older schema (``UPGRADABLE``) to the current one, inside the caller's write transaction, one
    step after another (2 -> 3 -> 4 -> 5), then the ``LATER`` parts. The version is read here, inside the
    transaction, so a store that another connection upgraded meanwhile is left as it is. Returns whether a wipe is
    pending (the caller runs it once the transaction is committed)."""
    version = meta(c, "schema_version")
    if version == "2":
        upgrade_from_2(c)
        version = "3"
    if version == "3":
        upgrade_from_3(c)
        version = "4"
    if version == "4":
        upgrade_from_4(c)
    for stmt in missing_later(c):
        c.execute(stmt)
    return wipe_pending(c) is not None


def upgrade_from_2(c: sqlite3.Connection) -> None:
    """Schema 2 -> 3, inside the caller's write transaction: term ids for every record, no shared FTS5
    index. Marks a wipe pending (the old index's pages held every user's words): the caller runs it."""
    for stmt in q.MIGRATE_FROM_2:
        c.execute(stmt)
    rows = c.execute("SELECT rowid, index_text, text FROM records").fetchall()
    c.executemany("UPDATE records SET terms = ? WHERE rowid = ?",
                  [(lexical.encode(index_text, text), rowid) for rowid, index_text, text in rows])
    c.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    set_wipe_pending(c, "rebuild")


def upgrade_from_3(c: sqlite3.Connection) -> None:
    """Schema 3 -> 4, inside the caller's write transaction: room for a sparse vector per record (none for
    the records already there; no sparse encoder is bound). Rewrites no row and erases nothing."""
    for stmt in q.MIGRATE_FROM_3:
        c.execute(stmt)
    c.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")


def upgrade_from_4(c: sqlite3.Connection) -> None:
    """Schema 4 -> 5, inside the caller's write transaction: room for the links of a record to the records it
    supersedes (none for the records already there). Rewrites no row and erases nothing."""
    for stmt in q.MIGRATE_FROM_4:
        c.execute(stmt)
    c.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")


def wipe(c: sqlite3.Connection, timeout_ms: int) -> bool:
    """Leave nothing of erased records in the file's bytes. secure_delete zeroes a deleted row where it
    lies, but SQLite's b-tree rebalancing leaves stale copies of rows it moved in pages' free space, so
    a row erased later can survive there: the file is rebuilt (VACUUM, rowids kept), then the WAL is
    copied in and truncated. A reader in another connection on an older snapshot blocks the last step:
    after waiting a little the wipe stays pending (marked in the file) and the next write or close, by
    any process, finishes it. Returns whether the wipe is complete. The caller holds the connection."""
    if wipe_pending(c) == "rebuild":
        c.execute("VACUUM")
        with transaction(c) as tx:
            set_wipe_pending(tx, "checkpoint")
    c.execute(f"PRAGMA busy_timeout = {min(timeout_ms, 2000)}")
    try:
        busy = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        c.execute(f"PRAGMA busy_timeout = {timeout_ms}")
    if busy:
        return False
    with transaction(c) as tx:
        set_wipe_pending(tx, None)
    return True
