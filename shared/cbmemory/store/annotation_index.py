"""An inverted index of one user's annotation pairs, so that an annotation filter costs what it matches, not
what the records' annotations hold. Pure: no storage here (the embedded store reads the pairs into it,
sqlite_cache.UserColumns keeps it).

Each ``(key, value)`` pair is kept as a 128-bit digest (blake2b of the pair's JSON ``[key, value]``, which
tells any two pairs of strings apart: no separator a key or value could hold) with the positions of the
records holding it. A record's annotations are parsed once, when it is first indexed; a filter is then one
binary search per pair over the digests and the positions found, whatever the size of the annotations
(issue 22: a 500-key filter re-parsed every record's JSON once per key). Two distinct pairs share a digest
with probability about n² / 2¹²⁹ for n distinct pairs: never, in practice; it is the only way a filter could
admit a record without the pair.

Records appended since the last lookup go into a small tail (a dict, digest -> positions), merged into the
sorted arrays once it outgrows an eighth of them (and at least ``_TAIL_PAIRS``), so indexing an append costs
no re-sort of everything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping

import numpy as np

_TAIL_PAIRS = 4_096
_DIGEST = np.dtype("S16")  # fixed width: two different 16-byte digests never compare equal


def pair_digest(key: str, value: object) -> bytes:
    """The 16-byte digest of one annotation pair (``value`` as stored: a string, or whatever JSON held)."""
    text = json.dumps([key, value], ensure_ascii=False, sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class AnnotationIndex:
    """Which records (positions ``0 .. n-1`` of a user's columns) hold which annotation pairs."""

    def __init__(self) -> None:
        self.n = 0  # records indexed: positions below n
        self.digests = np.empty(0, _DIGEST)  # sorted
        self.rows = np.empty(0, np.int64)  # the position holding each digest (by digest, then position)
        self._tail: dict[bytes, list[int]] = {}
        self._tail_pairs = 0

    def add(self, records: Iterable[tuple[int, Mapping[str, object]]], n: int) -> None:
        """Index ``records`` (position, parsed annotations), every one at or after ``self.n`` and below ``n``,
        in increasing position; afterwards positions below ``n`` are indexed (those not given hold none)."""
        for position, pairs in records:
            if not self.n <= position < n:
                raise ValueError(f"position {position} is outside {self.n}..{n - 1}")
            for key, value in pairs.items():
                self._tail.setdefault(pair_digest(key, value), []).append(position)
                self._tail_pairs += 1
        self.n = max(self.n, n)

    def _merge(self) -> None:
        digests = np.fromiter((d for d, rows in self._tail.items() for _ in rows), _DIGEST, self._tail_pairs)
        rows = np.fromiter((r for rs in self._tail.values() for r in rs), np.int64, self._tail_pairs)
        digests, rows = np.concatenate([self.digests, digests]), np.concatenate([self.rows, rows])
        order = np.lexsort((rows, digests))
        self.digests, self.rows = digests[order], rows[order]
        self._tail, self._tail_pairs = {}, 0

    def positions(self, key: str, value: object) -> np.ndarray:
        """Positions of the indexed records holding ``(key, value)``, increasing."""
        if self._tail_pairs > max(_TAIL_PAIRS, self.digests.size // 8):
            self._merge()
        d = pair_digest(key, value)
        probe = np.array([d], _DIGEST)
        lo, hi = (int(np.searchsorted(self.digests, probe, side=side)[0]) for side in ("left", "right"))
        main = self.rows[lo:hi]
        tail = self._tail.get(d)
        return main if not tail else np.union1d(main, np.asarray(tail, np.int64))

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


__all__ = ["AnnotationIndex", "pair_digest"]
