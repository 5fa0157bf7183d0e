"""Issue 29 item 1: precision and recall of the echo label (``cbmemory.agent``: ``can_echo`` and ``restated``)
on the hand-labelled set ``tests/data/echoes.jsonl``: turns of an agent step, each with the memories its step
showed (dated 5 May 2023, said by the user), labelled ``echo`` when the turn adds nothing the shown lines lack
(a question about them, a restatement) and not when it carries a new fact, a correction, a commitment, or asks
about something else. Positive class: echo. Runs against whichever ``cbmemory`` is on the path (main's too):

    PYTHONPATH=shared:. .venv/bin/python -m experiments.agent_loop.echo_labels [--misses]
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from cbmemory import ContextConfig, MemoryRecord, Message
from cbmemory.agent import can_echo, restated

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "echoes.jsonl"
SAID = datetime(2023, 5, 5, 18, 0, tzinfo=timezone.utc)


def shown_records(texts: list[str]) -> list[MemoryRecord]:
    return [MemoryRecord(f"r{i}", "u", "s", "turn", i, "user", t, t, SAID, SAID, "h", turn_id=f"r{i}", speaker="user")
            for i, t in enumerate(texts)]


def labelled(item: dict) -> bool:
    """Whether the echo rule on the path labels this turn an echo."""
    extra = {"role": item["role"]} if "role" in inspect.signature(restated).parameters else {}
    turn = Message(item["role"], item["text"])
    return can_echo(turn) and bool(restated(item["text"], shown_records(item["shown"]), ContextConfig(), **extra))


def score(items: list[dict]) -> dict:
    tally = Counter((item["echo"], labelled(item)) for item in items)
    tp, fp, fn = tally[True, True], tally[False, True], tally[True, False]
    return {"items": len(items), "echoes": tp + fn, "tp": tp, "fp": fp, "fn": fn,
            "precision": tp / (tp + fp) if tp + fp else 1.0, "recall": tp / (tp + fn) if tp + fn else 1.0}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--misses", action="store_true", help="print every turn the rule labels wrong")
    args = p.parse_args()
    items = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(json.dumps(score(items)))
    for kind in sorted({i["kind"] for i in items}):
        part = [i for i in items if i["kind"] == kind]
        print(kind, sum(labelled(i) for i in part), "of", len(part), "labelled echo")
    if args.misses:
        for i in items:
            if labelled(i) != i["echo"]:
                print("MISS", i["id"], i["role"], i["echo"], i["text"])


if __name__ == "__main__":
    main()
