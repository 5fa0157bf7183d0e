"""Unit layer (store.sqlite): arguments ``SQLiteStore`` refuses before it opens anything."""

from __future__ import annotations

import pytest

from cbmemory.errors import (
    InvalidInputError,
)
from cbmemory.store import SQLiteStore


def test_a_memory_store_cannot_be_read_only():
    with pytest.raises(InvalidInputError):
        SQLiteStore(":memory:", read_only=True)
