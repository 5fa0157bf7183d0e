"""Unit layer (store.lexical): a phrase's records and counts, read from positional postings, are what a plain scan
of every record's terms finds, for records indexed and records appended since. Pure (numpy, no file)."""

import numpy as np
import pytest

from cbmemory.store.lexical import LexicalIndex, encode, term_ids


def _scan(records: list[tuple[str, str]], phrase: list[str]) -> dict[int, int]:
    """Each record's count of ``phrase``, contiguous within one field, by a plain scan of its words."""
    out = {}
    for i, fields in enumerate(records):
        n = sum(1 for field in fields for words in [field.split()] for k in range(len(words) - len(phrase) + 1)
                if words[k:k + len(phrase)] == phrase)
        if n:
            out[i] = n
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_phrases_counts_are_a_plain_scans_for_indexed_and_newer_records(seed):
    rng = np.random.default_rng(seed)
    vocab = ["on", "tuesday", "evening", "pottery", "moved", "to", "dundee", "leith", "work", "at"]
    records = [(" ".join(rng.choice(vocab, rng.integers(0, 5))), " ".join(rng.choice(vocab, rng.integers(0, 12))))
               for _ in range(300)]
    index = LexicalIndex()
    index.append([encode(a, b) for a, b in records[:200]])
    index._reindex()  # the first 200 indexed, the rest scanned
    index.append([encode(a, b) for a, b in records[200:]])
    assert index._indexed == 200 and index.n == 300
    for _ in range(40):
        phrase = list(rng.choice(vocab, rng.integers(2, 4)))
        ids = np.array(term_ids(" ".join(phrase)), np.int64)
        docs, counts = index._phrase_counts(ids)
        assert dict(zip(docs.tolist(), counts.astype(int).tolist(), strict=True)) == _scan(records, phrase)

