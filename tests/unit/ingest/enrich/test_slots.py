"""Unit layer: slot keys of the user's facts from the extraction (``cbmemory.ingest.slots``): parsing replies
with and without keys, badly written keys dropped (never fatal), cached entries from before keys, which facts
give a line a key (the speaker's own, one value per key), and the reserved annotations that hold them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from cbmemory.errors import InvalidInputError
from cbmemory.ingest.enrich.cache import MemoryCache, _decode, _encode
from cbmemory.ingest.enrich.extraction import EVENTS_SYSTEM
from cbmemory.ingest.enrich.parsing import ExtractedEvent, parse_reply, validate_events
from cbmemory.ingest.enrich.records import about_speaker, augment_with_facts, slots_by_line
from cbmemory.ingest.slots import (
    KEYS,
    MARK,
    MAX_SLOTS,
    VALUE,
    clean_key,
    clean_value,
    grounded,
    marker,
    same_value,
    slots_of,
    with_slots,
)
from cbmemory.models import MemoryRecord, frozen_mapping
from cbmemory.validation import MAX_ANNOTATION_BYTES, MAX_ANNOTATION_KEYS, check_annotations

LABELS = ("T1", "T2")
D = datetime(2023, 5, 7, tzinfo=timezone.utc)


def events(reply: str) -> list[ExtractedEvent]:
    return validate_events(parse_reply(reply).value, LABELS)[0]


def record(rid="r1", speaker="Ana", role="user", annotations=None, text="text") -> MemoryRecord:
    return MemoryRecord(rid, "u", "s1", "turn", 0, role, text, f"[d] Ana: {text}", D, D, "h", speaker=speaker,
                        annotations=frozen_mapping(annotations or {}))


def test_the_prompt_asks_for_a_key_and_a_value():
    assert '"key": ' in EVENTS_SYSTEM and '"value": ' in EVENTS_SYSTEM and "home_city" in EVENTS_SYSTEM


def test_the_prompt_names_every_common_key_and_each_is_stored_as_written():
    # a key the prompt asks for must survive cleaning, or every fact given it would silently lose its link
    assert len(set(KEYS)) == len(KEYS) == 23
    for key in KEYS:
        assert f" {key}," in EVENTS_SYSTEM or f" {key} when" in EVENTS_SYSTEM
        assert clean_key(key) == key


def test_a_reply_with_keys_and_one_without_both_parse():
    with_keys = events(json.dumps({"events": [
        {"who": "Ana", "what": "Ana lives in Porto", "key": "home_city", "value": "Porto", "turns": ["T1"]}]}))
    assert with_keys == [ExtractedEvent("Ana", "Ana lives in Porto", turns=("T1",), key="home_city", value="Porto")]
    without = events(json.dumps({"events": [{"who": "Ana", "what": "Ana lives in Porto", "turns": ["T1"]}]}))
    assert without == [ExtractedEvent("Ana", "Ana lives in Porto", turns=("T1",))]
    # the lenient reader's repairs apply to the new fields too
    repaired = events("{events: [{who: 'Ana', what: 'Ana works at Acme', key: 'Employer', value: 'Acme',}]}")
    assert (repaired[0].key, repaired[0].value) == ("employer", "Acme")


@pytest.mark.parametrize(("key", "value", "expected"), [
    ("home_city", "Porto", ("home_city", "Porto")),
    ("Home City", "Porto", ("home_city", "Porto")),  # spaces and case read as snake_case
    ("home-city", " Porto ", ("home_city", "Porto")),
    ("slot", 12345, ("slot", "12345")),  # a number as the value (a phone)
    ("Ana lives in Porto.", "Porto", (None, None)),  # a sentence, not a name
    ("home.city", "Porto", (None, None)),
    ("_home", "Porto", (None, None)),
    ("9lives", "Porto", (None, None)),
    ("x" * 41, "Porto", (None, None)),  # too long
    (["home_city"], "Porto", (None, None)),  # not a string
    ({"k": 1}, "Porto", (None, None)),
    (True, "Porto", (None, None)),
    ("home_city", None, (None, None)),  # a key without a value is no key
    ("home_city", "null", (None, None)),
    ("home_city", "", (None, None)),
    ("home_city", True, (None, None)),
    ("home_city", "P" * 201, (None, None)),
    (None, "Porto", (None, None)),  # a value without a key is nothing
])
def test_bad_keys_are_dropped_and_the_fact_is_kept(key, value, expected):
    [e] = events(json.dumps({"events": [{"who": "Ana", "what": "a fact", "key": key, "value": value}]}))
    assert e.what == "a fact" and (e.key, e.value) == expected


def test_clean_key_and_value_take_anything_without_raising():
    for junk in (None, 3, 2.5, b"x", object(), [], "", " ", "\x00", "é_ville", "a__b", "a_"):
        assert clean_key(junk) is None
    assert clean_value(object()) is None and clean_value([1]) is None and clean_value(2.5) == "2.5"


def test_cached_entries_from_before_keys_read_without_them():
    old = [{"who": "Ana", "what": "ran", "when": None, "date": None, "where": None, "turns": ["T1"]}]
    assert _decode("events", old) == [ExtractedEvent("Ana", "ran", turns=("T1",))]
    edited = [dict(old[0], key="not a key!", value="x"), dict(old[0], key="pet", value=None)]
    assert [(e.key, e.value) for e in _decode("events", edited)] == [(None, None), (None, None)]
    new = [ExtractedEvent("Ana", "moved", turns=("T1",), key="home_city", value="Porto"),
           ExtractedEvent("Bo", "ran", turns=("T2",))]
    assert _decode("events", json.loads(json.dumps(_encode(new)))) == new
    assert "key" not in _encode(new)[1]  # an entry without a key is written as before
    mem = MemoryCache()
    mem.put("u", "s1", "v", "k", "events", new, "raw")
    assert mem.get("u", "v", "k") == new


@pytest.mark.parametrize(("who", "speaker", "role", "mine"), [
    ("Ana", "Ana", "user", True), ("ana", "Ana Lima", "user", True), ("Ana Lima", "Ana Lima", "user", True),
    ("I", None, "user", True), ("User", None, "user", True), ("the user", "Ana", "user", True),
    ("Ana's cousin", "Ana", "user", False), ("cousin", "Ana", "user", False), ("Bo", "Ana", "user", False),
    ("", "Ana", "user", False), ("Lima", "Ana Lima", "user", False),
])
def test_a_fact_is_the_speakers_own_only_by_name_role_or_self(who, speaker, role, mine):
    assert about_speaker(who, record(speaker=speaker, role=role)) is mine


def test_slots_by_line_keeps_the_users_own_keyed_facts_one_value_a_key():
    said = "Settled in Porto at last, and Acme Ltd took me on; the dog and the cat get along"
    lines = {"T1": record("r1", text=said),
             "T2": record("r2", speaker="Bot", role="assistant", text="I live in the cloud")}
    linked = [
        (ExtractedEvent("Ana", "Ana lives in Porto", key="home_city", value="Porto"), ("T1",)),
        (ExtractedEvent("Ana", "Ana works at Acme", key="employer", value="Acme"), ("T1",)),
        (ExtractedEvent("Ana", "Ana works at Acme Ltd", key="employer", value="Acme Ltd"), ("T1",)),  # the same
        (ExtractedEvent("Ana's cousin", "moved to Glasgow", key="cousin_city", value="Glasgow"), ("T1",)),
        (ExtractedEvent("Ana", "Ana has a dog", key="pet", value="dog"), ("T1",)),
        (ExtractedEvent("Ana", "Ana had a cat", key="pet", value="cat"), ("T1",)),  # two values: which holds?
        (ExtractedEvent("Bot", "Bot lives in the cloud", key="home_city", value="cloud"), ("T2",)),  # not a user
        (ExtractedEvent("Ana", "Ana ran"), ("T1",)),
    ]
    assert slots_by_line(linked, lines) == {"r1": {"home_city": "Porto", "employer": "Acme"}}


@pytest.mark.parametrize(("value", "text", "found"), [
    ("Porto", "Just signed the lease in Porto!", True),
    ("Porto", "My pottery class moved to Mondays", False),  # the prompt's example value, copied
    ("pottery class", "My pottery course moved to Mondays", True),  # one word is enough
    ("7:00 AM", "I'm up at 7am these days", True),  # a word with a digit, inside another
    ("0745 330 8172", "new number: 0745-330-8172", True),
    ("yes", "I went vegetarian last month", False),  # a flag, not a value of the line
    ("New York", "we moved to the Big Apple", False),  # reworded: not linked, as without the enricher
    ("UK", "we moved back to the U.K.", False),  # short words only: found as words, or not at all
    ("UK", "we moved back to the UK in May", True),
    ("Jo", "my partner Jo and I split up", True),
    ("Jo", "I'm enjoying the quiet", False),
    ("", "anything", False),
])
def test_a_value_is_grounded_when_a_word_of_it_is_in_its_line(value, text, found):
    assert grounded(value, text) is found


def test_a_key_whose_value_is_not_in_its_line_gives_the_line_no_slot():
    """A small model copied the prompt's example ("home_city: Porto") onto a line about a pottery class; kept, the
    key would link that line to the user's real home as its change."""
    lines = {"T1": record("r1", text="My pottery class moved to Mondays, so I'm free on Tuesdays now")}
    linked = [(ExtractedEvent("Ana", "Ana's pottery class moved", key="home_city", value="Porto"), ("T1",)),
              (ExtractedEvent("Ana", "Ana's pottery class moved", key="weekly_class", value="pottery class"), ("T1",))]
    assert slots_by_line(linked, lines) == {"r1": {"weekly_class": "pottery class"}}


