"""Issue 31: the local reader's answers to the benchmark's fixed draw of changes (``reader.fixed_subset``: 20
changes of a family, seed 0, drawn from the case ids alone) under three conditions, from the same memory (a
``cbmemory eval locomo-updates`` run's ``work/<conv>-x1-<family>.db``, the injected turns in it):

- ``off``: the default recipe with the current-value stage off, cbmemory's answer prompt;
- ``on``: the stage on (``RetrievalConfig.current_value``), the same prompt;
- ``guide``: the stage on, the prompt with ``GUIDE`` after the date guidance (run before the sentence shipped);
- ``before``: the product before issue 31's read-time changes (the stage off, no sentence on the latest
  statement); ``default``: the default recipe and prompt as they are.

One JSON line per (question, condition) as it is answered, so an interrupted run keeps what it has and a rerun
skips what is there. The rule for the decision was written before the run (README in this folder).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reader_guide.py WORK_DIR OUT.jsonl \
        [--family train] [--conditions off,on,guide] [--base-url http://127.0.0.1:8765/v1]
"""

import argparse
import json
import time
from pathlib import Path

from cbmemory import AgentMemory
from cbmemory.context import DEFAULT_CONTEXT, answer_messages
from cbmemory.context.prompt import LATEST_HOLDS
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.llm import make_chat_model
from cbmemory.recipes import get_recipe
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.qa import invoke_text
from cbmemory_eval.updates.generate import generate
from cbmemory_eval.updates.reader import answer_verdict, fixed_subset

GUIDE = "When the user's statements on the same matter differ, the one said latest holds now."


def reader_args() -> argparse.ArgumentParser:
    """The arguments of a reader run over the fixed draw (this script's and ``reader_block.py``'s)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("out")
    ap.add_argument("--family", default="train")
    ap.add_argument("--data", default="../shared/data/locomo/locomo-dev.json")
    ap.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    ap.add_argument("--model", default="local-gguf")
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--first", type=int, help="only the first N of the draw, in case-id order")
    ap.add_argument("--cases", help="only these case ids of it (comma-separated): the ones whose context changed")
    return ap


def drawn(args: argparse.Namespace) -> list:
    """The fixed draw of ``args.family`` (``--n`` changes, seed 0), in case-id order, its first ``--first``."""
    cases = generate(load_locomo(args.data), args.family, seed=0)
    ids = fixed_subset(cases, args.n, 0)
    chosen = sorted((c for c in cases if c.case_id in ids), key=lambda c: c.case_id)[: args.first]
    only = set(args.cases.split(",")) if getattr(args, "cases", None) else None
    return [c for c in chosen if only is None or c.case_id in only]


def main():
    ap = reader_args()
    ap.add_argument("--conditions", default="off,on,guide")
    args = ap.parse_args()
    chosen = drawn(args)
    llm = make_chat_model(args.model, args.base_url, max_tokens=64)
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {(r["case_id"], r["condition"]) for r in map(json.loads, out.read_text().splitlines())}
    base = get_recipe("default")
    recipes = {"off": base.with_(current_value=False), "on": base.with_(current_value=True),
               "guide": base.with_(current_value=True), "before": base.with_(current_value=False), "default": base}
    emb = MiniLMEmbedder()
    mems = {}
    for c in chosen:
        for cond in args.conditions.split(","):
            if (c.case_id, cond) in done:
                continue
            if c.user_id not in mems:
                mems[c.user_id] = AgentMemory.open(Path(args.work) / f"{c.user_id}-x1-{args.family}.db", embedder=emb)
            rec = mems[c.user_id].recall(c.question, c.user_id, recipe=recipes[cond], today=c.question_date)
            msgs = answer_messages(c.question, rec.context.text, c.question_date, rec.config or DEFAULT_CONTEXT)
            if cond == "guide":
                msgs[0] = (msgs[0][0], msgs[0][1] + "\n" + GUIDE)
            if cond == "before":  # the product before this stop: no stage, no sentence on the latest statement
                msgs[0] = (msgs[0][0], msgs[0][1].replace(LATEST_HOLDS, ""))
            t0 = time.perf_counter()
            text = invoke_text(llm, msgs)
            row = {"case_id": c.case_id, "variant": c.variant, "condition": cond, "current": c.current,
                   "stale": c.stale, "answer": text, "verdict": answer_verdict(text, c.current, c.stale),
                   "current_in_text": c.current.lower() in rec.context.text.lower(),
                   "stale_in_text": c.stale.lower() in rec.context.text.lower(),
                   "seconds": round(time.perf_counter() - t0, 1)}
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(row["case_id"], cond, row["verdict"], row["seconds"], flush=True)
    for m in mems.values():
        m.close()


if __name__ == "__main__":
    main()
