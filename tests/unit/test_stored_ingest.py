"""Unit layer (stored_ingest): the ingest settings of stored records are told from the records: rebuilding a
session under a candidate's settings reproduces their content hashes only for the settings they were made
with (dates, previous turn, date rules), and a round is told by its unit and date prefix."""

from datetime import datetime, timezone

import pytest

from cbmemory.ingest import IngestConfig, build_records, validate_messages
from cbmemory.recipes import all_recipes
from cbmemory.stored_ingest import rebuilds

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

WHEN = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
MESSAGES = validate_messages([
    {"role": "user", "content": "I went to the support group yesterday.", "speaker": "Caroline", "turn_id": "D1:1"},
    {"role": "assistant", "content": "How was it?", "speaker": "Melanie", "turn_id": "D1:2",
     "annotations": {"image_caption": "a photo of a group"}},
    {"role": "user", "content": "Powerful. Next week I go again.", "speaker": "Caroline", "turn_id": "D1:3"},
])
SETTINGS = {
    "default": RECIPES["default"].ingest,  # dates on, previous turn on
    "vector": RECIPES["vector"].ingest,  # dates on, previous turn off
    "no dates": RECIPES["vector_no_dates"].ingest,
    "date rules": IngestConfig(date_rules="rules-v1"),
}


def records(cfg, messages=MESSAGES, start=0):
    return build_records("u", "s1", messages, WHEN, WHEN, config=cfg, start_position=start)


@pytest.mark.parametrize("made_with", SETTINGS)
def test_only_the_settings_the_records_were_made_with_rebuild_them(made_with):
    stored = records(SETTINGS[made_with])
    assert {name for name, cfg in SETTINGS.items() if rebuilds(stored, cfg)} == {made_with}


def test_enrichment_does_not_change_the_raw_records_it_is_told_apart_by_kinds():
    assert rebuilds(records(RECIPES["vector"].ingest), RECIPES["summary"].ingest)


def test_a_later_first_record_is_compared_without_the_turn_before_it():
    stored = records(SETTINGS["default"])[1:]  # the first stored turn replies to one no longer there
    assert rebuilds(stored, SETTINGS["default"]) and not rebuilds(stored, SETTINGS["no dates"])


def test_rounds_are_told_by_unit_and_date_prefix():
    rounds = records(IngestConfig(unit="round"))
    assert rebuilds(rounds, IngestConfig(unit="round")) and not rebuilds(rounds, IngestConfig())
    assert not rebuilds(rounds, IngestConfig(unit="round", anchor_dates=False))
    assert not rebuilds([], IngestConfig())
