"""Reliability layer: bad files and paths, with real SQLite files in ``tmp_path``.

A read-only file or directory, a file with flipped bytes and a mistyped path each give a typed
``CbMemoryError`` with a one-line message, and the CLI exits 2 with one line on stderr, never a traceback.
A damaged file is never written to; commands that only read never create a file.

The tests run as root, which file modes do not stop. The read-only cases therefore run in a child process
that has given up the capabilities that let root ignore file modes (``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH``), so the kernel refuses it as it refuses any user; as another user they run as
they are. ``classify`` is also checked against the errors SQLite itself raises for each kind of file.
"""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main
from cbmemory.errors import (
    CbMemoryError,
    CorruptStoreError,
    NotAStoreError,
    ReadOnlyStoreError,
    StoreNotFoundError,
    StoreUnavailableError,
)
from cbmemory.store import SQLiteStore
from cbmemory.store.sqlite import file as sqlite_file

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = 40
MIDDLE = SESSIONS // 2


def text(i: int) -> str:
    return f"I moved to Lyon, note number {i:03d}. " + "Some more words about the move. " * 8


def make_store(db: Path, embedder, sessions: int = SESSIONS) -> None:
    with AgentMemory.open(db, embedder=embedder) as m:
        for i in range(sessions):
            m.add_session("alice", f"s{i}", [{"role": "user", "content": text(i)}], date="2023-05-07")
    assert not Path(f"{db}-wal").exists()  # the last close merged the WAL: the file is the whole store


def damage(db: Path) -> None:
    """Flip the first 16 bytes of the page holding a record in the middle of the store (a leaf of the
    records table, in the middle of the file), as a bad disk sector or a stray write would."""
    data = bytearray(db.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    at = data.find(text(MIDDLE).encode())
    page = at // page_size
    assert at > 0 and 0 < page < len(data) // page_size - 1
    for i in range(page * page_size, page * page_size + 16):
        data[i] ^= 0xFF
    db.write_bytes(bytes(data))


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def assert_one_line_error(rc: int, err: str) -> None:
    assert rc == 2, err
    assert err.startswith("cbmemory: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.fixture
def store_file(tmp_path, scripted) -> Path:
    db = tmp_path / "memory.db"
    make_store(db, scripted())
    return db


# ------------------------------------------------------------------ a damaged file
@pytest.fixture
def damaged(store_file) -> Path:
    damage(store_file)
    return store_file


@pytest.mark.parametrize("write", [
    lambda m: m.add_session("alice", "new", [{"role": "user", "content": "one more"}], date="2023-05-08"),
    lambda m: m.forget("alice"),
    lambda m: m.store.purge_expired(),
], ids=["add_session", "forget", "purge_expired"])
def test_a_damaged_file_is_never_written(damaged, scripted, write):
    before = damaged.read_bytes()
    m = AgentMemory.open(damaged, embedder=scripted())
    with pytest.raises(CorruptStoreError) as info:
        write(m)
    m.close()
    assert "damaged" in str(info.value) and "\n" not in str(info.value)
    assert damaged.read_bytes() == before
    assert not Path(f"{damaged}-wal").exists() or Path(f"{damaged}-wal").stat().st_size == 0


def test_searching_a_damaged_file_raises_corrupt_store_error(damaged, scripted):
    with AgentMemory.open(damaged, embedder=scripted(), read_only=True) as m:
        with pytest.raises(CorruptStoreError) as info:
            m.search("Lyon", "alice")
    assert not isinstance(info.value, sqlite3.Error) and isinstance(info.value.__cause__, sqlite3.DatabaseError)
    assert "damaged" in str(info.value) and "\n" not in str(info.value)


def test_the_cli_reports_a_damaged_file_in_one_line(damaged, capsys):
    before = damaged.read_bytes()
    assert_one_line_error(*run_cli(capsys, "stats", "--db", str(damaged))[::2])
    assert_one_line_error(*run_cli(capsys, "forget", "--db", str(damaged), "--user", "alice")[::2])
    assert damaged.read_bytes() == before


def test_the_integrity_check_runs_once_per_store_and_not_on_a_new_file(tmp_path, store_file, scripted,
                                                                       monkeypatch):
    calls = []
    check = sqlite_file.check_integrity
    monkeypatch.setattr(sqlite_file, "check_integrity", lambda *a: calls.append(a) or check(*a))
    with AgentMemory.open(store_file, embedder=scripted()) as m:
        for i in range(3):
            m.add_session("alice", f"more{i}", [{"role": "user", "content": "more"}], date="2023-05-08")
        m.forget("alice", "more0")
    assert len(calls) == 1
    with AgentMemory.open(tmp_path / "new.db", embedder=scripted()) as m:
        m.add_session("alice", "s1", [{"role": "user", "content": "hello"}], date="2023-05-08")
    assert len(calls) == 1  # this object made the file: nothing to check


# ------------------------------------------------------------------ a mistyped path
@pytest.mark.parametrize("open_", [
    lambda p: AgentMemory.open(p, create=False),
    lambda p: AgentMemory.open(p, read_only=True),
    lambda p: SQLiteStore(p, create=False),
    lambda p: SQLiteStore(p, read_only=True),
], ids=["memory create=False", "memory read_only", "store create=False", "store read_only"])
def test_a_missing_file_is_not_created_by_readers(tmp_path, open_):
    missing = tmp_path / "memroy.db"
    with pytest.raises(StoreNotFoundError) as info:
        open_(missing)
    assert str(missing) in str(info.value) and "\n" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_directory_is_not_created(tmp_path):
    with pytest.raises(StoreNotFoundError):
        SQLiteStore(tmp_path / "no" / "such" / "dir.db")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["search", "where do I live", "--user", "alice"],
    ["stats"],
    ["forget", "--user", "alice"],
], ids=lambda a: a[0])
def test_cli_read_commands_never_create_a_file(tmp_path, capsys, argv):
    missing = tmp_path / "memroy.db"
    rc, out, err = run_cli(capsys, *argv, "--db", str(missing))
    assert_one_line_error(rc, err)
    assert out == "" and "does not exist" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.process
