"""Issue 31, a look: the local reader (``../shared/tools/local-llm``, served on 127.0.0.1:8765) answers from the
default recall after a later statement that only looks like a change (a past, a stay, an old number, a previous
employer) and after two real changes; sentences of my own. ``--links``: the memory links updates when written.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/reader_probes.py [--links]
"""

import argparse
import dataclasses
import json
import os
import tempfile
from datetime import datetime, timezone

from langchain_openai import ChatOpenAI

from cbmemory import AgentMemory, get_recipe
from cbmemory.context import DEFAULT_CONTEXT, answer_messages
from cbmemory.embedding import MiniLMEmbedder
from cbmemory_eval.qa import invoke_text
from cbmemory_eval.updates.reader import answer_verdict

TODAY = datetime(2023, 7, 1, tzinfo=timezone.utc)
CASES = [  # (first, later, question, what holds, the other value)
    ("I live in Inverness and I love my neighbourhood.", "I lived in Aberdeen for ten years before I came here.",
     "Which city do I live in?", "Inverness", "Aberdeen"),
    ("I live in Inverness and I love my neighbourhood.", "This week I am based in Aberdeen for the audit.",
     "Which city do I live in?", "Inverness", "Aberdeen"),
    ("My number is 0752 119 3387.", "My old number was 0745 330 8172, do not use it.", "What is my phone number?",
     "0752 119 3387", "0745 330 8172"),
    ("I work at Quillon Labs, mostly on the planning side.", "My previous employer was Marsh & Finch, long hours.",
     "Where do I work?", "Quillon Labs", "Marsh & Finch"),
    ("I live in Inverness and I love my neighbourhood.", "Big news: I moved to Aberdeen last week.",
     "Which city do I live in?", "Aberdeen", "Inverness"),
    ("I work at Marsh & Finch, mostly on the planning side.", "I started a new job at Quillon Labs this month.",
     "Where do I work?", "Quillon Labs", "Marsh & Finch"),
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--links", action="store_true")
    args = ap.parse_args()
    llm = ChatOpenAI(base_url="http://127.0.0.1:8765/v1", api_key="local", model="local-gguf", temperature=0)
    ingest = dataclasses.replace(get_recipe("default").ingest, link_updates=True) if args.links else None
    emb = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as d:
        for i, (first, later, question, holds, other) in enumerate(CASES):
            m = AgentMemory.open(os.path.join(d, f"m{i}.db"), embedder=emb, ingest=ingest)
            m.add_session("ana", "s1", [{"role": "user", "content": first},
                                        {"role": "assistant", "content": "Nice!"}], date="2023-05-07")
            m.add_session("ana", "s2", [{"role": "user", "content": "The weather has been lovely for walks."},
                                        {"role": "assistant", "content": "Lovely."}], date="2023-05-20")
            m.add_session("ana", "s3", [{"role": "user", "content": later},
                                        {"role": "assistant", "content": "I see."}], date="2023-06-10")
            rec = m.recall(question, "ana", today=TODAY)
            answer = invoke_text(llm, answer_messages(question, rec.context.text, TODAY, rec.config or DEFAULT_CONTEXT))
            verdict = {"current": "holds", "stale": "other"}.get(answer_verdict(answer, holds, other), "both/neither")
            print(json.dumps({"later": later, "marked": "no longer current" in rec.context.text, "verdict": verdict,
                              "answer": answer[:100]}))
            m.close()


if __name__ == "__main__":
    main()
