"""Unit layer (llamaindex_cbmemory.embeddings): an object that is not an embedder is refused."""

from __future__ import annotations

import pytest

from cbmemory import InvalidInputError
from llamaindex_cbmemory import CbMemoryEmbedding


def test_not_an_embedder():
    with pytest.raises(InvalidInputError, match="Embedder"):
        CbMemoryEmbedding(object())  # type: ignore[arg-type]
