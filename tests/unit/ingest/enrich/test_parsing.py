"""Unit layer: the tolerant reader of model replies (strict JSON, the repairs small local models need,
validation into frozen data) on hand-written replies."""

import json

import pytest

from cbmemory.ingest.enrich.parsing import (
    ExtractedEvent,
    MalformedReplyError,
    parse_reply,
    validate_events,
    validate_round_summaries,
    validate_summary,
)

LABELS = ("T1", "T2", "T3")
GOOD = {"events": [{"who": "Caroline", "what": "Caroline went to a support group", "when": "yesterday",
                    "date": "2023-05-06", "where": None, "turns": ["T1"]}]}


def test_strict_json_is_taken_as_is():
    p = parse_reply(json.dumps(GOOD))
    assert p.value == GOOD and not p.repaired
    events, dropped = validate_events(p.value, LABELS)
    assert events == [ExtractedEvent("Caroline", "Caroline went to a support group", "yesterday", "2023-05-06",
                                     None, ("T1",))] and dropped == 0


@pytest.mark.parametrize(("reply", "expected"), [
    # prose and a Markdown fence around it, trailing comma
    ('Sure! Here it is:\n```json\n{"events": [{"who": "Mel", "what": "ran", "turns": ["T2"],}]}\n```',
     [("Mel", "ran", ("T2",))]),
    # single quotes, Python literals, an apostrophe inside a word
    ("{'events': [{'who': 'Caroline', 'what': \"Caroline's group met\", 'when': None, 'turns': ['T1']}]}",
     [("Caroline", "Caroline's group met", ("T1",))]),
    ("{'events': [{'who': 'Caroline', 'what': 'Caroline's group met', 'turns': ['T1']}]}",
     [("Caroline", "Caroline's group met", ("T1",))]),
    # unquoted keys, missing commas
    ('{events: [{who: "Mel" what: "painted a lake" turns: ["T1" "T3"]}]}', [("Mel", "painted a lake", ("T1", "T3"))]),
    # comments
    ('// events\n{"events": [ /* one */ {"what": "ran", "turns": "T1, T3"} ]}', [("", "ran", ("T1", "T3"))]),
    # cut off mid-way (max_tokens): what was complete is kept
    ('{"events": [{"who": "Mel", "what": "painted a lake", "turns": ["T1"]}, {"who": "Car', [("Mel", "painted a lake", ("T1",))]),
    # a bare list, numeric turn references, an unknown label dropped
    ('[{"what": "x", "turns": [1, 2, "T9"]}]', [("", "x", ("T1", "T2"))]),
    # a single event object instead of a list; smart quotes
    ('{“who”: “Mel”, “what”: “ran a 5k”}', [("Mel", "ran a 5k", ())]),
])
def test_repairs(reply, expected):
    p = parse_reply(reply)
    assert p.repaired or reply.lstrip().startswith("[")
    events, _ = validate_events(p.value, LABELS)
    assert [(e.who, e.what, e.turns) for e in events] == expected


def test_items_without_what_are_dropped_and_counted():
    events, dropped = validate_events({"events": [{"who": "Mel"}, 3, {"what": " "}, {"what": "ok"}]}, LABELS)
    assert [e.what for e in events] == ["ok"] and dropped == 3


@pytest.mark.parametrize("reply", ["", "   ", "I could not find any events.", "{{{", '{"events": 3}',
                                   '{"summary": "wrong task"}'])
def test_unreadable_or_wrong_shape_raises_a_typed_error(reply):
    with pytest.raises(MalformedReplyError):
        validate_events(parse_reply(reply).value, LABELS)


def test_a_null_like_field_is_none():
    events, _ = validate_events({"events": [{"what": "ran", "when": "null", "where": "N/A", "date": ""}]}, LABELS)
    assert (events[0].when, events[0].where, events[0].date) == (None, None, None)


def test_summary_accepts_json_or_plain_prose():
    assert validate_summary(parse_reply('{"summary": "Caroline went to a group."}'), "") == (
        "Caroline went to a group.", False)
    assert validate_summary(None, "Caroline went to a group.") == ("Caroline went to a group.", True)
    with pytest.raises(MalformedReplyError):
        validate_summary(None, '{"summ')


def test_round_summaries_by_label():
    rounds, dropped = validate_round_summaries(
        {"summaries": [{"round": "R1", "summary": "a"}, {"round": "2", "summary": "b"}, {"round": "R9", "summary": "c"}]},
        ("R1", "R2"))
    assert rounds == {"R1": "a", "R2": "b"} and dropped == 1
    assert validate_round_summaries({"R1": "a"}, ("R1",))[0] == {"R1": "a"}


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(MalformedReplyError):
        parse_reply('{"events": ' + "[" * 5000)
    with pytest.raises(MalformedReplyError):
        parse_reply("[" * 5000 + "]" * 5000)  # valid JSON, too deep for the strict reader too
