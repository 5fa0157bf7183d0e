"""Integration layer (cli): ``cbmemory ingest`` stores a user's own chat logs (a JSON list or JSON Lines of
messages with user, session, date, role and content) grouped by user and session, a rerun stores nothing
twice, ``--append`` adds turns to a stored session; every mistake in the file names its line and field, exits
2 and stores nothing (no memory file is made). ``cbmemory forget`` of a user or session the file does not hold
is an error unless ``--ignore-missing``."""

import json

import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main

LOG = [
    {"user": "alice", "session": "s1", "date": "2024-05-01T09:00:00Z", "role": "user",
     "content": "I adopted a cat called Miso yesterday.", "turn_id": "a1", "speaker": "Alice"},
    {"user": "alice", "session": "s1", "date": "2024-05-01T09:00:00Z", "role": "assistant",
     "content": "Congratulations! How is Miso settling in?", "turn_id": "a2"},
    {"user": "bob", "session": "b1", "date": "2024-05-02", "role": "user", "content": "I ran my first 10k."},
    {"user": "alice", "session": "s2", "date": "2024-06-10", "role": "user",
     "content": "Miso learned to open the fridge.", "annotations": {"topic": "pets"}},
]


def _jsonl(path, items):
    path.write_text("".join(json.dumps(m) + "\n" for m in items))
    return str(path)


