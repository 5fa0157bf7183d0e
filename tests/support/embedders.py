"""A tiny fixed embedder for tests whose subject is not the vectors (the store's document handling, a
binding between two writers): every text is the same 4-dimensional unit vector."""

from __future__ import annotations

import numpy as np


class FourDims:
    name, dimension = "test-embedder", 4

    def embed(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32) / 2

    def embed_query(self, text):
        return self.embed([text])[0]
