"""Issue 31: the local reader with the current-value stage's statements in a block of their own just before the
question (the rule and its result: README in this folder). The context is the default recipe's with the stage
off; the block holds the stage's selection (``current_value.latest_statements``: the newest ``LATEST`` of the
``TOP`` statements nearest the matter, shown elsewhere or not), in date order, each as the context shows a
memory. Answers are compared with ``reader-guide-*-nearest.jsonl`` (the default: the stage's statements inside
the first hit's context), from the same stores.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reader_block.py WORK_DIR OUT.jsonl \
        --family train --first 12
"""

import json
import time
from collections.abc import Iterator
from pathlib import Path

from reader_guide import drawn, reader_args  # this folder's: the same draw and arguments

from cbmemory import AgentMemory
from cbmemory.context import DEFAULT_CONTEXT, answer_messages
from cbmemory.context.render import memory_line
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.llm import make_chat_model
from cbmemory.models import SearchFilters
from cbmemory.recipes import get_recipe
from cbmemory.retrieval import current_value as C
from cbmemory_eval.qa import invoke_text
from cbmemory_eval.updates.reader import answer_verdict

BLOCK = "The user's latest statements on this matter (in date order; a later one replaces an earlier one):"


WHO = "In the memories, the user is {name}: the lines of {name} are the user's own words."
GUIDANCE_END = "the latest one holds now."


def user_speaker(mem: AgentMemory, user: str) -> str:
    """The speaker name of the user's own turns (the most common one)."""
    names = [r.speaker for r in mem.store.list_records(user, SearchFilters(kinds=("turn",)))
             if r.role == "user" and r.speaker]
    return max(set(names), key=names.count)


def latest(mem: AgentMemory, user: str, question: str) -> list:
    """The stage's selection for ``question`` (shown elsewhere or not)."""
    emb = mem.embedder
    return C.latest_statements(mem.store, lambda t: emb.embed_query(t, user_id=user), user, question,
                               SearchFilters(), None, lambda ts: emb.embed(ts, user_id=user))


def pending(args, chosen, out: Path) -> Iterator[tuple]:
    """The ``chosen`` cases not answered in ``out`` yet, each with its conversation's store (``args.work``,
    ``args.family``; opened once, all closed at the end)."""
    done = {r["case_id"] for r in map(json.loads, out.read_text().splitlines())} if out.exists() else set()
    emb = MiniLMEmbedder()
    mems: dict[str, AgentMemory] = {}
    try:
        for c in chosen:
            if c.case_id in done:
                continue
            if c.user_id not in mems:
                mems[c.user_id] = AgentMemory.open(Path(args.work) / f"{c.user_id}-x1-{args.family}.db", embedder=emb)
            yield c, mems[c.user_id]
    finally:
        for m in mems.values():
            m.close()


def answer_row(llm, msgs, c, text: str, layout: str, out: Path, **extra) -> dict:
    """The reader's answer to ``msgs`` for case ``c`` (whose context is ``text``), with its verdict, appended to
    ``out`` as one JSON line (``extra`` before the layout) and printed."""
    t0 = time.perf_counter()
    answer = invoke_text(llm, msgs)
    row = {"case_id": c.case_id, "variant": c.variant, "condition": layout, "current": c.current,
           "stale": c.stale, "answer": answer, "verdict": answer_verdict(answer, c.current, c.stale),
           "current_in_text": c.current.lower() in text.lower(), "stale_in_text": c.stale.lower() in text.lower(),
           **extra, "layout": layout, "seconds": round(time.perf_counter() - t0, 1)}
    with out.open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(row["case_id"], row["verdict"], row["seconds"], flush=True)
    return row


def main():
    ap = reader_args()
    ap.add_argument("--dry", action="store_true", help="print the prompts, ask nothing")
    ap.add_argument("--layout", choices=("block", "who"), default="block",
                    help="block: the stage's statements before the question; who: the default's context, the user "
                         "named after the date guidance")
    args = ap.parse_args()
    chosen = drawn(args)
    llm = None if args.dry else make_chat_model(args.model, args.base_url, max_tokens=64)
    out = Path(args.out)
    off = get_recipe("default").with_(current_value=False)
    for c, mem in pending(args, chosen, out):
        if args.layout == "block":
            rec = mem.recall(c.question, c.user_id, recipe=off, today=c.question_date)
            block = latest(mem, c.user_id, c.question)
            text = rec.context.text
            if block:
                text += "\n\n" + BLOCK + "\n" + "\n".join(memory_line(r, rec.config or DEFAULT_CONTEXT) for r in block)
        else:
            rec = mem.recall(c.question, c.user_id, today=c.question_date)
            block, text = [], rec.context.text
        msgs = answer_messages(c.question, text, c.question_date, rec.config or DEFAULT_CONTEXT)
        if args.layout == "who":
            name = user_speaker(mem, c.user_id)
            msgs[0] = (msgs[0][0], msgs[0][1].replace(GUIDANCE_END, GUIDANCE_END + " " + WHO.format(name=name), 1))
        if args.dry:
            print("=====", c.case_id, c.current, "/", c.stale)
            print(msgs[0][1])
            print(msgs[-1][1][-1500:])
            continue
        answer_row(llm, msgs, c, text, args.layout, out, block=len(block))


if __name__ == "__main__":
    main()
