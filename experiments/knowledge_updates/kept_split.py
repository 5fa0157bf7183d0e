"""Issue 31: where a first-person question's first pass spends its time: 12 `test` questions of one store, each once,
in one process (after one question that embeds the stage's descriptions), total seconds and the part spent
embedding clauses (``told_in_passing``). Run on a store without kept vectors and on copies with them
(kept_backfill.py).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/kept_split.py STORE.db conv-41
"""

import shutil
import sys
import time

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as cv
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate

src, user = sys.argv[1], sys.argv[2]
copy = src + ".split.db"
shutil.copyfile(src, copy)
cases = [c for c in generate(load_locomo("../shared/data/locomo/locomo-dev.json"), "test") if c.user_id == user]
emb = MiniLMEmbedder()
emb.embed(["warm up"])
mem = AgentMemory.open(copy, embedder=emb)
spent = {"texts": 0, "seconds": 0.0}
told = cv.told_in_passing


def timed(pool, protos, slot, many):
    def embed(texts):
        t = time.perf_counter()
        v = many(texts)
        spent["texts"] += len(texts)
        spent["seconds"] += time.perf_counter() - t
        return v
    return told(pool, protos, slot, embed)


cv.told_in_passing = timed
mem.recall("Where do I live these days?", user)  # the descriptions embedded
spent.update(texts=0, seconds=0.0)
total = 0.0
for c in cases[:12]:
    t = time.perf_counter()
    mem.recall(c.question, user, today=c.question_date)
    total += time.perf_counter() - t
print(f"12 questions {total:.2f} s; clauses embedded {spent['texts']} in {spent['seconds']:.2f} s")
