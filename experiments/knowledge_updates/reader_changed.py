"""Issue 31: the local reader on the cases whose context a lever changed, before and after (README, "The local reader
on the contexts the question head changed"): two runs' case files (``cbmemory eval locomo-updates ... --keep-text``,
one family), the contexts that differ, each answered with the prompt ``--llm`` uses (``answer_messages``; the stored
text is the context, then the guidance and "Today is", which the prompt adds itself).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reader_changed.py BEFORE_RUN AFTER_RUN OUT.jsonl [FAMILY] [values]

``values``: only the cases whose context changed in which values it shows (newest, stale), not in its other lines.

The local server must be running (``../shared/tools/local-llm/serve.sh``)."""
import json
import sys
from pathlib import Path

from cbmemory.context import DEFAULT_CONTEXT, answer_messages
from cbmemory.llm import make_chat_model
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.qa import invoke_text
from cbmemory_eval.updates.generate import generate
from cbmemory_eval.updates.reader import answer_verdict

before, after, out = sys.argv[1:4]
rows = {n: {r["case_id"]: r for r in map(json.loads, open(next(Path(d).glob("cases-*.jsonl"))))}
        for n, d in (("before", before), ("after", after))}
family = sys.argv[4] if len(sys.argv) > 4 else "fresh"
data = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"  # ../shared beside the repo
cases = {c.case_id: c for c in generate(load_locomo(data), family, seed=0)}
changed = sorted(k for k in rows["before"] if rows["before"][k]["text"] != rows["after"][k]["text"])
if "values" in sys.argv[5:]:
    changed = [k for k in changed if any(rows["before"][k][f] != rows["after"][k][f] for f in ("new_shown", "stale_shown"))]
llm = make_chat_model("local-gguf", "http://127.0.0.1:8765/v1", api_key="local", max_tokens=64)
with open(out, "w") as f:
    for k in changed:
        c = cases[k]
        for side in ("before", "after"):
            shown = rows[side][k]["text"]  # rec.text: the context, then the guidance and "Today is": the context alone
            shown = shown[:shown.rindex("\nEach memory starts with the date")]
            text = invoke_text(llm, answer_messages(c.question, shown, c.question_date, DEFAULT_CONTEXT))
            rec = {"case_id": k, "side": side, "variant": c.variant, "is_change": c.is_change, "current": c.current,
                   "stale": c.stale, "new_shown": rows[side][k]["new_shown"], "stale_shown": rows[side][k]["stale_shown"],
                   "answer": text, "verdict": answer_verdict(text, c.current, c.stale)}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(k, side, rec["verdict"], repr(text[:60]), flush=True)
