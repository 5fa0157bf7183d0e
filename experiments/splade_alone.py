"""SPLADE-tiny alone on LoCoMo: evidence recall per category, encoding speed and query latency.

One turn is one document, built by the ingest code itself (``build_records``), in up to four variants:

- ``raw``: the turn's own text, as said;
- ``undated``: the indexed text without the date (``Caroline: ...`` plus the image caption), what the
  ``vector_no_dates`` recipe indexes;
- ``dated``: the indexed text of the default ingest (``[Sunday, 7 May 2023] Caroline: ...`` plus the image
  caption), what the ``vector`` and ``bm25`` recipes index;
- ``context``: the same with the turn it answers in front (``IngestConfig(with_previous_turn=True)``), what
  the ``default`` recipe indexes.

Each question is encoded alone (as a live query is) and scored against its own conversation's documents only
(one user per conversation, as the eval harness does); the ranked turns go through
``cbmemory_eval.metrics.retrieval_metrics`` with the question's evidence. Averages count questions with
evidence; "overall" counts all five categories, as the README's tables do.

The document vectors are cached (``--cache``, an ``.npz``) with the settings they were made with, so a rerun
only encodes the queries; ``--fresh`` encodes everything again (and so measures the encoding speed).

    .venv/bin/python experiments/splade_alone.py                      # LoCoMo dev, every variant
    .venv/bin/python experiments/splade_alone.py --max-terms all,128,64 --variants dated
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from cbmemory.embedding.sparse import SparseMatrix, SparseVector
from cbmemory.embedding.splade import SpladeEncoder
from cbmemory.ingest import IngestConfig
from cbmemory.ingest.records import build_records
from cbmemory.text import content_hash
from cbmemory_eval.datasets.locomo import default_path, load_locomo
from cbmemory_eval.metrics import aggregate, retrieval_metrics
from cbmemory_eval.questions import EvalSet, from_locomo

VARIANTS = {"raw": IngestConfig(), "undated": IngestConfig(anchor_dates=False), "dated": IngestConfig(),
            "context": IngestConfig(with_previous_turn=True)}
KS = (1, 5, 10, 20, 50)
CACHE_VERSION = 1
INGESTED_AT = datetime(2030, 1, 1, tzinfo=timezone.utc)  # records need one; nothing here reads it


@dataclass(frozen=True)
class Corpus:
    """One variant's documents: parallel lists of user, turn id and text."""

    users: tuple[str, ...]
    turns: tuple[str, ...]
    texts: tuple[str, ...]


def corpus(es: EvalSet, variant: str) -> Corpus:
    users, turns, texts = [], [], []
    for user, hay in es.haystacks.items():
        for session in hay.sessions:
            for rec in build_records(user, session.session_id, session.messages, session.date, INGESTED_AT,
                                     config=VARIANTS[variant]):
                users.append(user)
                turns.append(rec.turn_id or rec.record_id)
                texts.append(rec.text if variant == "raw" else rec.index_text)
    return Corpus(tuple(users), tuple(turns), tuple(texts))


