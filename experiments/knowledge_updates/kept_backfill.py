"""Issue 31: copies of the benchmark's stores whose user turns have the vectors a write of this version keeps
(``statements.kept_texts``: what each user turn states), as if written by it; ``--clauses``: the statements'
clauses too (the variant measured and not kept). For the read timings and the selection check (the same hits and
contexts as without them) of experiments/knowledge_updates/README.md, "Keeping what each user turn states".

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/kept_backfill.py /tmp/r/p10/work /tmp/r/d10
"""

import argparse
import glob
import os
import shutil
import time

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval.statements import kept_texts
from cbmemory.store.sqlite import write as w
from cbmemory.text import clauses, content_hash


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--clauses", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.dst, exist_ok=True)
    emb = MiniLMEmbedder()
    for db in sorted(glob.glob(os.path.join(args.src, "conv-*-x*-t*[nt].db"))):
        t = time.perf_counter()
        out = os.path.join(args.dst, os.path.basename(db))
        shutil.copyfile(db, out)
        user = os.path.basename(db).split("-x")[0]
        mem = AgentMemory.open(out, embedder=emb)
        mem.store._check_writable()  # a store's first write makes the table (file.LATER)
        parts = {}
        for r in mem.store.list_records(user):
            kept = kept_texts(r)
            parts[r.record_id] = tuple(dict.fromkeys((*kept, *clauses(kept[0])))) if kept and args.clauses else kept
        texts = list(dict.fromkeys(x for ts in parts.values() for x in ts))
        vecs = dict(zip(texts, mem.embedder.embed(texts, user_id=user), strict=True))
        with mem.store._db.tx() as c:
            w.keep_derived(c, dict.fromkeys(parts, user),
                           [(rid, content_hash(x), vecs[x]) for rid, ts in parts.items() for x in ts])
        mem.close()
        print(os.path.basename(db), len(parts), "records", len(texts), "texts", f"{time.perf_counter() - t:.1f} s",
              flush=True)


if __name__ == "__main__":
    main()
