"""The real sparse encoder as the bench uses it (``bench.sparse``, and every timed search of a recipe with the
sparse signal, ``bench.measure``): the encoder a recipe names, loaded once per worker process, a search's
query encoded over the user's word pieces as ``AgentMemory.search`` does, and a store's records given their
vectors through the store's backfill API (``records_without_sparse``, ``set_sparse``), as ``AgentMemory`` fills a
store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from cbmemory.recipes import Recipe
    from cbmemory.store import MemoryStore

FILL_BATCH = 256  # records encoded per ``set_sparse``, as AgentMemory's backfill does


class QueryEncoder(Protocol):
    """The bundled sparse encoder as the bench uses it (the core keeps its type private): documents, and
    queries over some word pieces (``terms``) or all (``None``)."""

    name: str

    def encode_documents(self, texts: Sequence[str]) -> list[Any]: ...

    def encode_query(self, text: str, terms: Any = None) -> Any: ...


def sparse_encoder_of(recipes: Sequence[Recipe]) -> str | None:
    """The sparse encoder the recipes with the sparse signal name (``ingest.sparse``); ``None`` when none has
    the signal. ``ValueError`` when one names none or two name different ones (one sparse copy per size)."""
    from cbmemory.retrieval import Signal

    names = {r.ingest.sparse for r in recipes if r.retrieval.uses(Signal.SPARSE)}
    if None in names:
        raise ValueError("a recipe with the sparse signal must name its sparse encoder (ingest.sparse)")
    if len(names) > 1:
        raise ValueError(f"the bench runs recipes of one sparse encoder at a time, got {sorted(map(str, names))}")
    return next(iter(names), None)


@lru_cache(maxsize=2)
def encoder_named(name: str) -> QueryEncoder:
    """The sparse encoder an ``AgentMemory`` writing ``name``'s vectors uses, one per name in a worker process,
    its model loaded here (never inside a timed call)."""
    from cbmemory import AgentMemory
    from cbmemory.ingest import IngestConfig
    from cbmemory.store import SQLiteStore

    with AgentMemory(SQLiteStore(":memory:"), ingest=IngestConfig(sparse=name)) as memory:  # nothing embedded
        encoder = cast(QueryEncoder, memory.sparse_encoder)
    encoder.encode_query("warm-up: load the model before timing")
    return encoder


def sparse_query_encoder(store: MemoryStore, recipe: Recipe, user_id: str) -> Callable[[str], Any] | None:
    """What encodes a search's sparse query for ``recipe`` (``None`` without the sparse signal): the real
    encoder over the user's word pieces, read from the store as each query is encoded, as
    ``AgentMemory.search`` does."""
    name = sparse_encoder_of([recipe])
    if name is None:
        return None
    encoder = encoder_named(name)
    return lambda text: encoder.encode_query(text, terms=store.sparse_terms(user_id))


def fill_sparse(store: MemoryStore, encoder: QueryEncoder) -> int:
    """Give every record without a sparse vector its vector, ``FILL_BATCH`` at a time, user by user (the
    store's backfill API, as an ``AgentMemory`` opened on the store does). Returns how many."""
    store.bind_sparse_encoder(encoder.name)
    filled = 0
    for user in store.users_missing_sparse():
        while records := store.records_without_sparse(user, limit=FILL_BATCH):
            vectors = encoder.encode_documents([r.index_text for r in records])
            added = store.set_sparse(user, {r.record_id: v for r, v in zip(records, vectors, strict=True)})
            filled += added
            if added == 0:
                break
    return filled


__all__ = ["FILL_BATCH", "QueryEncoder", "encoder_named", "fill_sparse", "sparse_encoder_of", "sparse_query_encoder"]