def _digest(texts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8") + b"\x1e")
    return h.hexdigest()


def load_cached(path: Path, variant: str, encoder: SpladeEncoder, docs: Corpus) -> list[SparseVector] | None:
    """The variant's document vectors from the cache, if it holds them for exactly these texts and encoder."""
    if not path.exists():
        return None
    with np.load(path) as z:
        if f"{variant}/indptr" not in z.files:
            return None
        meta = json.loads(str(z[f"{variant}/meta"]))
        if meta != _meta(encoder, docs):
            return None
        indptr, ids, weights = z[f"{variant}/indptr"], z[f"{variant}/ids"], z[f"{variant}/weights"]
    return [SparseVector(ids[a:b], weights[a:b]) for a, b in zip(indptr[:-1], indptr[1:], strict=True)]


def _meta(encoder: SpladeEncoder, docs: Corpus) -> dict[str, object]:
    return {"version": CACHE_VERSION, "encoder": encoder.name, "texts_sha256": _digest(docs.texts),
            "n": len(docs.texts)}


def save_cache(path: Path, store: dict[str, tuple[SpladeEncoder, Corpus, list[SparseVector]]]) -> None:
    """Every variant's vectors, one CSR triple (``<variant>/indptr``, ``/ids``, ``/weights``: document i's terms
    are ``ids[indptr[i]:indptr[i + 1]]``), plus each document's user, turn id and ``content_hash`` of its text,
    and the settings they were made with (``/meta``)."""
    arrays: dict[str, np.ndarray] = {}
    if path.exists():
        with np.load(path) as z:
            arrays.update({k: z[k] for k in z.files})
    for variant, (encoder, docs, vecs) in store.items():
        lengths = np.array([len(v) for v in vecs], dtype=np.int64)
        arrays[f"{variant}/indptr"] = np.concatenate(([0], np.cumsum(lengths)))
        arrays[f"{variant}/ids"] = np.concatenate([v.ids for v in vecs])
        arrays[f"{variant}/weights"] = np.concatenate([v.weights for v in vecs])
        arrays[f"{variant}/users"] = np.array(docs.users)
        arrays[f"{variant}/turns"] = np.array(docs.turns)
        arrays[f"{variant}/hashes"] = np.array([content_hash(t) for t in docs.texts])  # as the store keys vectors
        arrays[f"{variant}/meta"] = np.array(json.dumps(_meta(encoder, docs)))
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(path)


def evaluate(es: EvalSet, docs: Corpus, vecs: Sequence[SparseVector], queries: Sequence[SparseVector],
             ks: Sequence[int]) -> tuple[dict[str, dict[str, float | None]], float]:
    """Per-category and overall metric means, and the mean scoring time per question in ms."""
    per_user: dict[str, tuple[SparseMatrix, list[str]]] = {}
    for user in es.haystacks:
        idx = [i for i, u in enumerate(docs.users) if u == user]
        per_user[user] = (SparseMatrix.from_vectors([vecs[i] for i in idx]), [docs.turns[i] for i in idx])
    rows: dict[str, list[dict[str, float | None]]] = {}
    search_s = 0.0
    for q, qv in zip(es.questions, queries, strict=True):
        matrix, turns = per_user[q.user_id]
        start = time.perf_counter()
        best, _ = matrix.top(qv, max(ks))
        search_s += time.perf_counter() - start
        m = retrieval_metrics(q.evidence, [frozenset((turns[i],)) for i in best], ks)
        rows.setdefault(q.category, []).append(m)
        rows.setdefault("overall", []).append(m)
        if not q.unanswerable:
            rows.setdefault("overall_answerable", []).append(m)
    table = {name: aggregate(r) | {"n": float(sum(1 for x in r if x[f"recall@{ks[0]}"] is not None))}
             for name, r in rows.items()}
    return table, 1000 * search_s / max(1, len(es.questions))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(default_path() or ""), help="LoCoMo file (default: locomo-dev.json)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated: {', '.join(VARIANTS)}")
    p.add_argument("--max-terms", default="all", help="comma-separated: all, or a number of terms kept")
    p.add_argument("--cache", default="/tmp/splade_cache.npz", help="document vectors cache ('' for none)")
    p.add_argument("--fresh", action="store_true", help="encode the documents again even if cached")
    p.add_argument("--out", help="also write the results as JSON here")
    args = p.parse_args(argv)
    if not args.data or not Path(args.data).exists():
        print(f"LoCoMo is not at {args.data!r}; pass --data", file=sys.stderr)
        return 2
    es = from_locomo(load_locomo(args.data))
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variants {unknown}; known: {list(VARIANTS)}")
    cuts = [None if c.strip() == "all" else int(c) for c in args.max_terms.split(",")]
    encoder = SpladeEncoder()
    cache = Path(args.cache) if args.cache else None
    load_before = os.getloadavg()
    results: dict[str, object] = {"data": args.data, "encoder": encoder.name, "cpus": os.cpu_count(),
                                  "questions": len(es.questions), "variants": {},
                                  "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS")}
    print(f"# SPLADE-tiny alone on {Path(args.data).name}: {len(es.haystacks)} conversations, "
          f"{len(es.questions)} questions; load average {load_before[0]:.2f} at start", file=sys.stderr)

    start = time.perf_counter()
    encoder.encode_query("load the model")
    results["load_s"] = time.perf_counter() - start
    queries, took = [], []
    for q in es.questions:
        start = time.perf_counter()
        queries.append(encoder.encode_query(q.question))
        took.append(1000 * (time.perf_counter() - start))
    results["query_encode_ms"] = {"mean": float(np.mean(took)), "p50": float(np.percentile(took, 50)),
                                  "p95": float(np.percentile(took, 95))}
    to_save: dict[str, tuple[SpladeEncoder, Corpus, list[SparseVector]]] = {}
    for variant in variants:
        docs = corpus(es, variant)
        vecs = None if (args.fresh or cache is None) else load_cached(cache, variant, encoder, docs)
        speed = None
        if vecs is None:
            start = time.perf_counter()
            vecs = encoder.encode_documents(list(docs.texts))
            speed = len(vecs) / (time.perf_counter() - start)
        to_save[variant] = (encoder, docs, vecs)
        nnz = np.array([len(v) for v in vecs])
        info: dict[str, object] = {"docs": len(vecs), "docs_per_s": speed, "nnz_mean": float(nnz.mean()),
                                   "nnz_p95": float(np.percentile(nnz, 95)), "by_max_terms": {}}
        for cut in cuts:
            dv = vecs if cut is None else [v.top(cut) for v in vecs]
            qv = queries if cut is None else [q.top(cut) for q in queries]
            table, search_ms = evaluate(es, docs, dv, qv, KS)
            info["by_max_terms"][str(cut or "all")] = {"search_ms": search_ms, "metrics": table}  # type: ignore[index]
        results["variants"][variant] = info  # type: ignore[index]
    if cache is not None and to_save:
        save_cache(cache, to_save)
    results["load_average"] = {"start": load_before, "end": os.getloadavg()}
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    _print(results, [c.name for c in es.categories])
    return 0


