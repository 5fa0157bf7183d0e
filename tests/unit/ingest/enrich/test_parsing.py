"""Unit layer: the tolerant reader of model replies (strict JSON, the repairs small local models need,
validation into frozen data) on hand-written replies."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# The failure shapes JSON-repair libraries list (json_repair, jsonrepair: "what it fixes"), each read by our
# lenient reader. Where those libraries guess differently (several objects one per line, prose with braces
# before the JSON, unquoted keys with missing commas), the expected value here is the one a reader of the
# reply would take.
SHAPES = [
    ("missing quotes around keys", '{who: "Mel", what: "ran"}', {"who": "Mel", "what": "ran"}),
    ("quotes left unescaped in a string", '{"what": "Mel said "hi" to Caroline", "turns": ["T1"]}',
     {"what": 'Mel said "hi" to Caroline', "turns": ["T1"]}),
    ("... at the end of a string", '{"what": "Mel read "Becoming"", "who": "Mel"}',
     {"what": 'Mel read "Becoming"', "who": "Mel"}),
    ("... in an array item", '["she said "no" twice", "x"]', ['she said "no" twice', "x"]),
    ("a raw newline in a string", '{"summary": "one\ntwo"}', {"summary": "one\ntwo"}),
    ("an unknown escape", '{"what": "C:\\path"}', {"what": "C:\\path"}),
    ("missing commas", '{"who": "Mel" "what": "ran"\n"when": "yesterday"}',
     {"who": "Mel", "what": "ran", "when": "yesterday"}),
    ("missing commas in an array", '{"turns": ["T1" "T3"]}', {"turns": ["T1", "T3"]}),
    ("missing closing brackets", '{"events": [{"what": "ran"', {"events": [{"what": "ran"}]}),
    ("cut off inside a string", '{"events": [{"what": "ran a 5', {"events": [{"what": "ran a 5"}]}),
    ("a key with no value", '{"what": "ran", "when": }', {"what": "ran", "when": None}),
    ("single quotes", "{'what': 'ran'}", {"what": "ran"}),
    ("curly quotes", "{“what”: “ran”}", {"what": "ran"}),
    ("special white space", '{\u00a0"what":\u200b"ran"\u202f}', {"what": "ran"}),
    ("Python constants", '{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
    ("JavaScript's undefined", '{"when": undefined}', {"when": None}),
    ("trailing commas", '{"turns": ["T1", "T2",],}', {"turns": ["T1", "T2"]}),
    ("comments", '{"what": "ran" // the event\n /* done */ }', {"what": "ran"}),
    ("a fenced code block", 'Here:\n```json\n{"what": "ran",}\n```\nDone.', {"what": "ran"}),
    ("an ellipsis in an array", '{"events": [{"what": "ran"}, ...]}', {"events": [{"what": "ran"}]}),
    ("an ellipsis in an object", '{"what": "ran", …}', {"what": "ran"}),
    ("JSONP", 'callback({"what": "ran"});', {"what": "ran"}),
    ("an escaped document", '{\\"what\\": \\"ran\\"}', {"what": "ran"}),
    ("concatenated strings", '{"what": "a long" + " story"}', {"what": "a long story"}),
    ("newline-delimited objects", '{"what": "ran"}\n{"what": "swam"}', [{"what": "ran"}, {"what": "swam"}]),
    ("numbers without a leading digit", '{"n": .5, "m": -2, "e": 1e3,}', {"n": 0.5, "m": -2, "e": 1000.0}),
    ("prose with braces before the JSON", 'The events {as asked}: {"what": "ran"}', {"what": "ran"}),
    ("a reasoning block before the JSON", '<think>I need {events}</think>\n{"what": "ran"}', {"what": "ran"}),
    ("text after the JSON", '{"what": "ran"}\nHope this helps {smile}', {"what": "ran"}),
]


@pytest.mark.parametrize(("shape", "reply", "expected"), SHAPES, ids=[s[0] for s in SHAPES])
def test_the_failure_shapes_repair_libraries_fix(shape, reply, expected):
    assert parse_reply(reply).value == expected


def test_a_repaired_reply_says_so_and_valid_json_is_untouched():
    assert parse_reply('{\\"what\\": \\"ran\\"}').repaired  # unescaping is a repair
    assert not parse_reply('<think>{x}</think>{"what": "ran"}').repaired  # as a fence: the JSON was valid
    valid = '{"what": "Mel said \\"hi\\"", "n": 0.5, "path": "C:\\\\x"}'
    assert parse_reply(valid) == parse_reply(valid) and parse_reply(valid).value == json.loads(valid)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@pytest.mark.heavy
@settings(max_examples=200, deadline=None, database=None)
@given(value=JSON, cut=st.integers(0, 400), pretty=st.booleans())
def test_valid_json_reads_as_itself_and_any_cut_of_it_reads_or_fails_typed(value, cut, pretty):
    text = json.dumps({"events": value}, indent=2 if pretty else None, ensure_ascii=False)
    whole = parse_reply(text)
    assert whole.value == {"events": value} and not whole.repaired
    try:
        part = parse_reply(text[:cut])
    except MalformedReplyError:
        return  # a typed error, never another exception
    assert isinstance(part.value, (dict, list, str, int, float, bool, type(None)))
