"""Integration layer (cli): a new user's mistakes with real files, one table: each ends in one stderr line and a
non-zero exit, never a traceback, and writes nothing (no memory file, no half-written report). Searches of a
real store that would otherwise say nothing say why (a user the file lacks, a recipe made for records
indexed otherwise, ``future_filter`` without a date), and ``--explain`` shows each hit's text beside its ranks
(also in ``--json``). Ctrl-C and a closed pipe, which need a process: test_cli_process.py."""

import json
from pathlib import Path

import pytest

from cbmemory import AgentMemory
from cbmemory.cli import main

LOCOMO = [{"sample_id": "conv-1", "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a dog called Biscuit yesterday."},
                  {"speaker": "Bob", "dia_id": "D1:2", "text": "What breed is Biscuit?"}],
    "session_2_date_time": "10:00 am on 20 June, 2023",
    "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Biscuit learned to sit at the dog school."}],
}, "qa": [{"question": "When did Ann adopt Biscuit?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2}]}]
LONGMEMEVAL = [{"question_id": "q1", "question_type": "multi-session", "question": "What pet?", "answer": "a dog",
                "question_date": "2023/06/01 (Thu) 10:00", "haystack_session_ids": ["s1"],
                "haystack_dates": ["2023/05/08 (Mon) 13:56"], "answer_session_ids": ["s1"],
                "haystack_sessions": [[{"role": "user", "content": "I adopted a dog.", "has_answer": True}]]}]


def _files(root: Path) -> dict[str, str]:
    files = {"obj.json": '{"a": 1}', "foo.json": '[{"foo": 1}]', "notjson.txt": "hello, not JSON\n",
             "lme.json": json.dumps(LONGMEMEVAL), "locomo.json": json.dumps(LOCOMO), "trunc.json": '[{"sample_id":',
             "latin1.json": None, "nodate.json": None}
    bad_date = json.loads(json.dumps(LOCOMO))
    bad_date[0]["conversation"]["session_1_date_time"] = "sometime in spring"
    for name, text in files.items():
        if name == "latin1.json":
            (root / name).write_bytes('["caf\xe9"]'.encode("latin-1"))
        elif name == "nodate.json":
            (root / name).write_text(json.dumps(bad_date))
        else:
            (root / name).write_text(text)
    (root / "adir").mkdir()
    return {name: str(root / name) for name in [*files, "adir"]}


# argv (F:<name> one of the files above, DB the memory file, OUT an output folder), and what the one line says
INGEST_MISTAKES = {
    "missing file": (["ingest-dataset", "locomo", "MISSING", "--db", "DB"], "missing.json: no such file or directory"),
    "a JSON object": (["ingest-dataset", "locomo", "F:obj.json", "--db", "DB"], "holds a JSON object; expected a JSON "
                      "list of LoCoMo conversations"),
    "a list of other objects": (["ingest-dataset", "locomo", "F:foo.json", "--db", "DB"], "item 0 has no 'conversation'"),
    "LongMemEval as locomo": (["ingest-dataset", "locomo", "F:lme.json", "--db", "DB"],
                              "looks like a LongMemEval file, not LoCoMo; read it with the longmemeval command"),
    "LoCoMo as longmemeval": (["ingest-dataset", "longmemeval", "F:locomo.json", "--db", "DB"],
                              "looks like a LoCoMo file, not LongMemEval"),
    "not JSON": (["ingest-dataset", "locomo", "F:notjson.txt", "--db", "DB"], "is not JSON (Expecting value at line 1"),
    "cut short": (["ingest-dataset", "locomo", "F:trunc.json", "--db", "DB"], "is not JSON"),
    "not UTF-8": (["ingest-dataset", "longmemeval", "F:latin1.json", "--db", "DB"], "is not UTF-8 text"),
    "a bad session date": (["ingest-dataset", "locomo", "F:nodate.json", "--db", "DB"], "item 0 is not a LoCoMo "
                           "conversation: cannot parse date 'sometime in spring'"),
    "a directory": (["ingest-dataset", "locomo", "F:adir", "--db", "DB"], "adir is a directory; expected a file"),
    "eval: a JSON object": (["eval", "locomo", "--data", "F:obj.json", "--out", "OUT"], "holds a JSON object"),
    "eval: LoCoMo as longmemeval": (["eval", "longmemeval", "--data", "F:locomo.json", "--out", "OUT"],
                                    "looks like a LoCoMo file"),
    "eval: a directory": (["eval", "locomo", "--data", "F:adir", "--out", "OUT"], "is a directory"),
    "eval: missing data": (["eval", "locomo", "--data", "MISSING", "--out", "OUT"], "LoCoMo is not at"),
    "eval report: no run": (["eval", "report", "--out", "OUT"], "holds no evaluation run (no run.json)"),
    "search: missing store": (["search", "dog", "--db", "DB", "--user", "conv-1"], "does not exist"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("argv, says", INGEST_MISTAKES.values(), ids=INGEST_MISTAKES)
def test_each_mistake_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, argv, says):
    files = _files(tmp_path)
    named = {"MISSING": tmp_path / "missing.json", "DB": tmp_path / "memory.db", "OUT": tmp_path / "out"}
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main([files[a[2:]] if a.startswith("F:") else str(named.get(a, a)) for a in argv]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "Traceback" not in printed.err
    assert printed.err.startswith("cbmemory: error: ") and printed.err.count("\n") == 1, printed.err
    assert says in printed.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no memory file, no output folder


@pytest.fixture(scope="module")
def store(tmp_path_factory, minilm) -> str:
    """A memory made the default way (dates on, previous turn on) holding conv-1."""
    path = tmp_path_factory.mktemp("store") / "m.db"
    with AgentMemory.open(path, embedder=minilm) as m:
        for session, date in (("session_1", "2023-05-08"), ("session_2", "2023-06-20")):
            turns = [{"role": "user" if t["speaker"] == "Ann" else "assistant", "content": t["text"],
                      "speaker": t["speaker"], "turn_id": t["dia_id"]} for t in LOCOMO[0]["conversation"][session]]
            m.add_session("conv-1", session, turns, date=date)
    return str(path)


SEARCH_MISTAKES = {
    "a user the file lacks": (["--user", "conv-9"], 2, "holds no user 'conv-9'; `cbmemory stats --db"),
    "a blank query": (["--user", "conv-1", "--query", "   "], 2, "the query is empty"),
    "future_filter without a date": (["--user", "conv-1", "--recipe", "future_filter"], 2, "--as-of DATE"),
    "summary on a raw store": (["--user", "conv-1", "--recipe", "summary"], 0,
                               "warning: recipe 'summary' searches summary records, which"),
    "vector_no_dates on a dated store": (["--user", "conv-1", "--recipe", "vector_no_dates"], 0,
                                         "warning: recipe 'vector_no_dates' expects records made with dates off, "
                                         "previous turn off, but those of 'conv-1'"),
}


@pytest.mark.heavy
@pytest.mark.parametrize("extra, code, says", SEARCH_MISTAKES.values(), ids=SEARCH_MISTAKES)
def test_a_search_that_would_say_nothing_says_why_in_one_line(store, capsys, extra, code, says):
    query = extra[extra.index("--query") + 1] if "--query" in extra else "Where did Biscuit learn to sit?"
    extra = [a for i, a in enumerate(extra) if a != "--query" and (i == 0 or extra[i - 1] != "--query")]
    before = Path(store).read_bytes()
    assert main(["search", query, "--db", store, *extra]) == code
    printed = capsys.readouterr()
    assert printed.err.count("\n") == 1 and says in printed.err and "Traceback" not in printed.err, printed.err
    assert "RecipeMismatchWarning" not in printed.err and Path(store).read_bytes() == before


def shown(hits):
    return {h["turn_id"] for h in hits} | {c["turn_id"] for h in hits for c in h["context"]}


@pytest.mark.heavy
def test_the_store_s_own_recipe_is_silent_and_as_of_filters_later_memories(store, capsys):
    assert main(["search", "Biscuit", "--db", store, "--user", "conv-1", "--json"]) == 0
    printed = capsys.readouterr()
    # what the reader gets: each hit and the turns of its window (a turn a better hit's window shows is no hit)
    assert printed.err == "" and shown(json.loads(printed.out)) == {"D1:1", "D1:2", "D2:1"}
    assert main(["search", "Biscuit", "--db", store, "--user", "conv-1", "--recipe", "future_filter",
                 "--as-of", "2023-05-31", "--json"]) == 0
    printed = capsys.readouterr()
    assert shown(json.loads(printed.out)) == {"D1:1", "D1:2"}  # not June's
    # future_filter's records differ from the store's only in not carrying the turn they answer: silent
    assert printed.err == ""


@pytest.mark.heavy
def test_explain_shows_each_hit_s_text_beside_its_ranks_and_in_json(store, capsys):
    argv = ["search", "Where did Biscuit learn to sit?", "--db", store, "--user", "conv-1", "--k", "2", "--explain"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["rank", "score", "bm25", "vector"] and lines[0].split()[-1] == "text"
    assert len(lines) == 3 and "D2:1" in lines[1] and lines[1].endswith("Ann: Biscuit learned to sit at the dog school.")
    assert main([*argv, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["turn_id"] == "D2:1" and hits[0]["text"].startswith("Biscuit learned")
    assert set(hits[0]["explain"]) == {"bm25", "vector"}
    assert hits[0]["explain"]["vector"] == {"rank": hits[0]["ranks"]["vector"], "score": hits[0]["signals"]["vector"]}


def test_stats_lists_users_with_their_record_and_session_counts(store, capsys):
    assert main(["stats", "--db", store]) == 0
    assert json.loads(capsys.readouterr().out)["by_user"] == [{"user": "conv-1", "records": 3, "sessions": 2}]
