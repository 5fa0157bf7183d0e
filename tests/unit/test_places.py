"""Unit layer: the world's cities by name (``cbmemory.places``): the shipped list (GeoNames' ``cities15000`` names,
in lower case with accents dropped, ``text.fold``) and a value's reading against it. Reads the real package data
file."""

import pytest

from cbmemory.places import cities, is_city
from cbmemory.text import fold


def test_a_name_is_folded_to_lower_case_without_accents():
    assert fold("Gdańsk") == "gdansk"
    assert fold("Kraków") == "krakow"
    assert fold("DUNDEE") == "dundee"


def test_the_list_is_the_shipped_file_folded_and_without_its_header():
    names = cities()
    assert len(names) > 30_000  # the extract holds some 32,000 places
    assert all(n == fold(n) and n == n.strip() and not n.startswith("#") for n in names)


@pytest.mark.parametrize(("value", "city"), [
    ("Dundee", True), ("aberdeen", True), ("Inverness", True), ("Gdańsk", True), ("gdansk", True),
    ("Kraków", True), ("Fenwick Analytics", False), ("Quillon Labs", False), ("Callum", False), ("", False),
])
def test_a_value_is_a_city_when_its_folded_name_is_on_the_list(value, city):
    assert is_city(value) is city
