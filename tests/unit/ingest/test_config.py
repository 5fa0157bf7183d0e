"""Unit layer: ingest settings are plain data. ``IngestConfig`` and ``EnrichConfig`` round-trip through JSON
(every recipe's own, and an enriched one); relative-date rules are named by a version looked up in a
registry, with a typed error for an unknown one; the ``key`` carries the version."""

import json
from datetime import datetime, timezone

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import (
    DATE_RULES,
    DEFAULT_INGEST,
    EnrichConfig,
    IngestConfig,
    UnknownDateRulesError,
    build_records,
    date_resolver,
    resolve_relative_dates,
    validate_messages,
)
from cbmemory.recipes import all_recipes

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

ENRICHED = IngestConfig(unit="round", index_annotation_keys=("image_caption", "place"), with_previous_turn=True,
                        date_rules="rules-v1", enrich=EnrichConfig(modes=("summary", "facts"), summary_unit="round",
                                                                   turns_per_call=3, context_turns=0))


def _round_trip(cfg: IngestConfig) -> IngestConfig:
    return IngestConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))


@pytest.mark.parametrize("cfg", [DEFAULT_INGEST, ENRICHED, IngestConfig(anchor_dates=False, index_annotation_keys=())])
def test_ingest_config_round_trips_through_json(cfg):
    back = _round_trip(cfg)
    assert back == cfg and back.key == cfg.key and hash(back) == hash(cfg)


def test_every_recipe_ingest_round_trips_through_json():
    for name, recipe in RECIPES.items():
        assert _round_trip(recipe.ingest) == recipe.ingest, name


def test_from_dict_takes_defaults_and_refuses_unknown_or_bad_fields():
    assert IngestConfig.from_dict({}) == DEFAULT_INGEST
    assert IngestConfig.from_dict({"enrich": {"modes": ["events"]}}).enrich == EnrichConfig()
    with pytest.raises(InvalidInputError, match="unknown IngestConfig fields"):
        IngestConfig.from_dict({"date_resolver": "rules-v1"})
    with pytest.raises(InvalidInputError, match="unknown EnrichConfig fields"):
        IngestConfig.from_dict({"enrich": {"modes": ["events"], "model": "gpt"}})
    with pytest.raises(InvalidInputError):
        IngestConfig.from_dict({"index_annotation_keys": "image_caption"})  # a string is not a list of names
    with pytest.raises(InvalidInputError):
        IngestConfig.from_dict({"anchor_dates": "yes"})


def test_date_rules_are_a_version_name_in_the_registry():
    assert DATE_RULES["rules-v1"] is date_resolver("rules-v1")
    assert DATE_RULES["rules-v1"]("I moved yesterday.", datetime(2023, 5, 7, tzinfo=timezone.utc)) == \
        resolve_relative_dates("I moved yesterday.", datetime(2023, 5, 7, tzinfo=timezone.utc), rules="rules-v1")
    assert IngestConfig(date_rules="rules-v1").key.endswith(",dates=rules-v1")
    assert DEFAULT_INGEST.key.endswith(",dates=none")
    with pytest.raises(UnknownDateRulesError, match="rules-v0"):
        IngestConfig(date_rules="rules-v0")
    with pytest.raises(UnknownDateRulesError):
        IngestConfig(date_rules=resolve_relative_dates)  # a callable is not a version
    assert issubclass(UnknownDateRulesError, InvalidInputError)


def test_the_named_rules_rewrite_the_index_text_only():
    when = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
    msgs = validate_messages([{"role": "user", "content": "I moved yesterday.", "speaker": "Ann"}])
    [r] = build_records("u", "s", msgs, when, when, config=IngestConfig(date_rules="rules-v1"))
    assert r.text == "I moved yesterday."
    assert r.index_text == "[Sunday, 7 May 2023] Ann: I moved yesterday [= 6 May 2023]."


def test_configs_are_frozen():
    with pytest.raises(AttributeError):
        DEFAULT_INGEST.date_rules = "rules-v1"  # type: ignore[misc]
