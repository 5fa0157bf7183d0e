"""Unit layer: building records from messages (anchoring, units, ids, hashes), without storage."""

from datetime import datetime, timezone

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest import IngestConfig, build_records, validate_messages
from cbmemory.text import content_hash

D = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)
MSGS = validate_messages([
    {"role": "user", "content": "I went to the LGBTQ support group yesterday.", "speaker": "Caroline",
     "turn_id": "D1:3"},
    {"role": "assistant", "content": "How was it?", "speaker": "Melanie", "turn_id": "D1:4",
     "annotations": {"image_caption": "a photo of a rainbow flag"}},
])


def test_anchoring_prefixes_the_session_date_and_keeps_raw_text():
    r = build_records("u", "s", MSGS, D, NOW)
    assert r[0].index_text == "[Sunday, 7 May 2023] Caroline: I went to the LGBTQ support group yesterday."
    assert r[0].text == "I went to the LGBTQ support group yesterday."
    assert r[0].content_hash == content_hash(r[0].index_text)
    assert r[1].index_text.endswith("Melanie: How was it? [image caption: a photo of a rainbow flag]")
    assert (r[0].occurred_at, r[0].ingested_at, r[0].turn_id, r[0].position) == (D, NOW, "D1:3", 0)


def test_anchoring_can_be_switched_off():
    r = build_records("u", "s", MSGS, D, NOW, config=IngestConfig(anchor_dates=False))
    assert r[0].index_text == "Caroline: I went to the LGBTQ support group yesterday."


def test_previous_turn_goes_into_the_index_text_only():
    r = build_records("u", "s", MSGS, D, NOW, config=IngestConfig(with_previous_turn=True))
    assert r[1].index_text.startswith("[Sunday, 7 May 2023] (Caroline: I went to the LGBTQ")
    assert r[1].text == "How was it?"
    assert r[0].index_text.startswith("[Sunday, 7 May 2023] Caroline:")


def test_round_unit_groups_a_user_turn_with_its_replies():
    r = build_records("u", "s", MSGS, D, NOW, config=IngestConfig(unit="round"))
    assert len(r) == 1 and r[0].kind == "round"
    assert r[0].source_ids == ("D1:3", "D1:4")
    assert r[0].text == "I went to the LGBTQ support group yesterday.\nHow was it?"
    assert r[0].index_text.count("[Sunday, 7 May 2023]") == 1


def test_record_ids_are_stable_and_scoped_by_user_and_session():
    a = build_records("u", "s", MSGS, D, NOW)
    b = build_records("u", "s", MSGS, D, datetime(2030, 1, 1, tzinfo=timezone.utc))
    assert [x.record_id for x in a] == [x.record_id for x in b]
    assert a[0].record_id != build_records("v", "s", MSGS, D, NOW)[0].record_id
    assert a[0].record_id != build_records("u", "t", MSGS, D, NOW)[0].record_id


def test_appended_turns_without_ids_are_keyed_by_position_and_content():
    m1 = validate_messages([{"role": "user", "content": "hello"}])
    m2 = validate_messages([{"role": "user", "content": "goodbye"}])
    a = build_records("u", "s", m1, D, NOW, start_position=5, append=True)
    assert a[0].record_id == build_records("u", "s", m1, D, NOW, start_position=5, append=True)[0].record_id
    assert a[0].record_id != build_records("u", "s", m2, D, NOW, start_position=5, append=True)[0].record_id


@pytest.mark.parametrize("messages, fragment", [
    ([], "empty"),
    ("hello", "list"),
    ([{"role": "user"}], "'role' and 'content'"),
    ([{"role": "robot", "content": "x"}], "unknown role"),
    ([{"role": "user", "content": "   "}], "whitespace"),
    ([{"role": "user", "content": "x", "colour": "red"}], "unknown fields"),
    ([{"role": "user", "content": "x", "turn_id": "a"}, {"role": "user", "content": "y", "turn_id": "a"}],
     "twice"),
    ([{"role": "user", "content": "x", "annotations": {"k": 3}}], "must be a string"),
    ([42], "not a Message"),
])
def test_bad_messages_are_refused_with_a_clear_error(messages, fragment):
    with pytest.raises(InvalidInputError, match=fragment):
        validate_messages(messages)
