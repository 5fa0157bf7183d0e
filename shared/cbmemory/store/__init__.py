"""Store backends behind one contract (``MemoryStore``). ``CouchbaseStore`` loads the SDK only when used."""

from typing import Any

from .base import MemoryStore
from .filters import admits
from .sqlite import SQLiteStore

__all__ = ["CouchbaseStore", "MemoryStore", "SQLiteStore", "admits"]


def __getattr__(name: str) -> Any:
    if name == "CouchbaseStore":
        from .couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(name)
