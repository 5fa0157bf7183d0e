"""Issue 31: the opt-in write-time supersession links (``IngestConfig(link_updates=True)``) on another kind of
conversation than LoCoMo: the LongMemEval sample's haystack (53 sessions, 550 turns of a user talking to an
assistant). Every link goes to ``--out`` for a person to label (the ``locomo-updates --sample-links`` format:
``label`` null, to be set to ``update`` or ``not``); ``--labels`` scores a labelled file.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/lme_links.py \
        --data ../shared/data/longmemeval/samples/longmemeval_single.json --out links.jsonl
    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/lme_links.py --labels links.jsonl
"""

import argparse
import json
import tempfile
from pathlib import Path

from cbmemory import AgentMemory
from cbmemory.ingest.config import IngestConfig
from cbmemory_eval.datasets.longmemeval import load_longmemeval
from cbmemory_eval.updates.links import score_labels, store_links, write_sample


def links(data: str) -> list[dict]:
    """Every link the rules make in each question's haystack, ingested as one user."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, q in enumerate(load_longmemeval(data)):
            path = Path(tmp) / f"q{i}.db"
            mem = AgentMemory.open(path, ingest=IngestConfig(link_updates=True))
            try:
                mem.add_sessions(q.question_id, [(s.session_id, list(s.messages), s.date) for s in q.sessions])
            finally:
                mem.close()
            out += store_links(path, q.question_id)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", help="a LongMemEval file")
    p.add_argument("--out", help="where the links go, one JSON line each")
    p.add_argument("--labels", help="a labelled file to score")
    args = p.parse_args()
    if args.data and args.out:
        found = links(args.data)
        write_sample(found, Path(args.out))
        print(len(found), "links ->", args.out)
    if args.labels:
        print(json.dumps(score_labels(Path(args.labels))))


if __name__ == "__main__":
    main()
