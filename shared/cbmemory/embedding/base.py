"""The embedder contract and the content-hash cache in front of any embedder."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import InvalidInputError
from ..models import MemoryRecord
from ..text import content_hash
from ..validation import check_vectors


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension.

    ``name`` identifies the model and its settings; a store records it with ``dimension`` and refuses to
    open with a different embedder, so vectors from two models are never compared. An embedder may also have
    ``embed_queries(texts) -> (n, dimension) array``, many queries in one call (``CachedEmbedder.embed_queries``
    uses it when there).
    """

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def check_embedder(value: object) -> Embedder:
    """``value`` if it is an ``Embedder``, else ``InvalidInputError`` saying what one is. A plain function is
    refused: it has no name, and the name is what keeps a store's vectors from meeting another model's."""
    if isinstance(value, Embedder) and isinstance(value.name, str) and value.name:
        return value
    raise InvalidInputError(
        f"embedder must be an Embedder (an object with a non-empty name: str, dimension: int, embed(texts) -> "
        f"(n, dimension) array and embed_query(text) -> (dimension,) array), got {type(value).__name__}; wrap a "
        "LangChain Embeddings in cbmemory.LangChainEmbedder or a LlamaIndex BaseEmbedding in "
        "cbmemory.LlamaIndexEmbedder")


def l2_normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


VectorLookup = Callable[[str, Sequence[str]], Mapping[str, np.ndarray]]
# A model whose query and document vectors of one text are at least this near (cosine) embeds queries as
# documents (MiniLM, OpenAI's models: run to run they differ by float noise only); one that prefixes or
# instructs queries (e5, Cohere's search_query) is far below it.
SAME_AS_DOCUMENTS = 0.999


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b) / max(float(np.linalg.norm(a) * np.linalg.norm(b)), 1e-12)


class CachedEmbedder:
    """Batches texts, skips the ones already embedded, and checks what the wrapped embedder returns.

    Lookups go to an in-process LRU first, then to ``lookup`` (the store's vectors by content hash, so a
    re-ingest costs nothing), then to the model. Both are per user: a text another user already wrote is
    embedded again, so how long a write takes never tells whether someone else said the same thing.
    """

    def __init__(self, inner: Embedder, *, lookup: VectorLookup | None = None, max_entries: int = 50_000):
        check_embedder(inner)
        self.inner = inner
        self.name = inner.name
        self.dimension = int(inner.dimension)
        self._lookup = lookup
        self._lru: OrderedDict[str, np.ndarray] = OrderedDict()
        self._max = max_entries
        self.model_calls = 0
        self.texts_embedded = 0
        self._queries_as_documents: bool | None = None  # probed on the first batch of queries (_queries)

    def _remember(self, key: str, vec: np.ndarray) -> None:
        self._lru[key] = vec
        self._lru.move_to_end(key)
        while len(self._lru) > self._max:
            self._lru.popitem(last=False)

    def _cached(self, keys: Sequence[str], out: np.ndarray) -> dict[str, list[int]]:
        """Rows of ``out`` filled from the in-process cache; the keys not in it, each with its rows."""
        missing: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            vec = self._lru.get(key)
            if vec is None:
                missing.setdefault(key, []).append(i)
            else:
                out[i] = vec
        return missing

    def _fill(self, out: np.ndarray, missing: dict[str, list[int]], vecs: np.ndarray) -> None:
        """The rows of ``missing`` (key -> rows, in order) filled with ``vecs`` (one per key), and cached."""
        for (key, rows), vec in zip(missing.items(), vecs, strict=True):
            out[rows] = vec
            self._remember(key, vec.copy())

    def embed(self, texts: Sequence[str], *, user_id: str | None = None) -> np.ndarray:
        """Vectors of ``texts`` written for ``user_id`` (cached per user; ``None``: this process only)."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        space = "" if user_id is None else user_id + "\x1f"
        missing = self._cached([space + content_hash(t) for t in texts], out)
        if missing and self._lookup is not None and user_id is not None:
            found = self._lookup(user_id, [k[len(space):] for k in missing])
            for key, vec in ((space + h, v) for h, v in found.items()):
                if key in missing and vec.shape == (self.dimension,):
                    for i in missing.pop(key):
                        out[i] = vec
                    self._remember(key, vec)
        if missing:
            first = [texts[rows[0]] for rows in missing.values()]
            vecs = check_vectors(self.inner.embed(first), len(first), self.dimension)
            self.model_calls += 1
            self.texts_embedded += len(first)
            self._fill(out, missing, vecs)
        return out

    def embed_records(self, records: Sequence[MemoryRecord]) -> np.ndarray:
        """The records' indexed texts embedded, each user's looked up in that user's cache only."""
        users = {r.user_id for r in records}
        if len(users) <= 1:
            return self.embed([r.index_text for r in records], user_id=next(iter(users), None))
        out = np.empty((len(records), self.dimension), dtype=np.float32)
        for user in users:
            idx = [i for i, r in enumerate(records) if r.user_id == user]
            out[idx] = self.embed([records[i].index_text for i in idx], user_id=user)
        return out

    @staticmethod
    def _query_key(text: str, user_id: str | None) -> str:
        return ("q:" if user_id is None else f"q:{user_id}\x1f") + content_hash(text)

    def _query(self, text: str) -> np.ndarray:
        return check_vectors(np.asarray(self.inner.embed_query(text)).reshape(1, -1), 1, self.dimension)[0]

    def embed_query(self, text: str, *, user_id: str | None = None) -> np.ndarray:
        key = self._query_key(text, user_id)
        vec = self._lru.get(key)
        if vec is None:
            vec = self._query(text)
            self._remember(key, vec)
        return vec

    def embed_queries(self, texts: Sequence[str], *, user_id: str | None = None) -> np.ndarray:
        """``embed_query`` of each of ``texts`` (cached the same way), those not cached in as few model calls as
        the model allows (``_queries``): a hosted model's round trip is paid once, not once per text."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        missing = self._cached([self._query_key(t, user_id) for t in texts], out)
        if missing:
            self._fill(out, missing, self._queries([texts[rows[0]] for rows in missing.values()]))
        return out

    def _queries(self, texts: list[str]) -> np.ndarray:
        """Query vectors of ``texts`` (at least one): by the model's own ``embed_queries`` when it has one; else
        the first by ``embed_query`` and, when the model embeds a query as it embeds a document (probed once, on
        that first text: ``SAME_AS_DOCUMENTS``), the others in one ``embed`` call; else one ``embed_query`` each."""
        many = getattr(self.inner, "embed_queries", None)
        if callable(many):
            return check_vectors(many(list(texts)), len(texts), self.dimension)
        head = self._query(texts[0])
        rest = texts[1:]
        if not rest:
            return head[None, :]
        if self._queries_as_documents is None:
            doc = check_vectors(self.inner.embed([texts[0]]), 1, self.dimension)[0]
            self._queries_as_documents = _cosine(head, doc) >= SAME_AS_DOCUMENTS
        if self._queries_as_documents:
            tail = check_vectors(self.inner.embed(rest), len(rest), self.dimension)
        else:
            tail = np.stack([self._query(t) for t in rest])
        return np.concatenate([head[None, :], tail])
