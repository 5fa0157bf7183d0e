"""Contract layer: the data the store contract writes (not a test module): hand-made unit vectors and sparse
vectors, whose rankings are worked out by hand, and sessions of turns built by the ingest code."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from cbmemory.embedding.sparse import SparseVector
from cbmemory.ingest import build_records, validate_messages
from cbmemory.models import Session

DIM = 8
T0 = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
NOW = datetime(2024, 1, 1, tzinfo=timezone.utc)


def unit(i: int, j: int | None = None, w: float = 0.0) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    if j is not None:
        v[j] = w
    return v / np.linalg.norm(v)


def sparse(weights: dict[int, float]) -> SparseVector:
    """A hand-made sparse vector: term id -> weight."""
    ids = sorted(weights)
    return SparseVector(np.array(ids, dtype=np.int32), np.array([weights[i] for i in ids], dtype=np.float32))


def session_batch(user, session, texts, *, date=T0, expires_at=None, annotations=None, ingested=NOW):
    msgs = validate_messages([{"role": "user" if i % 2 == 0 else "assistant", "content": t,
                               "turn_id": f"{session}:{i}"} for i, t in enumerate(texts)])
    recs = build_records(user, session, msgs, date, ingested, expires_at=expires_at, annotations=annotations)
    return Session(user, session, date), recs
