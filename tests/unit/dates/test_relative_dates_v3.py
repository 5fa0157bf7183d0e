"""Unit layer: rules-v3 of the relative-date resolver (issue 22, break 9), the latest: quoted words and
titles mid-sentence are not dates (``my favourite song is "Yesterday"``, ``we watched Yesterday``), while
apostrophes, inch marks and a capital at a sentence's start change nothing; rules-v2 stays as released."""

from datetime import date, datetime, timezone

import pytest

from cbmemory.dates.guards import in_quotes, quoted_spans, sentence_starts_at, titled_mid_sentence
from cbmemory.dates.relative import (
    RULE_GUARDS,
    RULE_TABLES,
    RULES,
    RULES_V2,
    find_relative_dates,
    resolve_relative_dates,
)
from cbmemory.ingest import DATE_RULES, LATEST_DATE_RULES

SUNDAY = date(2023, 5, 7)


def found(text: str, rules: str = "rules-v3") -> list[str]:
    return [f.expression for f in find_relative_dates(text, SUNDAY, rules=rules)]


def test_v3_is_the_latest_and_the_default():
    assert LATEST_DATE_RULES == "rules-v3" and set(DATE_RULES) == set(RULE_TABLES) == {
        "rules-v1", "rules-v2", "rules-v3"}
    assert RULES is RULE_TABLES["rules-v3"] and set(RULE_GUARDS) == {"rules-v3"}
    assert found('we sang "Yesterday" yesterday', LATEST_DATE_RULES) == ["yesterday"]
    assert find_relative_dates('we sang "Yesterday"', SUNDAY) == []  # the default is the latest
    # v2's rows, in v2's order; only the two rows with alternatives are rebuilt (whole words each)
    v3 = RULE_TABLES["rules-v3"]
    assert [r.name for r in v3] == [r.name for r in RULES_V2]
    assert [r.name for r in v3 if r not in RULES_V2] == ["yesterday", "today"]


# ---------------------------------------------------------------------------- quoted: not a date
@pytest.mark.parametrize("text", [
    'my favourite song is "Yesterday" by the Beatles',
    "my favourite song is “Yesterday” by the Beatles",
    "my favourite song is ‘Yesterday’ by the Beatles",
    "my favourite song is 'Yesterday' by the Beatles",
    "my favourite song is 'yesterday.' by nobody",
    'She said "see you tomorrow" and left.',
    'He told me, "I quit my job last week, and the day after tomorrow I leave."',
    "“Last night” was the title of her talk.",
    'the sign read "OPEN TODAY"',
    'we watched "The Day After Tomorrow"',  # nothing inside a quoted title is a date either
    "she wrote ‘back next week’ on the door",
])
def test_quoted_words_are_left_as_written(text):
    assert found(text) == []
    assert found(text, "rules-v2") != []  # v2, as released, resolved them
    when = datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert DATE_RULES["rules-v3"](text, when) == text


# ---------------------------------------------------------------------------- titles mid-sentence
@pytest.mark.parametrize(("text", "left"), [
    ("we watched Yesterday at the cinema", ["Yesterday"]),
    ("I Know What You Did Last Summer is a film", ["Last Summer"]),
    ("we watched The Day After Tomorrow last night", ["The Day After Tomorrow"]),
    ("her show, Today, airs at nine", ["Today"]),
])
def test_title_cased_words_mid_sentence_are_left_as_written(text, left):
    v3, v2 = found(text), found(text, "rules-v2")
    assert not set(left) & set(v3) and set(left) <= set(v2)
    assert [e for e in v2 if e not in left] == v3  # the rest is resolved as before


@pytest.mark.parametrize(("text", "expected"), [
    ("Yesterday I went to the museum.", ["Yesterday"]),
    ("Hi Mel! Yesterday I went out. Last Friday too? Tomorrow, maybe.", ["Yesterday", "Last Friday", "Tomorrow"]),
    ("Hi Mel\nYesterday I went out", ["Yesterday"]),
    ("Great... Last week was fun", ["Last week"]),
    ('"Hello!" Yesterday we met', ["Yesterday"]),  # the quote closed before the sentence started
    ("(Yesterday was fun)", ["Yesterday"]),
    ("Wow! 😊 Yesterday was great", ["Yesterday"]),
    ("  Tonight we eat out", ["Tonight"]),
    ("I went there YESTERDAY!", ["YESTERDAY"]),  # capitals are emphasis, not a title
    ("i went there yesterday and Last week", ["yesterday"]),
])
def test_a_capital_where_a_sentence_starts_is_still_a_date(text, expected):
    assert found(text) == expected


# ---------------------------------------------------------------------------- apostrophes and stray marks
@pytest.mark.parametrize(("text", "expected"), [
    ("I'd have gone yesterday but Tom's car broke", ["yesterday"]),
    ("Tom's party was last week and the kids' one is next week", ["last week", "next week"]),
    ("I’d have gone yesterday but Tom’s car broke", ["yesterday"]),
    ("the kids’ party was yesterday and Tom’s is tomorrow", ["yesterday", "tomorrow"]),
    ("‘90s night was last week", ["last week"]),
    ("we danced ‘til late last night, rock ‘n’ roll", ["last night"]),
    ("rock 'n' roll night was yesterday", ["yesterday"]),
    ("'cause yesterday it rained on the kids' bikes", ["yesterday"]),
    ('I bought a 5" screen yesterday and a 7" one today', ["yesterday", "today"]),
    ('He said "I will come tomorrow', ["tomorrow"]),  # never closed: quotes nothing
    ('she said "hi\nsee you tomorrow" then', ["tomorrow"]),  # no quotation runs past its line
    ('I said "hi" yesterday and "bye" today', ["yesterday", "today"]),
])
def test_apostrophes_inch_marks_and_unpaired_quotes_quote_nothing(text, expected):
    assert found(text) == expected


def test_the_guards_one_by_one():
    text = 'a "b" c “d” e ‘f’ g'
    assert quoted_spans(text) == ((2, 4), (8, 10), (14, 16))
    assert in_quotes("say 'Yesterday' now", 5, 14) and not in_quotes("I'd go yesterday", 7, 16)
    assert sentence_starts_at("Hi. Yo", 4) and not sentence_starts_at("Hi, Yo", 4)
    assert sentence_starts_at("Yo", 0) and sentence_starts_at("x\n Yo", 3)
    assert titled_mid_sentence("we saw Yesterday", 7, 16) and not titled_mid_sentence("we saw YESTERDAY", 7, 16)


def test_the_context_stage_shows_a_quoted_title_as_written():
    from cbmemory.context import memory_line
    from cbmemory.models import MemoryRecord

    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    text = 'my favourite song is "Yesterday" by the Beatles, I heard it yesterday'
    r = MemoryRecord("r", "u", "s", "turn", 0, "user", text, text, when, when, "h", speaker="Caroline")
    assert memory_line(r) == ('Caroline: my favourite song is "Yesterday" by the Beatles, '
                              'I heard it yesterday [Sunday, 7 May 2023] [said Monday, 8 May 2023]')


def test_v2_still_resolves_quoted_words_as_released():
    when = datetime(2023, 5, 7, tzinfo=timezone.utc)
    assert resolve_relative_dates('my favourite song is "Yesterday"', when, rules="rules-v2") == (
        'my favourite song is "Yesterday [= 6 May 2023]"')
