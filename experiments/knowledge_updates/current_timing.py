"""Issue 31: per-question recall time with the current-value stage on and off (whatever the default), on one benchmark
store (a ``cbmemory eval locomo-updates`` run's ``work/<conv>-x1-<family>.db``), the `test` questions of that
conversation, each three times (the first pass embeds the statements the stage finds; later ones hit the
embedder's cache).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/current_timing.py STORE.db conv-26
"""

import shutil
import statistics
import sys
import time

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate

src, user = sys.argv[1], sys.argv[2]
copy = src + ".timing.db"
shutil.copyfile(src, copy)
convs = load_locomo(sys.argv[3] if len(sys.argv) > 3 else "../shared/data/locomo/locomo-dev.json")
cases = [c for c in generate(convs, "test") if c.user_id == user]
mem = AgentMemory.open(copy, embedder=MiniLMEmbedder())
on = get_recipe("default").with_(name="default_on", current_value=True)
off = get_recipe("default").with_(name="default_off", current_value=False)
t0 = time.perf_counter()
mem.recall(cases[0].question, user, recipe=on, today=cases[0].question_date)
cold = time.perf_counter() - t0
for c in cases:  # the question vectors cached for both
    mem.recall(c.question, user, recipe=off, today=c.question_date)
res: dict[str, list[float]] = {"on": [], "off": []}
for _ in range(3):
    for name, r in (("off", off), ("on", on)):
        for c in cases:
            t = time.perf_counter()
            mem.recall(c.question, user, recipe=r, today=c.question_date)
            res[name].append(time.perf_counter() - t)
for k, v in res.items():
    v = sorted(v)
    print(f"{k} median {1000 * statistics.median(v):.1f} ms p95 {1000 * v[int(0.95 * len(v)) - 1]:.1f} ms n {len(v)}")
print(f"first question of a fresh process (model load, prototypes embedded): {1000 * cold:.0f} ms")