def test_the_annotations_hold_exactly_the_slots_given_within_the_limits():
    rec = record(annotations={"topic": "home", MARK + "old": "1", VALUE + "old": "x"})
    out = with_slots(rec.annotations, {"home_city": "Porto"})
    assert out == {"topic": "home", MARK + "home_city": "1", VALUE + "home_city": "Porto"}
    assert slots_of(record(annotations=out)) == {"home_city": "Porto"}
    assert with_slots(rec.annotations, {}) == {"topic": "home"}  # earlier keys cleared, not stacked
    many = {f"k{i}": "v" for i in range(10)}
    assert len(slots_of(record(annotations=with_slots({}, many)))) == MAX_SLOTS
    full = {f"k{i}": "v" for i in range(MAX_ANNOTATION_KEYS - 1)}  # room for one key, a slot takes two
    assert with_slots(full, {"home_city": "Porto"}) == full  # no room: no keys, and no error
    big = {f"k{i:02}": "y" * 4_090 for i in range(MAX_ANNOTATION_BYTES // 4_095)}  # 65,488 bytes of 65,536
    assert with_slots(big, {"home_city": "P" * 200}) == big  # past the bytes of one mapping
    assert slots_of(record(annotations={MARK + "a": "1"})) == {}  # a marker without its value is none
    assert marker("home_city") == {"cbmemory.slot.home_city": "1"}


def test_augment_sets_the_slots_and_leaves_annotations_alone_without_them():
    rec = record(annotations={"topic": "home"})
    keyed = augment_with_facts(rec, ["Ana lives in Porto."], {"home_city": "Porto"})
    assert slots_of(keyed) == {"home_city": "Porto"} and keyed.annotations["topic"] == "home"
    assert augment_with_facts(keyed, ["Ana lives in Porto."], {"home_city": "Porto"}) is keyed  # unchanged
    assert slots_of(augment_with_facts(keyed, ["Ana lives in Porto."], {})) == {}
    assert augment_with_facts(keyed, ["Ana lives in Porto."]) is keyed  # None: annotations untouched


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Paris", "paris", True), ("Paris", "Paris, France", True), ("Porto", "Paris", False),
    ("555-0101", "555 0101", True), ("555-0101", "555-0199", False), ("Acme Ltd.", "acme ltd", True),
])
def test_same_value_ignores_case_punctuation_and_added_words(a, b, same):
    assert same_value(a, b) is same and same_value(b, a) is same


@pytest.mark.parametrize("key", ["cbmemory.slot.home_city", "cbmemory.slot_value.home_city", "cbmemory.slot"])
def test_users_annotations_may_not_use_the_reserved_keys(key):
    with pytest.raises(InvalidInputError, match="reserves"):
        check_annotations({key: "1"})
    assert check_annotations({"cbmemory.passage": "x", "slot.home_city": "1"})  # only the slot prefix
