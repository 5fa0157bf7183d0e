"""Integration layer (cli): ``cbmemory search --current-only --as-of DATE`` on a real memory file whose
statements were linked when written (``link_updates``): the options reach the search (a changed memory left
out; the state at a date, to the end of that day), and a bad date is one error line."""

from __future__ import annotations

import dataclasses
import json

import pytest

from cbmemory import AgentMemory, get_recipe
from cbmemory.cli import main

LINKING = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
PARIS, PORTO = "I live in Paris and I love my neighbourhood.", "Big news: I moved to Porto last week."


def _texts(out: str) -> set[str]:
    return {r["text"] for h in json.loads(out) for r in (h, *h["context"])}


@pytest.mark.heavy
def test_search_takes_current_only_and_as_of(tmp_path, minilm, capsys):
    db = tmp_path / "m.db"
    with AgentMemory.open(db, embedder=minilm, ingest=LINKING) as memory:
        memory.add_session("ana", "s1", [{"role": "user", "content": PARIS}], date="2023-05-07")
        memory.add_session("ana", "s2", [{"role": "user", "content": PORTO}], date="2023-06-06")
    base = ["search", "Which city do I live in?", "--db", str(db), "--user", "ana", "--json"]
    assert main(base) == 0
    assert {PARIS, PORTO} <= _texts(capsys.readouterr().out)  # history: both
    assert main([*base, "--current-only"]) == 0
    assert _texts(capsys.readouterr().out) == {PORTO}
    assert main([*base, "--as-of", "2023-05-20"]) == 0
    assert _texts(capsys.readouterr().out) == {PARIS}
    assert main([*base, "--as-of", "2023-06-06", "--current-only"]) == 0  # the day of the move, to its end
    assert _texts(capsys.readouterr().out) == {PORTO}
    with pytest.raises(SystemExit) as exit_:
        main([*base, "--as-of", "someday"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err and "someday" in err