def _print(results: dict, categories: list[str]) -> None:
    cols = [*categories, "overall", "overall_answerable"]
    qms = results["query_encode_ms"]
    print(f"model load {results['load_s']:.2f} s; query encoding, one at a time: mean {qms['mean']:.1f} ms, "
          f"p50 {qms['p50']:.1f}, p95 {qms['p95']:.1f}")
    print(f"load average: start {results['load_average']['start'][0]:.2f}, "
          f"end {results['load_average']['end'][0]:.2f} ({results['cpus']} CPUs; "
          f"OPENBLAS_NUM_THREADS={results['OPENBLAS_NUM_THREADS']})\n")
    print("| variant | max terms | " + " | ".join(cols) + " | R@5 | R@50 | nDCG@10 |")
    print("|---|---|" + "---|" * (len(cols) + 3))
    for variant, info in results["variants"].items():
        for cut, res in info["by_max_terms"].items():
            m = res["metrics"]
            cells = [_fmt(m.get(c, {}).get("recall@10")) for c in cols]
            extra = [_fmt(m["overall"].get(x)) for x in ("recall@5", "recall@50", "ndcg@10")]
            print(f"| {variant} | {cut} | " + " | ".join(cells + extra) + " |")
    print()
    for variant, info in results["variants"].items():
        speed = info["docs_per_s"]
        search = ", ".join(f"{c}: {r['search_ms']:.2f}" for c, r in info["by_max_terms"].items())
        print(f"{variant}: {info['docs']} documents, "
              f"{'cached' if speed is None else f'{speed:.0f} docs/s'}; non-zero terms mean "
              f"{info['nnz_mean']:.0f}, p95 {info['nnz_p95']:.0f}; scoring ms/query by max terms: {search}")


if __name__ == "__main__":
    raise SystemExit(main())
