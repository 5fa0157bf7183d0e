"""Unit layer: the values a statement's claims of a kind name (``cbmemory.retrieval.followed.claimed_values``: the
write-time rules' claim and values, lower case) and whether a statement names one again (``names_value``: a whole
sequence of words, any case). Pure functions over text."""

import pytest

from cbmemory.retrieval.followed import claimed_values, names_value


@pytest.mark.parametrize(("said", "kind", "values"), [
    ("I live in Lisbon now, near the river.", "home", {"lisbon"}),
    ("I work for Lumen Health these days.", "work", {"lumen health"}),
    ("My new number is 07700 900123, save it.", "phone", {"07700 900123"}),
    ("We're vegetarian now, all of us.", "diet", {"vegetarian"}),
    ("I'd love to live in Lisbon one day.", "home", set()),  # a wish claims nothing
    ("I don't live in Glasgow.", "home", set()),  # a negation claims nothing
    ("I live in Lisbon now.", "work", set()),  # no claim of that kind
    ("I have a tortoise now, he's great.", "pet", set()),  # a value in lower case that no rule reads
])
def test_the_values_a_statements_claims_of_a_kind_name(said, kind, values):
    assert claimed_values(said, kind) == values


@pytest.mark.parametrize(("said", "value", "named"), [
    ("Tomorrow is my first morning back as a LISBON local.", "lisbon", True),
    ("The Lisbon rain again!", "lisbon", True),
    ("Lisboners are friendly.", "lisbon", False),  # part of another word
    ("The canteen at Lumen Health is great.", "lumen health", True),
    ("Lumen and Health are two words here.", "lumen health", False),
    ("Write to ana@example.org from now on.", "ana@example.org", True),
    ("Write to diana@example.org from now on.", "ana@example.org", False),
    ("St Brigid's had a fair today.", "st brigid", True),
])
def test_a_statement_names_a_value_as_a_whole_sequence_of_words(said, value, named):
    assert names_value(said, value) is named
