"""Store backends behind one contract (``MemoryStore``, ``base``), searched by ``Signal`` (``signals``);
one package per backend (``sqlite``, ``couchbase``). ``CouchbaseStore`` loads the SDK only when used.
``SCHEMA_VERSION``: the layout version of the SQLite stores this cbmemory writes (what a new store's
``stats()["schema_version"]`` says; an older file is upgraded when opened)."""

from typing import Any

from .base import MemoryStore
from .filters import admits
from .signals import Signal
from .sqlite import SCHEMA_VERSION, SQLiteStore

__all__ = ["SCHEMA_VERSION", "CouchbaseStore", "MemoryStore", "SQLiteStore", "Signal", "admits"]


def __getattr__(name: str) -> Any:
    if name == "CouchbaseStore":
        from .couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(name)
