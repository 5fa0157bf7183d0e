"""Where a SPLADE-tiny query encoding spends its time: the pieces of ``SpladeEncoder.encode_query`` timed one
by one on LoCoMo dev questions (one at a time, as a live query is), with and without the output layer
restricted to a user's indexed word pieces.

Pieces: tokenizer (``Tokenizer.encode``), the embeddings and the two layers (``hidden_states``), the MLM
transform (dense + GELU + layer norm), the output product (``t @ decoder.T`` over the 30,522 word pieces, or
over the user's), the pooling (max over tokens, bias, ``log1p(relu)``, top-128).

    OPENBLAS_NUM_THREADS=1 .venv/bin/python experiments/splade_query/profile_query.py --questions 100
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from cbmemory.embedding.sparse import SparseVector
from cbmemory.embedding.splade import SpladeEncoder, gelu, layer_norm
from cbmemory_eval.datasets.locomo import default_path, load_locomo
from cbmemory_eval.questions import from_locomo

REPS = 5  # each piece timed this many times per question; its median is the question's figure


def _ms(f: Callable[[], object], reps: int = REPS) -> tuple[float, object]:
    """The median of ``reps`` timings of ``f`` in ms (a busy machine's preemptions fall outside it), and
    ``f``'s result."""
    took = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        took.append(time.perf_counter() - t0)
    return 1000 * float(np.median(took)), out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(default_path() or ""))
    p.add_argument("--questions", type=int, default=100)
    p.add_argument("--terms", help="a .npy of term ids (increasing) to restrict to (default: none); encode_query "
                                   "then takes them too")
    p.add_argument("--out")
    args = p.parse_args()
    es = from_locomo(load_locomo(args.data))
    questions = [q.question for q in es.questions[: args.questions]]
    enc = SpladeEncoder(max_terms=128)
    model, tok = enc._load()
    enc.encode_query("warm up")
    terms = np.load(args.terms).astype(np.int32) if args.terms else None
    decoder = model.decoder if terms is None else np.ascontiguousarray(model.decoder[terms])
    bias = model.decoder_bias if terms is None else model.decoder_bias[terms]
    pieces: dict[str, list[float]] = {k: [] for k in ("tokenizer", "layers", "transform", "output", "pooling",
                                                      "total", "encode_query")}
    lengths = []
    for text in questions:
        t_tok, ids = _ms(lambda text=text: tok.encode(text).ids)
        lengths.append(len(ids))
        arr = np.asarray([ids], dtype=np.int64)
        mask = np.ones(arr.shape, dtype=bool)
        t_lay, h = _ms(lambda arr=arr, mask=mask: model.hidden_states(arr, mask)[mask])
        t_tr, t = _ms(lambda h=h: layer_norm(gelu(h @ model.transform[0] + model.transform[1]),
                                             *model.transform_norm, model.eps))
        t_out, logits = _ms(lambda t=t: t @ decoder.T)

        def pool(logits: np.ndarray = logits) -> SparseVector:
            row = logits.max(axis=0) + bias
            nz = np.flatnonzero(row > 0)
            ids = nz if terms is None else terms[nz]
            return SparseVector(ids, np.log1p(row[nz])).top(128)
        t_pool, _ = _ms(pool)
        t_all, _ = _ms(lambda text=text: enc.encode_query(text, terms=terms))
        for k, v in zip(pieces, (t_tok, t_lay, t_tr, t_out, t_pool, t_tok + t_lay + t_tr + t_out + t_pool, t_all),
                        strict=True):
            pieces[k].append(v)
    res = {k: {"median": round(float(np.median(v)), 3), "p95": round(float(np.percentile(v, 95)), 3),
               "mean": round(float(np.mean(v)), 3)} for k, v in pieces.items()}
    info = {"questions": len(questions), "tokens_median": float(np.median(lengths)), "tokens_max": max(lengths),
            "output_rows": int(decoder.shape[0]), "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
            "load": os.getloadavg(), "ms": res}
    print(json.dumps(info, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
