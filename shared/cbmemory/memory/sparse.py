"""How an ``AgentMemory`` keeps a store's learned sparse vectors whole: which encoder makes them, the backfill
of records stored before the encoder was bound, and what a read-only store (which cannot be backfilled) may
answer.

A store's binding is made once and never changes, but it can appear while a memory is open: another process
opens the file with ``recipe="default_sparse"`` and binds SPLADE. A memory opened before then writes no
sparse vectors; its next write is refused by the store (``SparseEncoderBoundError``, also raised inside the
SQLite write transaction, so a binding made between the store's check and the write is caught too), and the
memory then does what it would have done had it been opened after the binding (:func:`bound_encoder`, then
:func:`fill_sparse`) and writes again, with vectors. A sparse search of such a memory does the same first.

A search encodes its query with :func:`query_encoder`: the bundled encoder computes only the word pieces the
user's sparse vectors hold (``MemoryStore.sparse_terms``), most of a query's encoding time otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

from ..embedding.base import Embedder
from ..embedding.sparse import SparseEncoder, SparseVector
from ..errors import EmbedderMismatchError, InvalidInputError
from ..store.base import MemoryStore
from ..store.turns import in_agent_turn, writes_allowed

FILL_PER_TURN = 256  # records an agent's save gives their sparse vector at most (about 2 s on 2 cores)


def sparse_encoder_for(given: SparseEncoder | None, wanted: str | None, stored: str | None) -> SparseEncoder | None:
    """The memory's sparse encoder: ``given``, else the bundled one the ingest settings (``wanted``) or the
    store's vectors (``stored``) name; ``None`` when neither names one. Never one the store's vectors are not from."""
    if wanted is not None and stored is not None and wanted != stored:
        raise EmbedderMismatchError(f"the store holds sparse vectors from {stored!r}; its records cannot be "
                                    f"written with {wanted!r} (the ingest settings' sparse encoder)")
    name = wanted or stored
    if given is not None:
        if not isinstance(given, SparseEncoder):
            raise InvalidInputError(f"sparse_encoder must be a SparseEncoder, got {type(given).__name__}")
        if name is not None and given.name != name:
            raise EmbedderMismatchError(f"sparse_encoder {given.name!r} does not make the sparse vectors "
                                        f"{'the store holds' if stored else 'the ingest settings name'} ({name!r})")
        return given
    if name is None:
        return None
    from ..embedding.splade import encoder_named

    return encoder_named(name)


def bound_encoder(name: str) -> SparseEncoder:
    """The bundled encoder named ``name``, which another writer bound to the store after this memory opened;
    ``EmbedderMismatchError`` (naming the fix) when it is not a bundled one."""
    from ..embedding.splade import encoder_named

    try:
        return encoder_named(name)
    except InvalidInputError as exc:
        raise EmbedderMismatchError(
            f"another writer bound the sparse encoder {name!r} to this store since this memory was opened, and "
            f"it is not a bundled one: open the memory with sparse_encoder=<that encoder> to write to it") from exc


def fill_sparse(store: MemoryStore, encoder: SparseEncoder, batch: int = 256, limit: int | None = None) -> int:
    """Give the records written before the store had a sparse encoder their vectors (encoded from their
    indexed text, user by user, ``batch`` at a time; at most about ``limit``); later writes carry their own.
    Returns how many. Never called on a read-only store (see :func:`refuse_partial_sparse`)."""
    filled = 0
    for user in store.users_missing_sparse():
        while (limit is None or filled < limit) and (records := store.records_without_sparse(
                user, limit=batch if limit is None else min(batch, limit - filled))):
            vectors = encoder.encode_documents([r.index_text for r in records])
            added = store.set_sparse(user, {r.record_id: v for r, v in zip(records, vectors, strict=True)})
            filled += added
            if added == 0:  # nothing left that this call could fill (e.g. filled meanwhile)
                break
    return filled


def top_up(store: MemoryStore, encoder: SparseEncoder) -> bool:
    """Fill the sparse vectors of records stored before the binding (:func:`fill_sparse`): all of them, but in
    an agent's save (``store.turns.in_agent_turn``) at most ``FILL_PER_TURN``, the rest at the next writes
    (a store adopted from another process's binding was re-encoded whole inside one save: 68 s); never in a
    search that may not write, nor in a read-only store. Whether none is left."""
    if store.read_only or not writes_allowed():
        return False
    limit = FILL_PER_TURN if in_agent_turn() else None
    filled = fill_sparse(store, encoder, limit=limit)
    return limit is None or filled < limit


def readable(store: MemoryStore, embedder: Embedder, bound: bool) -> bool:
    """Whether a search has anything to read: always when this memory has ``bound`` its embedder or may write
    (it binds then); in a search that may not write (``store.turns.reads_only``: an agent's recall) before
    this memory's first write, whether the store holds vectors, read without writing
    (``EmbedderMismatchError`` when another embedder's)."""
    if bound or writes_allowed():
        return True
    name, dimension = embedder.name, embedder.dimension
    have = store.bound_embedder
    if have is not None and have != (name, dimension):
        raise EmbedderMismatchError(f"the store holds vectors from {have[0]!r} ({have[1]} dimensions); it cannot "
                                    f"be searched with {name!r} ({dimension} dimensions)")
    return have is not None


def refuse_partial_sparse(store: MemoryStore, user_id: str, recipe: str) -> None:
    """Before a sparse search of a read-only store: refuse it (``InvalidInputError``, at once, nothing
    encoded) when the store holds no sparse vectors, or when some of the user's records have none (written
    before the encoder was bound, and a backfill interrupted before it reached them), rather than answer from
    part of the records. A user whose records all have theirs is answered."""
    fix = f"open it once writable with recipe={recipe!r}, which adds them"
    if store.bound_sparse_encoder is None:
        raise InvalidInputError(f"recipe {recipe!r} searches sparse vectors, and this read-only store holds none: "
                                f"{fix}")
    if store.records_without_sparse(user_id, limit=1):
        raise InvalidInputError(f"recipe {recipe!r} searches sparse vectors, and some of user {user_id!r}'s records "
                                f"in this read-only store have none yet (their backfill was interrupted): {fix}")


def query_encoder(store: MemoryStore, user_id: str, encoder: SparseEncoder | None
                  ) -> Callable[[str], SparseVector] | None:
    """What encodes a search's query for ``user_id`` (``None`` without an encoder). The bundled SPLADE
    encoder computes only the word pieces of the user's sparse vectors, read from the store when the query is
    encoded (``None`` from a backend that does not say: all of them): a piece no record of the user holds adds
    0 to every score, and the output layer over all 30,522 pieces is most of the encoding's time. The scores
    are those of the full vector, except when it has more positive terms than the encoder keeps
    (``max_terms``): then terms the full vector's top would cut may count. A record written between the read
    of the terms and the search is scored without the query's terms that only it holds. Another encoder's
    ``encode_query`` is used as it is."""
    if encoder is None:
        return None
    from ..embedding.splade import SpladeEncoder

    if not isinstance(encoder, SpladeEncoder):
        return encoder.encode_query
    splade = encoder

    def encode(text: str) -> SparseVector:
        return splade.encode_query(text, terms=store.sparse_terms(user_id))
    return encode


__all__ = ["FILL_PER_TURN", "bound_encoder", "fill_sparse", "query_encoder", "refuse_partial_sparse", "readable",
           "sparse_encoder_for"]
