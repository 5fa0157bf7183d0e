"""Issue 31: what keeping a vector of what each user turn states (``text.stated``) would add to ingest, the cost
side of moving the current-value stage's statement embedding from read time to write time. One LoCoMo conversation
at x1, timed three times, per turn of the conversation:

- ``alone``: the stated texts of the user's turns embedded a session at a time, in calls of their own;
- ``one call``: every turn's indexed text (the default recipe's ingest, ``build_records``) embedded in one call, as
  ``add_sessions`` of the whole conversation does, without and with the stated texts in the same call.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/said_cost.py [DATA] [CONVERSATION]
"""

import sys
import time
from datetime import datetime, timezone

from cbmemory import get_recipe
from cbmemory.embedding import MiniLMEmbedder
from cbmemory.ingest import build_records
from cbmemory.text import stated
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks


def timed(emb: MiniLMEmbedder, calls: list[list[str]], turns: int) -> str:
    t = time.perf_counter()
    for texts in calls:
        if texts:
            emb.embed(texts)
    took = time.perf_counter() - t
    return f"{took:.2f} s, {1000 * took / turns:.1f} ms a turn"


def main() -> None:
    data = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/locomo/locomo-dev.json"
    conv = sys.argv[2] if len(sys.argv) > 2 else "conv-26"
    hs = scaled_haystacks([c for c in load_locomo(data) if c.sample_id == conv], 1)[conv]
    cfg, now = get_recipe("default").ingest, datetime(2026, 1, 1, tzinfo=timezone.utc)
    indexed: list[str] = []
    said: list[list[str]] = []
    for sid, messages, at in hs.batches():
        indexed += [r.index_text for r in build_records(hs.user_id, sid, messages, at, now, config=cfg)]
        said.append([s for m in messages if m.role == "user" and (s := stated(m.content))])
    emb = MiniLMEmbedder()
    emb.embed(["warm up"])
    print(f"{conv}: {hs.turns} turns, {sum(map(len, said))} stated user texts")
    for _ in range(3):
        print("alone:", timed(emb, said, hs.turns), "| one call, indexed only:", timed(emb, [indexed], hs.turns),
              "| one call, indexed + stated:", timed(emb, [indexed + [s for x in said for s in x]], hs.turns))


if __name__ == "__main__":
    main()
