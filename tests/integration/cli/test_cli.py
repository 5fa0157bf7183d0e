"""Integration layer (cli): the CLI end to end on a real SQLite file with the offline embedder (ingest LoCoMo,
search, stats, forget), and its one-line typed error for a file that is not a store."""

import json
from pathlib import Path

import pytest

from cbmemory.cli import main

DEV = Path(__file__).resolve().parents[4] / "shared" / "data" / "locomo" / "locomo-dev.json"
needs_dev = pytest.mark.skipif(not DEV.exists(), reason=f"LoCoMo dev file not found at {DEV}")


@pytest.mark.heavy
@needs_dev
def test_cli_ingest_search_stats_forget(tmp_path, capsys):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(DEV.read_text())[:1]))
    db = str(tmp_path / "x.db")
    assert main(["ingest-dataset", "locomo", str(one), "--db", db, "--quiet"]) == 0
    ingest = json.loads(capsys.readouterr().out)
    assert ingest["conversations"] == 1 and ingest["turns"] > 300
    assert main(["search", "When did Caroline go to the LGBTQ support group?", "--db", db, "--user", "conv-26",
                 "--k", "10", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 10 and {"turn_id", "session_id", "score", "text"} <= set(hits[0])
    assert "D1:3" in [h["turn_id"] for h in hits]
    # the default shows each hit between its neighbours: in the JSON as its context, in text indented around it
    top = hits[0]
    session, n = top["turn_id"].split(":")
    assert top["context"] and all(c["turn_id"].split(":")[0] == session and abs(int(c["turn_id"].split(":")[1])
                                  - int(n)) == 1 for c in top["context"])
    assert main(["search", "When did Caroline go to the LGBTQ support group?", "--db", db, "--user", "conv-26",
                 "--k", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(top["context"]) and sum(not ln.startswith(" " * 6 + "··") for ln in lines) == 1
    assert main(["stats", "--db", db]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["records"] == ingest["turns"]
    assert stats["by_user"] == [{"user": "conv-26", "records": ingest["turns"], "sessions": 19}]
    assert main(["search", "anything", "--db", db, "--user", "conv-99", "--json"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "holds no user 'conv-99'" in printed.err and "cbmemory stats --db" in printed.err
    assert main(["forget", "--db", db, "--user", "conv-26"]) == 0
    assert json.loads(capsys.readouterr().out)["forgotten_records"] == ingest["turns"]
    assert main(["recipes"]) == 0 and "vector_bm25_rerank_50" in capsys.readouterr().out


def test_cli_reports_typed_errors(tmp_path, capsys):
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite" * 50)
    assert main(["stats", "--db", str(junk)]) == 2
    assert "not a cbmemory store" in capsys.readouterr().err
