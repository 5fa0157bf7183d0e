"""Issue 31: the local reader's stale-answer rate with the current-value stage off and on, question by
question, on the fixed draw of the benchmark (``reader.fixed_subset``: 20 changes of a family, seed 0, drawn
from the case ids alone), each answered twice from the same memory (the benchmark's store for that
conversation, with the injected turns): the default recipe with ``current_value`` off, then on. One JSON
line per question as it is answered, so an interrupted run keeps what it has.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reader_pairs.py WORK_DIR OUT.jsonl \
        [--family test] [--base-url http://127.0.0.1:8765/v1] [--model local-gguf]

WORK_DIR: a ``cbmemory eval locomo-updates`` run's ``work`` folder (its ``<conv>-x1-<family>.db`` files).
"""

import argparse
import json
import shutil
import time
from pathlib import Path

from cbmemory import AgentMemory, get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.llm import make_chat_model
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate
from cbmemory_eval.updates.reader import fixed_subset, make_answerer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("out")
    ap.add_argument("--family", default="test")
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    ap.add_argument("--model", default="local-gguf")
    ap.add_argument("--n", type=int, default=20)
    args = ap.parse_args()
    cases = generate(load_locomo(args.data), args.family, seed=0)
    ids = fixed_subset(cases, args.n, 0)
    chosen = sorted((c for c in cases if c.case_id in ids), key=lambda c: c.case_id)
    answer = make_answerer(make_chat_model(args.model, args.base_url, max_tokens=64))
    on = get_recipe("default").with_(current_value=True)
    off = on.with_(name="default_off", current_value=False)
    emb = MiniLMEmbedder()
    with open(args.out, "a", encoding="utf-8") as out:
        for c in chosen:
            src = Path(args.work) / f"{c.user_id}-x1-{args.family}.db"
            copy = Path(args.out).with_suffix(".db")
            shutil.copyfile(src, copy)
            mem = AgentMemory.open(copy, embedder=emb)
            try:
                row = {"case_id": c.case_id, "variant": c.variant, "current": c.current, "stale": c.stale}
                for name, recipe in (("off", off), ("on", on)):
                    rec = mem.recall(c.question, c.user_id, today=c.question_date, recipe=recipe)
                    t = time.perf_counter()
                    row[name] = {**answer(c, rec), "current_in_text": c.current in rec.text,
                                 "stale_in_text": c.stale in rec.text, "seconds": round(time.perf_counter() - t, 1)}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
            finally:
                mem.close()


if __name__ == "__main__":
    main()
