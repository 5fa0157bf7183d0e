"""The embedded store's learned sparse vectors (``SparseVectors``, a part of ``SQLiteStore``): binding
a sparse encoder, searching the users' sparse vectors (inverted by term in memory: cache.SparseIndex),
and the records written before the binding, which have none until ``set_sparse`` gives them one (kept in a
partial index of the file, so listing them never reads the whole table).
"""

from __future__ import annotations

import sqlite3

import numpy as np

from ...dates import utcnow
from ...embedding.sparse import SparseVector
from ...errors import EmbedderMismatchError, InvalidInputError
from ...models import NO_FILTERS, MemoryRecord
from . import file as sf
from . import sql as q
from . import write as w
from .core import SQLiteFile
from .sql import row_to_record

_NO_TERMS = np.empty(0, np.int32)
_NO_TERMS.setflags(write=False)


class SparseVectors:
    """The sparse vectors of ``SQLiteStore`` (its contract methods of the same names, inputs checked), on its
    file."""

    def __init__(self, db: SQLiteFile):
        self._db = db

    def bind(self, name: str) -> None:
        if self._db.read_only:  # check only
            with self._db.tx(write=False) as c:
                self._check_sparse_binding(c, name)
            return
        with self._db.tx(write=False) as c:  # bound already: a read, never a write transaction
            if not self._check_sparse_binding(c, name):
                return
        self._db.check_writable()
        with self._db.tx() as c:
            if self._check_sparse_binding(c, name):
                c.execute("INSERT INTO meta VALUES ('sparse_encoder_name', ?)", (name,))
                # the records already here (if any) have no sparse vector: indexed until set_sparse gives
                # them one, so users_missing_sparse reads no record written since
                c.execute(q.WITHOUT_SPARSE_INDEX)

    def _check_sparse_binding(self, c: sqlite3.Connection, name: str) -> bool:
        """Whether ``name`` may be bound and is not yet (raises when it may not be). A store holding records
        may be bound: they have no sparse vector until :meth:`set_sparse` gives them one."""
        have = sf.meta(c, "sparse_encoder_name")
        if have == name:
            return False
        if have is not None:
            raise EmbedderMismatchError(f"{self._db.path} holds sparse vectors from {have!r}; it cannot be searched "
                                        f"or written with {name!r}")
        return True

    @property
    def bound(self) -> str | None:
        return self._db.meta("sparse_encoder_name")

    def terms(self, user_id: str) -> np.ndarray:
        """From the user's sparse index in memory (``SparseIndex.terms``: every record of the user's columns,
        expired ones too), loaded as a search loads it; none while no sparse encoder is bound."""
        with self._db.tx(write=False) as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                return _NO_TERMS
            return self._db.refresh(c, user_id).sparse.terms()

    def users_missing(self) -> list[str]:
        """In user id order. Read from the partial index of records without a sparse vector that binding
        makes (its records: those written before), not from the whole table."""
        now = utcnow().timestamp()
        with self._db.tx(write=False) as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                return []
            return [r[0] for r in c.execute(
                "SELECT DISTINCT user_id FROM records WHERE sparse_ids IS NULL "
                "AND (expires_at IS NULL OR expires_at > ?) ORDER BY user_id", (now,))]

    def records_without(self, user_id: str, limit: int | None) -> list[MemoryRecord]:
        where, params = q.filter_clause(user_id, NO_FILTERS, utcnow().timestamp())
        if limit is not None:
            params["limit"] = limit
        with self._db.tx(write=False) as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                return []
            rows = c.execute(q.list_select(f"{where} AND r.sparse_ids IS NULL", False, limit is not None),
                             params).fetchall()
        return [row_to_record(r) for r in rows]

    def set(self, user_id: str, vectors: dict[str, SparseVector]) -> int:
        """One transaction. A record given its vector changes the user's ``delete_seq`` (as a replaced record
        does), so every process reloads the user's columns, sparse index included, on its next search."""
        with self._db.tx() as c:
            if sf.meta(c, "sparse_encoder_name") is None:
                raise InvalidInputError("bind a sparse encoder to the store before setting sparse vectors")
            n = w.set_sparse(c, user_id, vectors)
            touched = {user_id: True} if n else {}
            w.mark_users(c, touched)
            pending = w.wipe_pending(c) is not None
        for user in touched:
            self._db.cache.drop(user)
        if pending:
            self._db.wipe()
        return n
