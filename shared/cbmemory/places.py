"""The world's cities by name (``is_city``): the names of GeoNames' ``cities15000`` extract (every populated place of
at least 15,000 people), in lower case with their accents dropped (``text.fold``, as the full-text index folds words:
"Gdańsk" -> "gdansk"; a letter that is no letter with an accent stays, "Łódź" -> "łodz", so "Lodz" is not read as it;
621 of the list's names keep such a letter), shipped as ``data/cities.txt`` (built by ``scripts/cities.py``; GeoNames,
CC BY 4.0) and read on first use. A value the user names that is a city's name ("Gdansk", "Cork") says what a
statement is about however it is told ("The neighbours here in Gdansk brought round a cake"); some names are also
people's or words ("Anna", "Man"), so a name on the list is a clue, not a proof."""

from __future__ import annotations

from functools import cache
from importlib import resources

from .text import fold


@cache
def cities() -> frozenset[str]:
    """The folded names of the list (read once per process)."""
    text = (resources.files("cbmemory") / "data" / "cities.txt").read_text(encoding="utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def is_city(value: str) -> bool:
    """Whether ``value`` (a name as ``values.values`` reads it, any case) is a city's name on the list."""
    return fold(value) in cities()


__all__ = ["cities", "is_city"]
