"""Issue 31: the write-time rules (cbmemory.ingest.updates) on statement pairs: the generated changes of a
phrasing family (train/test) and each plain LoCoMo dev user statement against its 8 nearest earlier ones.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/pairs.py train|test
"""

import json
import os
import pickle
import sys
from collections import Counter

import numpy as np

from cbmemory.embedding import MiniLMEmbedder
from cbmemory.ingest import updates as U
from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.updates.generate import generate

convs = load_locomo("../shared/data/locomo/locomo-dev.json")
emb = MiniLMEmbedder()
cache = "/tmp/cbmemory_pairs_emb.pkl"
E = pickle.load(open(cache, "rb")) if os.path.exists(cache) else {}


def vec(texts):
    miss = [t for t in dict.fromkeys(texts) if t not in E]
    if miss:
        V = emb.embed_documents(miss) if hasattr(emb, "embed_documents") else emb.embed(miss)
        for t, v in zip(miss, V, strict=True):
            E[t] = np.asarray(v, np.float32)
    return np.stack([E[t] for t in texts])


fam = sys.argv[1] if len(sys.argv) > 1 else "train"
cases = generate(convs, fam)
rows = []
for c in cases:
    inj = {i.step: i for i in c.injections}
    old = inj["old"].messages[0].content
    if c.variant == "other":
        new = inj["other"].messages[0].content
        label = False
        pairs = [(new, old, False, c)]
    elif c.variant == "revert":
        pairs = [
            (inj["new"].messages[0].content, old, True, c),
            (inj["back"].messages[0].content, inj["new"].messages[0].content, True, c),
        ]
    else:
        pairs = [(inj["new"].messages[0].content, old, True, c)]
    for new, o, lab, cc in pairs:
        v = vec([new, o])
        s = float(v[0] @ v[1])
        rows.append((cc.user_id, cc.kind, cc.variant, lab, U.changes(new, o, s), s, new, o))
tp = sum(1 for r in rows if r[3] and r[4])
fn = sum(1 for r in rows if r[3] and not r[4])
fp = sum(1 for r in rows if not r[3] and r[4])
print(
    f"{fam}: positives {tp + fn} found {tp} recall {tp / (tp + fn):.3f}; other-variant false links {fp}/{sum(1 for r in rows if not r[3])}"
)

print("missed by variant", Counter(r[2] for r in rows if r[3] and not r[4]))
if "-v" in sys.argv:
    for r in rows:
        if r[3] != r[4]:
            print(r[2], r[1], round(r[5], 2), "|", r[6], "||", r[7])
# plain LoCoMo: speaker A statements vs their nearest 8 earlier statements
if "--plain" in sys.argv:
    total = 0
    out = []
    for conv in convs:
        turns = [
            (s.date, s.session_id, i, m.content)
            for s in conv.sessions
            for i, m in enumerate(s.messages)
            if m.role == "user"
        ]
        turns.sort()
        texts = [t[3] for t in turns]
        V = vec(texts)
        S = V @ V.T
        n = 0
        for j in range(len(texts)):
            if not U.is_statement(texts[j]):
                continue
            cand = [e for e in np.argsort(-S[j, :j])[: U.MAX_CANDIDATES] if U.is_statement(texts[e])]
            for e in cand:
                if U.changes(texts[j], texts[e], float(S[j, e])):
                    n += 1
                    out.append((conv.sample_id, round(float(S[j, e]), 2), texts[j], texts[e]))
        print(conv.sample_id, "user statements", len(texts), "links", n)
        total += n
    print("plain links", total)
    json.dump(out, open("/tmp/cbmemory_plain_links.json", "w"), indent=0)
pickle.dump(E, open(cache, "wb"))
if "--why" in sys.argv:
    for r in rows:
        if r[3] and not r[4]:
            new, o, s = r[6], r[7], r[5]
            print(
                r[2],
                r[1],
                round(s, 2),
                "slots",
                sorted(U.slots(new)),
                sorted(U.slots(o)),
                "cue",
                bool(U.CHANGE.search(new)),
                "vals",
                sorted(U.values(new)),
                sorted(U.values(o)),
                "ppl",
                sorted(U.people(new)),
                sorted(U.people(o)),
                "fp",
                bool(U.FIRST_PERSON.search(new)),
            )
