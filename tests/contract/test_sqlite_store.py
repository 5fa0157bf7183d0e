"""Contract layer: the embedded SQLite store (a real file in WAL mode) against the store contract."""

import pytest

from cbmemory.store import SQLiteStore

from .store_contract import StoreContract


class TestSQLiteStoreContract(StoreContract):
    @pytest.fixture
    def store(self, tmp_path):
        s = SQLiteStore(tmp_path / "contract.db")
        yield s
        s.close()
