"""Integration layer (cli): ``cbmemory export`` and ``cbmemory import`` on real SQLite files with the offline
embedder: a file exported, imported into another store and exported again is the same bytes; importing it
again changes nothing; mistakes (a newer format, a session without its user, a user the store lacks) end in
one stderr line and exit 2, writing nothing."""

import json

from cbmemory import AgentMemory
from cbmemory.cli import main


def _seed(path, minilm) -> None:
    with AgentMemory.open(path, embedder=minilm) as memory:
        memory.add_session("alice", "a1", [{"role": "user", "content": "I moved to Lyon yesterday."}], date="2023-05-07")
        memory.add_session("bob", "b1", [{"role": "user", "content": "Rex is my dog."}], date="2023-05-01")


def test_export_import_export(tmp_path, minilm, capsys):
    db, other, out, again = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "m.jsonl", tmp_path / "m2.jsonl"
    _seed(db, minilm)
    assert main(["export", "--db", str(db), "--out", str(out)]) == 0
    assert "exported 2 records of 2 sessions (2 users" in capsys.readouterr().err
    assert main(["import", str(out), "--db", str(other)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert (first["records"], first["inserted"], first["vectors"]) == (2, 2, "kept")
    assert main(["import", str(out), "--db", str(other)]) == 0
    assert json.loads(capsys.readouterr().out)["unchanged"] == 2
    assert main(["export", "--db", str(other), "--out", str(again), "--quiet"]) == 0
    assert again.read_bytes() == out.read_bytes()
    assert main(["export", "--db", str(db), "--user", "bob", "--session", "b1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["text"] == "Rex is my dog."


def test_mistakes_are_one_line_and_write_nothing(tmp_path, minilm, capsys):
    db, other, newer = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "newer.jsonl"
    _seed(db, minilm)
    assert main(["export", "--db", str(db), "--session", "a1"]) == 2
    assert "--session needs --user" in capsys.readouterr().err
    assert main(["export", "--db", str(db), "--user", "carol"]) == 2
    assert "holds no user 'carol'" in capsys.readouterr().err
    assert main(["export", "--db", str(db), "--out", str(newer), "--quiet"]) == 0
    head, rest = newer.read_text().split("\n", 1)
    newer.write_text(json.dumps({**json.loads(head), "version": 99}) + "\n" + rest)
    assert main(["import", str(newer), "--db", str(other)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "format version 99, written by a newer cbmemory" in err
    with AgentMemory.open(other, embedder=minilm) as memory:
        assert memory.store.count() == 0
