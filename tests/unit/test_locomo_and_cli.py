"""Unit layer: the LoCoMo loader on the real dev file, and the CLI end to end on a real SQLite file."""

import json
from pathlib import Path

import pytest

from cbmemory.cli import main
from cbmemory.datasets.locomo import load_locomo, normalise_evidence, parse_conversation

DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"
needs_dev = pytest.mark.skipif(not DEV.exists(), reason=f"LoCoMo dev file not found at {DEV}")


def test_evidence_repairs():
    assert normalise_evidence(["D8:6; D9:17", "D", "D:11:26", "D30:05", "D1:3 D1:4", "D1:3"]) == [
        "D8:6", "D9:17", "D11:26", "D30:5", "D1:3", "D1:4"]


def test_quirks_on_a_synthetic_conversation():
    obj = {"sample_id": "c", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "hi", "blip_caption": "a cat"},
                      {"speaker": "Bo", "dia_id": "D1:2", "text": "hello"}],
        "session_1_date_time": "1:56 pm on 8 May, 2023", "session_2_date_time": "2:00 pm on 9 May, 2023"},
        "qa": [{"question": "q1", "answer": 2022, "evidence": ["D1:1", "D4:36"], "category": 2},
               {"question": "q2", "adversarial_answer": "yes", "evidence": [], "category": 5}]}
    c = parse_conversation(obj)
    assert [s.session_id for s in c.sessions] == ["session_1"]  # a date key without a session is ignored
    assert c.sessions[0].messages[0].annotations["image_caption"] == "a cat"
    q1, q2 = c.questions
    assert q1.answer == "2022" and q1.evidence == ("D1:1",) and q1.unknown_evidence == ("D4:36",)
    assert q2.answer is None and q2.adversarial_answer == "yes" and q2.category_name == "adversarial"


@needs_dev
def test_dev_file_loads_with_expected_counts():
    convs = load_locomo(DEV)
    assert len(convs) == 8 and sum(len(c.questions) for c in convs) == 1586
    assert sum(len(s.messages) for c in convs for s in c.sessions) == 4805
    assert all(set(q.evidence) <= c.turn_ids for c in convs for q in c.questions)


@needs_dev
def test_cli_ingest_search_stats_forget(tmp_path, capsys):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(json.loads(DEV.read_text())[:1]))
    db = str(tmp_path / "x.db")
    assert main(["ingest", "locomo", str(one), "--db", db, "--quiet"]) == 0
    ingest = json.loads(capsys.readouterr().out)
    assert ingest["conversations"] == 1 and ingest["turns"] > 300
    assert main(["search", "When did Caroline go to the LGBTQ support group?", "--db", db, "--user", "conv-26",
                 "--k", "10", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 10 and {"turn_id", "session_id", "score", "text"} <= set(hits[0])
    assert "D1:3" in [h["turn_id"] for h in hits]
    assert main(["stats", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["records"] == ingest["turns"]
    assert main(["search", "anything", "--db", db, "--user", "conv-99", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["forget", "--db", db, "--user", "conv-26"]) == 0
    assert json.loads(capsys.readouterr().out)["forgotten_records"] == ingest["turns"]
    assert main(["recipes"]) == 0 and "vector_bm25_rerank_50" in capsys.readouterr().out


def test_cli_reports_typed_errors(tmp_path, capsys):
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite" * 50)
    assert main(["stats", "--db", str(junk)]) == 2
    assert "not a cbmemory store" in capsys.readouterr().err
