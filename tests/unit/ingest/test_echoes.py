"""Unit layer (cbmemory.ingest.echoes; issue 29 item 1): a turn is an echo only when it adds no content word the
lines its step showed lack. Scored on the hand-labelled set ``tests/data/echoes.jsonl`` (questions that only
restate, questions carrying a new fact, corrections, the agent's restatements, commitments and new facts):
nothing that carries something new is labelled an echo; ``experiments/agent_loop/echo_labels.py`` prints the
precision and recall."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from cbmemory import ContextConfig, MemoryRecord, Message
from cbmemory.ingest.echoes import can_echo, restated

DATA = Path(__file__).resolve().parents[2] / "data" / "echoes.jsonl"
SAID = datetime(2023, 5, 5, 18, 0, tzinfo=timezone.utc)
ITEMS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def shown(texts: list[str]) -> list[MemoryRecord]:
    return [MemoryRecord(f"r{i}", "u", "s", "turn", i, "user", t, t, SAID, SAID, "h", turn_id=f"r{i}", speaker="user")
            for i, t in enumerate(texts)]


def echo(role: str, text: str, texts: list[str]) -> bool:
    return can_echo(Message(role, text)) and bool(restated(text, shown(texts), ContextConfig(), role=role))


def test_nothing_that_carries_a_new_name_place_number_date_or_correction_is_an_echo():
    wrong = [i["text"] for i in ITEMS if not i["echo"] and echo(i["role"], i["text"], i["shown"])]
    assert wrong == ["Did I mention my sister moved?"]  # a new fact in words only: the rule's known miss


def test_most_questions_and_restatements_that_add_nothing_are_echoes():
    plain = [i for i in ITEMS if i["echo"] and i["kind"] in ("question_restates", "agent_restates")]
    assert sum(echo(i["role"], i["text"], i["shown"]) for i in plain) >= 0.8 * len(plain)


def test_the_issues_examples():
    sister = ["My sister lives in Paris."]
    assert not echo("user", "Did I mention my sister moved from Paris to Lyon?", sister)
    assert not echo("user", "No — she lives in Lyon, not Paris?", sister)
    assert not echo("user", "She doesn't live in Paris?", sister)  # a correction is new content
    assert echo("user", "Where does my sister live?", sister)
    assert not echo("user", "Did I tell you my sister quit her job?", sister)  # mostly words the lines lack
    assert not echo("user", "Does my sister live in Paris since Friday?", sister)  # a date: its label is not it
    assert echo("assistant", "You told me your sister lives in Paris.", sister)
    assert not echo("assistant", "Your sister lives in Paris; I'll call her on 3 June.", sister)