@pytest.mark.heavy
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_chat_logs_are_stored_by_user_and_session_and_a_rerun_stores_nothing_twice(tmp_path, capsys, minilm, fmt):
    path = tmp_path / f"log.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(LOG, indent=1))
    else:
        _jsonl(path, LOG)
    db = str(tmp_path / "m.db")
    assert main(["ingest", str(path), "--db", db, "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out | {"seconds": 0, "embedded_per_s": 0} == {"users": 2, "sessions": 3, "turns": 4, "new": 4,
                                                          "replaced": 0, "unchanged": 0, "seconds": 0,
                                                          "embedded_per_s": 0}
    with AgentMemory.open(db, embedder=minilm, read_only=True) as m:
        assert [s.session_id for s in m.sessions("alice")] == ["s1", "s2"]
        first = m.session_records("alice", "s1")
        assert [r.text for r in first] == [LOG[0]["content"], LOG[1]["content"]]
        assert first[0].speaker == "Alice" and first[0].occurred_at.isoformat() == "2024-05-01T09:00:00+00:00"
        assert dict(m.session_records("alice", "s2")[0].annotations) == {"topic": "pets"}
        assert [r.text for r in m.session_records("bob")] == [LOG[2]["content"]]
    assert main(["ingest", str(path), "--db", db, "--quiet"]) == 0  # sessions given again: replaced, unchanged
    again = json.loads(capsys.readouterr().out)
    assert (again["new"], again["unchanged"]) == (0, 4)
    assert main(["search", "What is the cat called?", "--db", db, "--user", "alice", "--json", "--k", "1"]) == 0
    assert "Miso" in json.loads(capsys.readouterr().out)[0]["text"]


@pytest.mark.heavy
def test_append_adds_turns_to_a_stored_session_and_skips_those_stored(tmp_path, capsys, minilm):
    db = str(tmp_path / "m.db")
    assert main(["ingest", _jsonl(tmp_path / "a.jsonl", LOG[:2]), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    more = [*LOG[:2], {**LOG[1], "turn_id": "a3", "role": "user", "content": "She sleeps on my keyboard."}]
    assert main(["ingest", _jsonl(tmp_path / "b.jsonl", more), "--db", db, "--append", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["new"] == 1  # a1 and a2 are stored already: skipped
    with AgentMemory.open(db, embedder=minilm, read_only=True) as m:
        assert [r.turn_id for r in m.session_records("alice", "s1")] == ["a1", "a2", "a3"]


def _line(n: int, **changes):
    return {**LOG[0], "turn_id": f"t{n}", **changes}


MISTAKES = {  # the file's lines (JSON Lines), what the one line says
    "not JSON": (["{not json"], "line 1 is not JSON"),
    "not an object": ([_line(1), [1, 2]], "line 2 is a JSON list, not an object"),
    "no date": ([_line(1), {k: v for k, v in _line(2).items() if k != "date"}], "line 2 has no 'date'"),
    "no user nor content": ([{k: v for k, v in _line(1).items() if k not in ("user", "content")}],
                            "line 1 has no 'user' and no 'content'"),
    "unknown field": ([_line(1, contnet="typo")], "line 1 has unknown fields ['contnet']"),
    "a LoCoMo file": ([{"sample_id": "conv-1", "conversation": {}, "qa": []}], "`cbmemory ingest-dataset`"),
    "bad date": ([_line(1), _line(2, date="someday")], "line 2: cannot parse date 'someday'"),
    "bad role": ([_line(1, role="narrator")], "line 1: unknown role 'narrator'"),
    "empty content": ([_line(1, content="  ")], "line 1: content"),
    "two dates in one session": ([_line(1), _line(2, date="2024-05-03")],
                                 "line 2: session 's1' of user 'alice' is dated 2024-05-01T09:00:00+00:00"),
    "a turn id twice": ([_line(1), _line(1)], "line 2: turn_id 't1' is given twice in session 's1'"),
    "a bad user id": ([_line(1, user="")], "line 1: user"),
    "nothing": ([], "holds no messages"),
}


@pytest.mark.parametrize("lines, says", MISTAKES.values(), ids=MISTAKES)
def test_a_mistake_in_the_file_names_its_line_and_stores_nothing(tmp_path, capsys, lines, says):
    path = tmp_path / "log.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    db = tmp_path / "m.db"
    assert main(["ingest", str(path), "--db", str(db)]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1 and printed.err.startswith("cbmemory: error: ")
    assert says in printed.err, printed.err
    assert not db.exists()  # the file is checked before the memory is opened


def test_a_json_file_that_is_not_a_list_of_messages_says_what_it_expected(tmp_path, capsys):
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"messages": LOG}))
    assert main(["ingest", str(path), "--db", str(tmp_path / "m.db"), "--format", "json"]) == 2
    assert "holds a JSON dict; expected a list of messages" in capsys.readouterr().err
    path.write_text("[" + json.dumps(LOG[0]))
    assert main(["ingest", str(path), "--db", str(tmp_path / "m.db")]) == 2
    assert f"{path} is not JSON" in capsys.readouterr().err


@pytest.mark.heavy
def test_forget_of_a_user_or_session_the_file_lacks_is_an_error_unless_told_to_ignore_it(tmp_path, capsys):
    db = str(tmp_path / "m.db")
    assert main(["ingest", _jsonl(tmp_path / "a.jsonl", LOG), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    for argv, says in [(["--user", "carol"], f"{db} holds no user 'carol', so nothing was erased"),
                       (["--user", "alice", "--session", "s9"],
                        f"{db} holds no session 's9' of user 'alice', so nothing was erased")]:
        assert main(["forget", "--db", db, *argv]) == 2
        printed = capsys.readouterr()
        assert printed.out == "" and printed.err.startswith("cbmemory: error: ") and says in printed.err
        assert "--ignore-missing" in printed.err
        assert main(["forget", "--db", db, *argv, "--ignore-missing"]) == 0
        printed = capsys.readouterr()
        assert json.loads(printed.out)["forgotten_records"] == 0 and "nothing to erase" in printed.err
    assert main(["stats", "--db", db]) == 0 and json.loads(capsys.readouterr().out)["records"] == 4  # untouched
    assert main(["forget", "--db", db, "--user", "alice", "--session", "s2"]) == 0
    assert json.loads(capsys.readouterr().out)["forgotten_records"] == 1
    assert main(["forget", "--db", db, "--user", "alice", "--session", "s2"]) == 2  # gone now
    capsys.readouterr()
