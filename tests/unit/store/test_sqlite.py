"""Unit layer (store.sqlite): arguments ``SQLiteStore`` refuses before it opens anything, and the per-user
sparse index of its in-memory columns (sqlite_cache.SparseIndex) against ``SparseMatrix`` and ``sparse_dot``."""

from __future__ import annotations

import numpy as np
import pytest

from cbmemory.embedding.sparse import SparseMatrix, SparseVector, sparse_dot
from cbmemory.errors import (
    CorruptStoreError,
    InvalidInputError,
)
from cbmemory.store import SQLiteStore
from cbmemory.store.sqlite import cache as sc
from cbmemory.store.sqlite.write import sparse_blobs


def test_a_memory_store_cannot_be_read_only():
    with pytest.raises(InvalidInputError):
        SQLiteStore(":memory:", read_only=True)


def random_vector(rng: np.random.Generator, vocab: int = 300) -> SparseVector | None:
    n = int(rng.integers(0, 40))
    if rng.random() < 0.1:
        return None  # a record stored without a sparse vector
    ids = np.sort(rng.choice(vocab, size=n, replace=False))
    return SparseVector(ids, rng.random(n).astype(np.float32) * 3)


def append(index: sc.SparseIndex, vectors: list[SparseVector | None]) -> None:
    blobs = [sparse_blobs(v) for v in vectors]
    index.append([b[0] for b in blobs], [b[1] for b in blobs])


def test_sparse_index_scores_equal_the_matrix_of_all_vectors_through_appends_and_merges(monkeypatch):
    monkeypatch.setattr(sc, "_TAIL_ENTRIES", 200)  # merge often
    rng = np.random.default_rng(7)
    index, stored = sc.SparseIndex(), []
    merged = 0
    for _ in range(60):
        batch = [random_vector(rng) for _ in range(int(rng.integers(1, 12)))]
        append(index, batch)
        stored += batch
        before = index.matrix
        query = random_vector(rng) or SparseVector(np.array([1]), np.array([1.0]))
        got = index.scores(query)
        merged += index.matrix is not before
        full = SparseMatrix.from_vectors([v or SparseVector(np.zeros(0, np.int32), np.zeros(0)) for v in stored])
        assert np.array_equal(got, full.scores(query))  # bit for bit: same terms summed in the same order
        assert got == pytest.approx([0.0 if v is None else sparse_dot(v, query) for v in stored])
    assert merged >= 3 and index.n == len(stored) and index.nnz == full.nnz


def test_sparse_index_never_builds_its_matrix_before_a_search():
    index = sc.SparseIndex()
    append(index, [SparseVector(np.array([2, 5]), np.array([1.0, 2.0]))] * 50_000)
    assert index.matrix is None and index.nnz == 100_000
    scores = index.scores(SparseVector(np.array([5]), np.array([0.5])))
    assert index.matrix is not None and index.matrix.n_docs == 50_000  # the tail outgrew the threshold
    assert np.all(scores == 1.0)


def test_sparse_index_of_records_without_sparse_vectors_scores_zero():
    index = sc.SparseIndex()
    index.append([None, None], [None, None])
    assert index.scores(SparseVector(np.array([1]), np.array([1.0]))).tolist() == [0.0, 0.0]


@pytest.mark.parametrize("ids, weights", [(b"\0" * 8, b"\0" * 4), (b"\0" * 4, None), (b"\0" * 3, b"\0" * 3)])
def test_sparse_index_refuses_a_damaged_stored_vector(ids, weights):
    with pytest.raises(CorruptStoreError):
        sc.SparseIndex().append([ids], [weights])



def test_the_public_schema_version_is_what_a_new_store_says_and_names_the_study_s_store_files(monkeypatch):
    from cbmemory.ingest import DEFAULT_INGEST
    from cbmemory.store import SCHEMA_VERSION
    from cbmemory_eval import run_state

    with SQLiteStore(":memory:") as store:
        assert store.stats()["schema_version"] == SCHEMA_VERSION
    now = run_state.store_file_name("f", DEFAULT_INGEST, "e")
    monkeypatch.setattr(run_state, "SCHEMA_VERSION", "next")  # a new layout gets new files
    assert run_state.store_file_name("f", DEFAULT_INGEST, "e") != now
