"""Store backends behind one contract (``MemoryStore``). ``CouchbaseStore`` loads the SDK only when used.
``SCHEMA_VERSION``: the layout version of the SQLite stores this cbmemory writes (what a new store's
``stats()["schema_version"]`` says; an older file is upgraded when opened)."""

from typing import Any

from .base import MemoryStore
from .filters import admits
from .sqlite import SQLiteStore
from .sqlite_sql import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "CouchbaseStore", "MemoryStore", "SQLiteStore", "admits"]


def __getattr__(name: str) -> Any:
    if name == "CouchbaseStore":
        from .couchbase import CouchbaseStore

        return CouchbaseStore
    raise AttributeError(name)
