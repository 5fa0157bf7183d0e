"""Typed errors. Every error cbmemory raises on bad input is a ``CbMemoryError``."""

from __future__ import annotations


class CbMemoryError(Exception):
    """Base class of every error raised by cbmemory."""


class InvalidInputError(CbMemoryError, ValueError):
    """A caller passed something cbmemory refuses to store or search with. Nothing was stored."""


class SparseEncoderBoundError(InvalidInputError):
    """A write brought no sparse vectors to a store that holds them (from the encoder named ``encoder``):
    its writer did not know of the binding, which another process may have made since the writer checked.
    Nothing was written; written again with one vector per record from that encoder, it is taken.
    ``AgentMemory`` does so itself: it loads the bound encoder and retries the write once."""

    def __init__(self, encoder: str, message: str):
        super().__init__(message)
        self.encoder = encoder

    def __reduce__(self) -> tuple[type, tuple[str, str]]:  # pickled with both arguments (e.g. across processes)
        return type(self), (self.encoder, str(self))


class InvalidDateError(InvalidInputError):
    """A date or time that does not parse as ISO 8601 or LoCoMo's ``1:56 pm on 8 May, 2023``, or that lies
    outside the supported range (``cbmemory.dates.MIN_INSTANT`` to ``MAX_INSTANT``)."""


class InvalidVectorError(InvalidInputError):
    """An embedder returned NaN/inf values or vectors of the wrong dimension."""


class EmbedderMismatchError(CbMemoryError):
    """A store was opened with an embedder other than the one its vectors were made with."""


class NotAStoreError(CbMemoryError):
    """The file or database is not a cbmemory store (or is from an unknown schema version)."""


class StoreUnavailableError(CbMemoryError):
    """The backing database could not be reached (e.g. a Couchbase cluster that does not answer)."""


class MissingDependencyError(CbMemoryError, ImportError):
    """An optional extra is needed for this feature; the message says which one to install."""


class StoreNotFoundError(CbMemoryError, FileNotFoundError):
    """A store opened only to read (or to erase from) does not exist; nothing was created."""


class ReadOnlyStoreError(CbMemoryError, PermissionError):
    """The store can be read but not written (a read-only file or directory, or opened with ``read_only``)."""


class CorruptStoreError(CbMemoryError):
    """The store's file is damaged (its integrity check failed); nothing was written to it."""


class WriteConflictError(CbMemoryError):
    """Another writer changed what this write depended on (e.g. appended to the same session first).
    Nothing was written; the operation can be retried."""


class RecipeMismatchWarning(UserWarning):
    """A search used a recipe whose ingest settings differ from the ones this memory writes with: its records
    are indexed another way than the recipe was measured with (or lack the kinds it searches), so its
    results are not what the recipe promises. Said once per recipe and memory."""
