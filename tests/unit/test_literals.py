"""Unit layer (cbmemory.literals): the phrases of whole words a pattern matches, read from its parse. Pure."""

import re

import pytest

from cbmemory.claims import SLOTS, rule_phrases, rule_words
from cbmemory.literals import MAX_EXPANDED, phrases


def _phrases(pattern: str) -> tuple[str, ...]:
    return phrases(re.compile(pattern, re.I))


def test_each_alternative_and_optional_part_is_spelled_out():
    assert _phrases(r"\b(?:live[sd]? in|moved (?:back )?to)\b") == (
        "live in", "lives in", "lived in", "moved to", "moved back to")


def test_a_word_running_into_unknown_text_is_a_fragment_and_its_piece_is_dropped():
    assert _phrases(r"\brelocat\w+ to\b") == ()  # "relocat" is no word; "to" alone has no content word
    assert _phrases(r"\bjoin(?:ed|ing) (?-i:[A-Z])\w*") == ("joined", "joining")  # a name after a space: whole words


def test_unknown_words_between_two_phrases_split_them():
    assert _phrases(r"\bmade (?:a |the )?\w+ (?:lead|manager)\b") == ("made", "lead", "manager")


def test_what_a_lookaround_excludes_is_not_asked_for():
    assert _phrases(r"\bwork(?:s)? (?:at|for)(?! (?:me|hours|years))") == ("work at", "work for", "works at",
                                                                          "works for")


def test_of_two_phrases_one_holding_the_other_only_the_shorter_is_kept():
    assert _phrases(r"\b(?:flat|(?:new|old) flat|our flat in)\b") == ("flat",)


def test_a_small_class_of_characters_is_spelled_out_and_case_is_folded():
    assert _phrases(r"\b(?:Can[’']t Stop)\b") == ("can’t stop", "can't stop")


def test_a_pattern_of_too_many_texts_is_refused():
    many = "|".join(f"w{i}" for i in range(200))
    with pytest.raises(ValueError, match=str(MAX_EXPANDED)):
        _phrases(rf"(?:{many}) (?:{many})")


@pytest.mark.parametrize("kind", sorted(SLOTS))
def test_every_claim_rule_has_phrases_of_whole_words_each_once(kind):
    said = rule_phrases(kind)
    assert said and len(said) == len(set(said))
    assert all(re.fullmatch(r"[\w'’-]+(?: [\w'’-]+)*", p) and p == p.lower() for p in said)
    words = rule_words(kind).split()
    assert words and len(words) == len(set(words)) and all(w.isalpha() and len(w) >= 3 for w in words)


def test_the_schedules_phrases_are_whole_days_and_the_employers_not_the_words_it_excludes():
    said = set(rule_phrases("schedule"))
    assert {"on tuesdays", "monday evenings", "weekly"} <= said and "tues" not in rule_words("schedule").split()
    assert {"work at", "works for", "joined"} <= set(rule_phrases("work"))
    assert not {"hours", "years", "everyone"} & set(rule_words("work").split())
