"""Issue 33: the same hits (ids and scores) on the first 5 questions of each LoCoMo dev conversation, on a
memory file and on its export imported into another (round_trip.sh makes both).

    PYTHONPATH=shared:. .venv/bin/python experiments/transfer/same_hits.py OUT    # OUT: round_trip.sh's folder
"""

import json
import sys

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder

e = MiniLMEmbedder()
data = json.load(open("../shared/data/locomo/locomo-dev.json"))
qs = [
    (
        f"conv-{c['sample_id'].split('-')[-1]}" if not c["sample_id"].startswith("conv") else c["sample_id"],
        q["question"],
    )
    for c in data
    for q in c["qa"][:5]
]
a = AgentMemory.open(sys.argv[1] + "/a.db", embedder=e, read_only=True, create=False)
b = AgentMemory.open(sys.argv[1] + "/b.db", embedder=e, read_only=True, create=False)
users = a.store.users()
same = n = 0
for u, q in qs:
    if u not in users:
        continue
    ha = [(h.record.record_id, h.score) for h in a.search(q, u)]
    hb = [(h.record.record_id, h.score) for h in b.search(q, u)]
    n += 1
    same += ha == hb
print(
    f"identical hit lists (ids and scores): {same}/{n} questions (first 5 of each conversation), users {users}"
)
