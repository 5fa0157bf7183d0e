"""Look-alike letters for the relative-date tests (issue 22, break 1): every character that a
case-insensitive Unicode match, ``str.lower``, ``str.upper`` or ``str.casefold`` takes to ASCII letters
(``ſ`` for s, ``ı`` and ``İ`` for i, the Kelvin sign for k, ``ß`` for ss, ``ﬁ`` for fi...), worked out from
the Unicode tables at import rather than listed by hand, and a Hypothesis strategy that writes a phrase
with some of its letters swapped for them."""

from __future__ import annotations

import re
import string
import sys

from hypothesis import strategies as st


def _look_alikes() -> dict[str, tuple[str, ...]]:
    found: dict[str, set[str]] = {}
    for code in range(0x80, sys.maxunicode + 1):
        ch = chr(code)
        if ch.lower() == ch and ch.upper() == ch and ch.casefold() == ch:
            continue  # uncased: no case mapping can take it to a letter
        for form in (ch.lower(), ch.upper(), ch.casefold()):
            if form.isascii() and form.isalpha():
                found.setdefault(form.lower(), set()).add(ch)
        for letter in string.ascii_lowercase:
            if re.fullmatch(letter, ch, re.IGNORECASE):
                found.setdefault(letter, set()).add(ch)
    return {ascii_: tuple(sorted(chars)) for ascii_, chars in sorted(found.items())}


# ASCII letters (one or more, lower case) -> the non-ASCII characters that fold to them
LOOK_ALIKES: dict[str, tuple[str, ...]] = _look_alikes()
LOOK_ALIKE_CHARS = frozenset(c for chars in LOOK_ALIKES.values() for c in chars)


def swaps(phrase: str) -> list[tuple[int, str, str]]:
    """Every place a look-alike can stand in ``phrase``: (offset, the ASCII letters, a look-alike)."""
    lower = phrase.lower()
    return [(i, letters, alike) for letters, alikes in LOOK_ALIKES.items() for alike in alikes
            for i in range(len(lower)) if lower.startswith(letters, i)]


@st.composite
def with_look_alikes(draw: st.DrawFn, phrases: tuple[str, ...]) -> tuple[str, str]:
    """(the phrase as written, the phrase with one or more letters swapped for look-alikes and the other
    letters in any case); phrases without a swappable letter are not drawn."""
    phrase = draw(st.sampled_from([p for p in phrases if swaps(p)]))
    options = swaps(phrase)
    chosen = draw(st.lists(st.sampled_from(options), min_size=1, max_size=3))
    chars: list[str] = [c.upper() if draw(st.booleans()) else c for c in phrase]
    taken: set[int] = set()
    for i, letters, alike in chosen:
        places = set(range(i, i + len(letters)))
        if not places & taken:  # the first swap always lands; a later one never lands on an earlier one
            chars[i:i + len(letters)] = [alike] + [""] * (len(letters) - 1)
            taken |= places
    return phrase, "".join(chars)
