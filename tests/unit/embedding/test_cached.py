"""Unit layer (embedding): ``CachedEmbedder`` refuses bad vectors from a custom embedder (the scripted one; no
model)."""


import pytest

from cbmemory.embedding import CachedEmbedder
from cbmemory.errors import InvalidVectorError


@pytest.mark.parametrize("broken", ["nan", "dim", "rows"])
def test_bad_vectors_from_a_custom_embedder_are_refused(scripted, broken):
    with pytest.raises(InvalidVectorError):
        CachedEmbedder(scripted(broken=broken)).embed(["a", "b"])
