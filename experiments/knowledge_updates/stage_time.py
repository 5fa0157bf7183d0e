"""Issue 31: the time of ``AgentMemory.recall`` for the knowledge-update questions on a run's work stores
(``eval locomo-updates --keep-text``): each user's store opened with a fresh embedder, every question asked twice
(a first pass, then again), with the current-value stage on or off. Prints p50 / p95 / max / mean in ms.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/stage_time.py RUN dev x10 on|off
"""

import sys
import time

import numpy as np

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.recipes import get_recipe
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate


def main(run: str, family: str, scale: str, on: bool) -> None:
    recipe = get_recipe("default").with_(current_value=on)
    by_user: dict[str, list] = {}
    for c in generate(load_locomo("../shared/data/locomo/locomo-dev.json"), family):
        by_user.setdefault(c.user_id, []).append(c)
    first: list[float] = []
    again: list[float] = []
    for user, cases in by_user.items():
        mem = AgentMemory.open(f"{run}/work/{user}-{scale}-{family}.db", embedder=MiniLMEmbedder())
        mem.recall("warm up the model", user + "-nobody")
        for out in (first, again):
            for c in cases:
                t0 = time.perf_counter()
                mem.recall(c.question, user, today=c.question_date, recipe=recipe)
                out.append((time.perf_counter() - t0) * 1000)
        mem.close()
    for name, ms in (("first", np.array(first)), ("again", np.array(again))):
        print(f"{name}: n {ms.size} p50 {np.percentile(ms, 50):.1f} p95 {np.percentile(ms, 95):.1f} "
              f"max {ms.max():.1f} mean {ms.mean():.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "on")
