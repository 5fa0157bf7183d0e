"""Unit layer (cbmemory.ingest.passages), issue 29 item 4: a long message gets passage records, overlapping
verbatim slices linked to the message (``source_ids``) that share its session, place, speaker, turn id,
dates and annotations; a short message, a derived record, or one whose annotations leave no room gets none."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cbmemory.context import MAX_SHOWN_CHARS
from cbmemory.ingest import IngestConfig, build_records, validate_messages
from cbmemory.ingest.passages import PASSAGE_CHARS, PASSAGE_STEP, passages, spans, with_passages
from cbmemory.models import PASSAGE_KEY, passage_place
from cbmemory.validation import MAX_ANNOTATION_KEYS
from tests.support.needles import NEEDLES, with_needle
from tests.unit.ingest.test_records import NOW, D


def built(text: str, annotations: dict[str, str] | None = None):
    msgs = validate_messages([{"role": "user", "speaker": "Ana", "content": text, "turn_id": "t1",
                               "annotations": annotations or {}}])
    return build_records("u", "s", msgs, D, NOW)[0]


def test_in_prose_passages_overlap_by_about_the_step():
    found = spans(with_needle(10_000, 0.5, NEEDLES[1]))
    assert all(e0 - s1 >= (PASSAGE_CHARS - PASSAGE_STEP) * 3 // 4 for (_, e0), (s1, _) in zip(found, found[1:], strict=False))


@pytest.mark.parametrize("length", [2_000, 10_000, 50_000])
@pytest.mark.parametrize("depth", [0.1, 0.5, 0.9])
def test_a_fact_anywhere_in_a_long_message_is_whole_in_a_passage(length, depth):
    needle = NEEDLES[0]
    raw = built(with_needle(length, depth, needle))
    found = [p for p in passages(raw, IngestConfig()) if needle.fact in p.text]
    assert found
    p = found[0]
    assert (p.kind, p.source_ids, p.session_id, p.position, p.turn_id, p.speaker, p.occurred_at) == (
        "passage", (raw.record_id,), "s", raw.position, "t1", "Ana", raw.occurred_at)
    kind, start, end, total = passage_place(p)
    assert (kind, total) == ("turn", len(raw.text)) and raw.text[start:end] == p.text
    assert p.index_text.startswith("[Sunday, 7 May 2023] Ana: ") and p.index_text.endswith(p.text)


@pytest.mark.heavy
@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab c.\n"), min_size=MAX_SHOWN_CHARS + 1, max_size=9_000))
def test_passages_cover_the_text_and_overlap_enough(text):
    found = spans(text)
    assert found[0][0] == 0 and found[-1][1] == len(text)
    assert all(0 < e - s <= PASSAGE_CHARS for s, e in found)
    for (s0, e0), (s1, _) in zip(found, found[1:], strict=False):
        assert s0 < s1 <= e0  # no gap, always forward


def test_short_messages_and_derived_records_get_none():
    assert passages(built("x " * (MAX_SHOWN_CHARS // 2)), IngestConfig()) == []
    long = built("word " * 1_000)
    summary = long.__class__(**{**{f: getattr(long, f) for f in long.__slots__}, "kind": "summary"})
    assert passages(summary, IngestConfig()) == []
    assert with_passages([long], IngestConfig())[0] is long and len(with_passages([long], IngestConfig())) > 5


def test_annotations_are_kept_and_a_full_mapping_means_no_passages():
    long = built("word " * 1_000, {"topic": "notes"})
    assert all(p.annotations["topic"] == "notes" and PASSAGE_KEY in p.annotations
               for p in passages(long, IngestConfig()))
    full = built("word " * 1_000, {f"k{i}": "v" for i in range(MAX_ANNOTATION_KEYS)})
    assert passages(full, IngestConfig()) == []


def test_passage_ids_are_stable_and_distinct():
    a, b = passages(built("word " * 1_000), IngestConfig()), passages(built("word " * 1_000), IngestConfig())
    assert [p.record_id for p in a] == [p.record_id for p in b] and len({p.record_id for p in a}) == len(a)
