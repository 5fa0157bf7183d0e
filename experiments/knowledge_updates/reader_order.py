"""Issue 31: the local reader with the default's context laid out so that the newest value comes first (the rule and
its result: README in this folder, "Which value the reader meets first").

- ``default``: the default recipe's context as it is (to answer the draw's questions not answered before);
- ``newest``: every memory line of that context in reverse date order (header and prompt unchanged);
- ``lead``: the current-value stage's statements (``current_value.latest_statements``) that the context shows moved to
  its top, newest first; the other lines as they are.

One JSON line per question as it is answered (a rerun skips what is there), as ``reader_guide.py`` writes them.

    PYTHONPATH=shared:.:experiments/knowledge_updates .venv/bin/python experiments/knowledge_updates/reader_order.py \
        WORK_DIR OUT.jsonl --family train --first 12 --layout lead [--skip 12]
"""

from pathlib import Path

from reader_block import answer_row, latest, pending
from reader_guide import drawn, reader_args

from cbmemory.context import DEFAULT_CONTEXT, answer_messages
from cbmemory.context.changes import CHANGED_GUIDE
from cbmemory.context.render import memory_line
from cbmemory.llm import make_chat_model


def split(text: str) -> tuple[list[str], list[str]]:
    """A context's head (its header, and the changed-guide line when there is one) and its memory lines."""
    lines = text.split("\n")
    n = 2 if len(lines) > 1 and lines[1] == CHANGED_GUIDE else 1
    return lines[:n], lines[n:]


def laid_out(text: str, layout: str, first: list[str]) -> str:
    """``text`` (a context) with its memory lines reordered by ``layout``; ``first``: the stage's lines, oldest first."""
    if not text or layout == "default":
        return text
    head, lines = split(text)
    if layout == "newest":
        return "\n".join([*head, *reversed(lines)])
    # lead: the stage's lines the context shows (a line may carry a change mark after it), newest first
    moved = [line for s in reversed(first) for line in lines if line == s or line.startswith(s + " [")]
    rest = [line for line in lines if line not in moved]
    return "\n".join([*head, *moved, *rest])


def main():
    ap = reader_args()
    ap.add_argument("--layout", choices=("default", "newest", "lead"), required=True)
    ap.add_argument("--skip", type=int, default=0, help="leave out the draw's first N (in case-id order)")
    ap.add_argument("--dry", action="store_true", help="print the contexts, ask nothing")
    args = ap.parse_args()
    chosen = drawn(args)[args.skip:]
    llm = None if args.dry else make_chat_model(args.model, args.base_url, max_tokens=64)
    out = Path(args.out)
    for c, mem in pending(args, chosen, out):
        rec = mem.recall(c.question, c.user_id, today=c.question_date)
        config = rec.config or DEFAULT_CONTEXT
        first = [memory_line(r, config) for r in latest(mem, c.user_id, c.question)] if args.layout == "lead" else []
        text = laid_out(rec.context.text, args.layout, first)
        assert sorted(text.split("\n")) == sorted(rec.context.text.split("\n")), c.case_id  # the same lines
        msgs = answer_messages(c.question, text, c.question_date, config)
        if args.dry:
            print("=====", c.case_id, c.current, "/", c.stale)
            print(text[:2500])
            continue
        answer_row(llm, msgs, c, text, args.layout, out)


if __name__ == "__main__":
    main()