def test_cli_as_a_process_prints_no_traceback(tmp_path):
    missing = tmp_path / "memroy.db"
    r = subprocess.run([sys.executable, "-m", "cbmemory.cli", "stats", "--db", str(missing)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert_one_line_error(r.returncode, r.stderr)
    assert not missing.exists()


@pytest.mark.heavy
def test_cli_forget_says_what_it_erased_and_warns_when_a_reader_keeps_the_bytes(store_file, capsys):
    reader = sqlite3.connect(store_file, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM records").fetchone()  # a snapshot from before the forget
    try:
        rc, out, err = run_cli(capsys, "forget", "--db", str(store_file), "--user", "alice", "--session", "s1")
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert rc == 0
    assert json.loads(out) == {"forgotten_records": 1, "forgotten_sessions": 1, "wiped": False, "user": "alice",
                               "session": "s1"}
    assert err.startswith("cbmemory: warning: ") and err.count("\n") == 1 and "another connection" in err
    rc, out, err = run_cli(capsys, "forget", "--db", str(store_file), "--user", "alice")
    assert rc == 0 and err == ""
    assert json.loads(out)["wiped"] is True and json.loads(out)["forgotten_records"] == SESSIONS - 1


@pytest.mark.heavy
def test_cli_stats_after_a_blocked_wipe_exits_0(store_file, capsys):
    reader = sqlite3.connect(store_file, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM records").fetchone()
    try:  # the reader blocks the wipe of the forget and of its close: it stays pending in the file
        assert run_cli(capsys, "forget", "--db", str(store_file), "--user", "alice", "--session", "s1")[0] == 0
    finally:
        reader.execute("COMMIT")
        reader.close()
    rc, out, err = run_cli(capsys, "stats", "--db", str(store_file))
    assert (rc, err) == (0, "") and json.loads(out)["records"] == SESSIONS - 1


def test_cli_reports_a_file_of_another_kind_in_one_line(tmp_path, capsys):
    junk = tmp_path / "notes.db"
    junk.write_text("shopping list\n" * 100)
    rc, _, err = run_cli(capsys, "search", "milk", "--db", str(junk), "--user", "alice")
    assert_one_line_error(rc, err)
    assert "not a cbmemory store" in err and junk.read_text() == "shopping list\n" * 100


# ------------------------------------------------------------------ read-only files and directories
def test_read_only_open_reads_and_refuses_every_write(store_file, scripted):
    before = store_file.read_bytes()
    with AgentMemory.open(store_file, embedder=scripted(), read_only=True) as m:
        assert m.store.count() == SESSIONS and len(m.search("Lyon", "alice", 5)) == 5
        for write in (lambda: m.add_session("alice", "x", [{"role": "user", "content": "x"}]),
                      lambda: m.forget("alice"), lambda: m.store.purge_expired()):
            with pytest.raises(ReadOnlyStoreError, match="read_only"):
                write()
    assert store_file.read_bytes() == before


def test_cli_stats_opens_read_only(store_file, capsys):
    before = store_file.read_bytes()
    rc, out, err = run_cli(capsys, "stats", "--db", str(store_file))
    assert rc == 0 and json.loads(out)["records"] == SESSIONS
    assert store_file.read_bytes() == before


_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2
CANNOT_DROP = 77


def _without_root_powers() -> None:
    """Runs in the child between fork and exec: file modes apply to it, as they do to any user."""
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if _LIBC is None or _LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            os._exit(CANNOT_DROP)


CHILD = r"""
import contextlib, io, json, os, sys
from cbmemory import AgentMemory
from cbmemory.cli import main
from cbmemory.store import SQLiteStore
from tests.conftest import ScriptedEmbedder

db = sys.argv[1]

def attempt(fn):
    try:
        return {"ok": fn()}
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}

def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return {"rc": rc, "stdout": out.getvalue(), "stderr": err.getvalue()}

def read():
    with AgentMemory.open(db, embedder=ScriptedEmbedder(), read_only=True) as m:
        return [m.store.count(), len(m.search("Lyon", "alice", 5))]

def write():
    with AgentMemory.open(db, embedder=ScriptedEmbedder()) as m:
        m.add_session("alice", "late", [{"role": "user", "content": "one more"}])

print(json.dumps({
    "file_writable": os.access(db, os.W_OK),
    "dir_writable": os.access(os.path.dirname(db), os.W_OK),
    "read": attempt(read),
    "write": attempt(write),
    "store_write": attempt(lambda: SQLiteStore(db).close()),
    "cli_stats": cli("stats", "--db", db),
    "cli_forget": cli("forget", "--db", db, "--user", "alice"),
}))
"""


def as_plain_user(db: Path) -> dict:
    if sys.platform == "win32":
        pytest.skip("file modes do not make files or directories read-only on Windows")
    root = os.geteuid() == 0
    r = subprocess.run([sys.executable, "-c", CHILD, str(db)], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, preexec_fn=_without_root_powers if root else None)
    if r.returncode == CANNOT_DROP:
        print("skipped: as root, file modes stop nothing, and this process cannot drop CAP_DAC_OVERRIDE")
        pytest.skip("cannot run a child without root's power over file modes here")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


@pytest.fixture
def restore_modes(tmp_path):
    yield
    for p in [tmp_path, *tmp_path.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)


@pytest.mark.process
@pytest.mark.parametrize("file_mode, dir_mode", [(0o444, 0o755), (0o644, 0o555), (0o444, 0o555)],
                         ids=["read-only file", "read-only directory", "both"])
def test_read_only_files_and_directories(store_file, restore_modes, file_mode, dir_mode):
    before = store_file.read_bytes()
    store_file.chmod(file_mode)
    store_file.parent.chmod(dir_mode)
    got = as_plain_user(store_file)
    assert got["file_writable"] == bool(file_mode & 0o200) and got["dir_writable"] == bool(dir_mode & 0o200)
    assert got["read"] == {"ok": [SESSIONS, 5]}  # a good store, never "not a store"
    for key in ("write", "store_write"):
        assert got[key]["error"] == "ReadOnlyStoreError", got[key]
        assert "read_only=True" in got[key]["message"]
    assert got["cli_stats"]["rc"] == 0 and json.loads(got["cli_stats"]["stdout"])["records"] == SESSIONS
    assert_one_line_error(got["cli_forget"]["rc"], got["cli_forget"]["stderr"])
    assert "read" in got["cli_forget"]["stderr"]
    assert store_file.read_bytes() == before


@pytest.mark.process
def test_a_read_only_directory_with_unmerged_changes_is_not_read_stale(tmp_path, store_file, restore_modes):
    """Where SQLite cannot open the WAL of a read-only directory, the file alone is read only if no
    committed change waits in the WAL; otherwise the open is refused rather than answer from old data."""
    frozen = tmp_path / "frozen"
    frozen.mkdir()
    con = sqlite3.connect(store_file)
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.execute("DELETE FROM sessions WHERE session_id = 's1'")
    con.commit()
    for name in (store_file.name, f"{store_file.name}-wal"):  # a copy taken while a writer had it open
        (frozen / name).write_bytes((store_file.parent / name).read_bytes())
    con.close()
    frozen.chmod(0o555)
    got = as_plain_user(frozen / store_file.name)
    assert got["read"]["error"] == "ReadOnlyStoreError" and "not yet merged" in got["read"]["message"]
    assert got["write"]["error"] == "ReadOnlyStoreError"
    assert_one_line_error(got["cli_stats"]["rc"], got["cli_stats"]["stderr"])


# ------------------------------------------------------------------ classify, on SQLite's own errors
def _error(fn) -> sqlite3.Error:
    with pytest.raises(sqlite3.Error) as info:
        fn()
    return info.value


def test_classify_sqlite_errors(tmp_path, store_file):
    ro = sqlite3.connect(sqlite_file.file_uri(store_file, "ro"), uri=True)
    readonly = _error(lambda: ro.execute("INSERT INTO meta VALUES ('k', 'v')"))
    syntax = _error(lambda: ro.execute("SELEC 1"))
    ro.close()
    damage(store_file)
    con = sqlite3.connect(store_file)
    corrupt = _error(lambda: con.execute("SELECT count(*), sum(length(text)) FROM records").fetchall())
    con.close()
    junk = tmp_path / "junk.db"
    junk.write_text("not a database " * 100)
    notadb = _error(lambda: sqlite3.connect(junk).execute("PRAGMA application_id"))
    cantopen = _error(lambda: sqlite3.connect(sqlite_file.file_uri(tmp_path / "no" / "x.db", "ro"), uri=True))
    integrity = _error(lambda: sqlite3.connect(":memory:").execute("CREATE TABLE t (x UNIQUE)")
                       .executemany("INSERT INTO t VALUES (?)", [(1,), (1,)]))

    def kind(exc, **kw):
        typed = sqlite_file.classify(exc, "m.db", **kw)
        assert typed is None or ("m.db" in str(typed) and "\n" not in str(typed))
        return type(typed)

    assert kind(readonly) is ReadOnlyStoreError
    assert "read_only=True" in str(sqlite_file.classify(readonly, "m.db"))
    assert "opened with read_only" in str(sqlite_file.classify(readonly, "m.db", read_only=True))
    assert kind(corrupt) is CorruptStoreError
    assert kind(notadb, opening=True) is NotAStoreError and kind(notadb) is CorruptStoreError
    assert kind(cantopen) is StoreUnavailableError
    assert kind(syntax) is type(None) and kind(integrity) is type(None)
    # Python before 3.11 gives SQLite's message only: the same answers from the text
    for exc in (readonly, corrupt, notadb, cantopen):
        bare = type(exc)(str(exc))
        assert sqlite_file.classify(bare, "m.db").__class__ is sqlite_file.classify(exc, "m.db").__class__
    assert all(issubclass(e, CbMemoryError) for e in (ReadOnlyStoreError, CorruptStoreError, NotAStoreError))
