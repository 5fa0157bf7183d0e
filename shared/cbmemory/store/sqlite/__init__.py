"""The embedded store: one SQLite file (``SQLiteStore``). ``SCHEMA_VERSION``: the layout version of the files
this cbmemory writes (an older file is upgraded when opened)."""

from .sql import SCHEMA_VERSION
from .store import SQLiteStore

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]
