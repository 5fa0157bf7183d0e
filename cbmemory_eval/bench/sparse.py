"""The bench's recipes with the sparse signal (``default_sparse``: vector + BM25 + SPLADE-tiny).

What is real and what is synthetic. The records, their texts and their dense vectors are the size's
synthetic ones (``bench.synthetic``), as for every recipe. Their sparse vectors are not made up: a copy of
the size's file gets them from the real SPLADE-tiny encoder (the one an ``AgentMemory`` of the recipe uses),
encoding each record's (synthetic) index text through the store's backfill API (``records_without_sparse``,
``set_sparse``, as ``AgentMemory`` fills a store), at about 90 records a second on 2 busy cores with one BLAS
thread, which is why sizes above ``BenchConfig.sparse_max_size`` (10,000 by default) are not measured. Each
timed search encodes its query's sparse vector with the real encoder, inside the call, as
``AgentMemory.search`` does (over the word pieces of the user's sparse vectors, ``MemoryStore.sparse_terms``;
cbmemory's ``memory/sparse.py``), in both the "excluded" column (dense query vector precomputed) and the
"included" one (the encoder: ``bench.sparse_encoding``).

A fresh process (``bench.worker`` task ``sparse``) makes the copy, fills it, times the query's sparse
encoding alone (over the user's pieces, and over all 30,522 as every search paid before issue 25), then
times the sparse recipes' searches on the copy exactly as the other recipes' (``measure.task_search``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rows import JSON, SearchResult, Timing

SPARSE_MAX_SIZE = 10_000


@dataclass(frozen=True, slots=True)
class SparseSize:
    """A size's sparse vectors and its queries' sparse encoding: ``records`` given vectors by ``encoder``
    (the real one, on the synthetic index texts) in ``seconds``; the distinct word pieces they hold
    (``terms``); the copy's size; the query's encoding alone, p50/p95/p99 as for searches, over the user's
    pieces (``query_encoding``, what a search pays) and over all of them (``query_encoding_all_terms``)."""

    encoder: str
    records: int
    seconds: float
    records_per_s: float
    terms: int
    file_bytes: int
    query_encoding: Timing
    query_encoding_all_terms: Timing

    def to_json(self) -> JSON:
        return {"encoder": self.encoder, "records": self.records, "seconds": self.seconds,
                "records_per_s": self.records_per_s, "terms": self.terms, "file_bytes": self.file_bytes,
                "query_encoding": self.query_encoding.to_json(),
                "query_encoding_all_terms": self.query_encoding_all_terms.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SparseSize:
        return cls(str(d["encoder"]), int(d["records"]), float(d["seconds"]), float(d["records_per_s"]),
                   int(d["terms"]), int(d["file_bytes"]), Timing.from_json(d["query_encoding"]),
                   Timing.from_json(d["query_encoding_all_terms"]))


@dataclass(frozen=True, slots=True)
class SparseResult:
    """The ``sparse`` worker's result: the size's sparse row and the sparse recipes' searches."""

    size: SparseSize
    search: SearchResult

    def to_json(self) -> JSON:
        return {"size": self.size.to_json(), "search": self.search.to_json()}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SparseResult:
        return cls(SparseSize.from_json(d["size"]), SearchResult.from_json(d["search"]))


def task_sparse(spec: Mapping[str, Any]) -> SparseResult:
    """Copy ``source_db`` to ``db``, give its records sparse vectors from the real ``encoder``, time the
    queries' sparse encoding alone, then the ``recipes``' searches on the copy (``measure.task_search``)."""
    from cbmemory.store import SQLiteStore

    from .measure import file_bytes, load_queries, progress, task_search
    from .sparse_encoding import encoder_named, fill_sparse
    from .timing import time_calls

    with closing(sqlite3.connect(spec["source_db"])) as src, closing(sqlite3.connect(spec["db"])) as dst:
        src.backup(dst)  # a consistent copy, WAL or not
    encoder = encoder_named(spec["encoder"])
    store = SQLiteStore(spec["db"])
    progress(f"sparse: encoding {store.count():,} records with {encoder.name}")
    t0 = time.perf_counter()
    filled = fill_sparse(store, encoder)
    seconds = time.perf_counter() - t0
    queries = load_queries(spec["queries_file"])
    user = queries[0].user_id
    terms = store.sparse_terms(user)
    reps, warm = int(spec["repeats"]), int(spec["warmup"])
    restricted = time_calls(lambda q: encoder.encode_query(q.text, terms=store.sparse_terms(user)), queries,
                            repeats=reps, warmup=warm)
    every = time_calls(lambda q: encoder.encode_query(q.text), queries, repeats=reps, warmup=warm)
    store.close()
    size = SparseSize(encoder.name, filled, round(seconds, 2), round(filled / seconds, 1) if seconds else 0.0,
                      0 if terms is None else int(terms.size), file_bytes(spec["db"]), restricted, every)
    return SparseResult(size, task_search(dict(spec)))


def run_sparse(source_db: Path, queries_file: Path, encoder: str, recipes: Sequence[str], common: Mapping[str, object],
               included: bool, log: Callable[[str], None]) -> SparseResult:
    """The sparse recipes at one size, in their own process, on a copy of the size's file (``-sparse.db``)."""
    from .process import run_worker

    db = source_db.with_name(source_db.stem + "-sparse.db")
    res = run_worker("sparse", {**common, "source_db": str(source_db), "db": str(db), "encoder": encoder,
                                "queries_file": str(queries_file), "recipes": list(recipes), "included": included},
                     SparseResult, progress=log)
    s = res.size
    log(f"[bench] sparse: {s.records:,} records encoded at {s.records_per_s:.0f}/s, {s.terms:,} word pieces; "
        f"query encoding p95 {s.query_encoding.p95_ms} ms (over all pieces {s.query_encoding_all_terms.p95_ms})")
    return res


__all__ = ["SPARSE_MAX_SIZE", "SparseResult", "SparseSize", "run_sparse", "task_sparse"]
