"""An inverted index of one user's annotation pairs, so that an annotation filter costs what it matches, not
what the records' annotations hold. Pure: no storage here (the embedded store reads the pairs into it,
cache.UserColumns keeps it).

Each distinct ``(key, value)`` pair gets the positions of the records holding it (a compact array of
int64). A record's annotations are parsed once, when it is first indexed; a filter is then one dict lookup
per pair and the positions found, whatever the size of the annotations (issue 22: a filter re-parsed every
record's JSON once per pair). Records holding the same annotations (a session's, copied onto each of its
records) are parsed and keyed once.

Pairs are kept exactly, except that a value longer than ``_SHORT`` characters is kept as its 128-bit digest
(blake2b), so the index holds a few bytes per distinct pair, not the values themselves (image captions are
up to 4,096 characters): two such values of one key share a digest with probability about n² / 2¹²⁹ for n
distinct values, never in practice. A stored value that is not a string (only an older writer could have
stored one) is not indexed: a filter's values are strings and never equal it (``filters.admits``).
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections.abc import Iterable, Mapping

import numpy as np

_SHORT = 64  # values up to this many characters are kept as they are; longer ones as their digest


def pair_key(key: str, value: str) -> tuple[str, str | bytes]:
    """How a pair is kept and looked up: as it is, or with a long value's 16-byte digest in its place."""
    if len(value) <= _SHORT:
        return key, value
    return key, hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class AnnotationIndex:
    """Which records (positions ``0 .. n-1`` of a user's columns) hold which annotation pairs."""

    def __init__(self) -> None:
        self.n = 0  # records indexed: positions below n
        self._postings: dict[tuple[str, str | bytes], array[int]] = {}  # pair -> increasing positions

    def add(self, records: Iterable[tuple[int, str | Mapping[str, object]]], n: int) -> None:
        """Index ``records`` (position, annotations as stored JSON text or parsed), every one at or after
        ``self.n`` and below ``n``, in increasing position; afterwards positions below ``n`` are indexed
        (those not given hold none). Records holding the same text (a session's annotations are copied
        onto each of its records) are parsed and keyed once."""
        postings = self._postings
        keyed: dict[str, list[array[int]]] = {}  # JSON text -> the postings of its pairs
        for position, given in records:
            if not self.n <= position < n:
                raise ValueError(f"position {position} is outside {self.n}..{n - 1}")
            targets = keyed.get(given) if isinstance(given, str) else None
            if targets is None:
                pairs = json.loads(given) if isinstance(given, str) else given
                targets = []
                for key, value in pairs.items():
                    if isinstance(value, str):
                        kept = pair_key(key, value)
                        found = postings.get(kept)
                        if found is None:
                            postings[kept] = found = array("q")
                        targets.append(found)
                if isinstance(given, str):
                    keyed[given] = targets
            for found in targets:
                found.append(position)
        self.n = max(self.n, n)

    def positions(self, key: str, value: str) -> np.ndarray:
        """Positions of the indexed records holding ``(key, value)``, increasing (a copy: the postings grow)."""
        found = self._postings.get(pair_key(key, value))
        return np.empty(0, np.int64) if found is None else np.frombuffer(found, dtype=np.int64).copy()

    def mask(self, pairs: Mapping[str, str], n: int) -> np.ndarray:
        """For positions ``0 .. n-1`` (all indexed): which hold every pair of ``pairs``."""
        if n > self.n:
            raise ValueError(f"records {self.n}..{n - 1} are not indexed yet")
        out = np.ones(n, dtype=bool)
        for key, value in pairs.items():
            holds = np.zeros(n, dtype=bool)
            found = self.positions(key, value)
            holds[found[found < n]] = True
            out &= holds
        return out


__all__ = ["AnnotationIndex", "pair_key"]
