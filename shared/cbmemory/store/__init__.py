"""Store backends behind one contract (``MemoryStore``)."""

from .base import MemoryStore, StoreCapabilities
from .sqlite import SQLiteStore

__all__ = ["MemoryStore", "SQLiteStore", "StoreCapabilities"]
