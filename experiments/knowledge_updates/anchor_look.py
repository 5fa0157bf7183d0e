"""Issue 31, a look (train only): the rank of a change's current statement among the user's statements later than the
stale one, by what each states (the vectors the store keeps, ``derived``) against three probes: the stale statement
itself (the anchor), the question's slot descriptions (the stage's detector), the question. Split by whether the
product showed the current value. argv: family, a ``cbmemory eval locomo-updates --keep-text`` run folder (x1).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/anchor_look.py train RUN
"""
import collections
import json
import sqlite3
import sys

import numpy as np

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.retrieval import current_value as C

fam, run = sys.argv[1], sys.argv[2]
emb = MiniLMEmbedder()
protos = C.prototypes(emb.embed_query, emb.embed_queries)
names, owner, rows = protos
cases = [json.loads(line) for line in open(f"{run}/cases-{fam}-x1.jsonl")]
out = collections.Counter()
ranks = []
for case in cases:
    if not case["is_change"]:
        continue
    conv, kind, var = case["user_id"], case["kind"], case["variant"]
    db = sqlite3.connect(f"{run}/work/{conv}-x1-{fam}.db")
    recs = db.execute("select r.record_id, r.turn_id, r.occurred_at, r.position, r.text, d.vector from records r join derived d "
                      "on d.record_id = r.record_id where r.role='user' and r.kind='turn'").fetchall()
    byturn = {t: i for i, (_, t, *_r) in enumerate(recs) if t}
    anchor_t = f"upd|{kind}|{'new' if var == 'revert' else 'old'}|0"
    cur_t = f"upd|{kind}|{'back' if var == 'revert' else 'new'}|0"
    if anchor_t not in byturn or cur_t not in byturn:
        out["missing"] += 1
        continue
    V = np.stack([np.frombuffer(r[5], dtype=np.float32) for r in recs])
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    a, c = byturn[anchor_t], byturn[cur_t]
    later = [i for i, r in enumerate(recs) if (r[2], r[3]) > (recs[a][2], recs[a][3])]
    sim_a = V[later] @ V[a]
    slot = C.slot_of(emb.embed_query(case["question"]), protos, C.QUESTION_FLOOR, C.QUESTION_MARGIN)
    qv = emb.embed_query(case["question"])
    qv = qv / np.linalg.norm(qv)
    sim_q = V[later] @ qv
    if slot is not None:
        sim_s = C.by_slots(V[later], protos)[:, names.index(slot)]
    else:
        sim_s = np.zeros(len(later))
    j = later.index(c)
    ra = int((sim_a > sim_a[j]).sum()) + 1
    rs = int((sim_s > sim_s[j]).sum()) + 1
    rq = int((sim_q > sim_q[j]).sum()) + 1
    ranks.append((case["case_id"], var, case["new_shown"], len(later), ra, rs, rq, float(sim_a[j])))
for shown in (True, False):
    sub = [r for r in ranks if r[2] is shown]
    print(f"new_shown={shown} n={len(sub)} later median {np.median([r[3] for r in sub]):.0f}")
    for k in (1, 3, 5, 8, 15):
        print(f"  @{k}: anchor {sum(r[4] <= k for r in sub)}  slot {sum(r[5] <= k for r in sub)}  question {sum(r[6] <= k for r in sub)}")
print(out)
json.dump(ranks, open(f"{run}/anchor-{fam}.json", "w"))
