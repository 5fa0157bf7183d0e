"""Issue 31: how much of each kind's plain statements the claim rules read, and whether the claim's values name the
value (the values ``followed.claimed_anew`` and ``named_again`` follow). For each benchmark kind and family: of the
family's ``state`` and ``change`` sentences, formatted with each of the family's values, how many claim the kind
(``cbmemory.claims``) and of those how many have the value among their claims' values (``followed.claimed_values``,
the kinds' words included). ``-v`` prints the sentences that claim nothing or whose claim names no value (do not use
it on ``dev`` or ``test``: they are counted only).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/value_coverage.py [FAMILY ...] [-v]
"""

import importlib
import sys

from contest_counts import CLAIM_KINDS  # the benchmark's kinds and the claim rule each is read by

from cbmemory.claims import claims
from cbmemory.retrieval.followed import claimed_values

K = importlib.import_module("cbmemory_eval.updates.kinds")
G = importlib.import_module("cbmemory_eval.updates.generate")

verbose = "-v" in sys.argv
fams = [a for a in sys.argv[1:] if a != "-v"] or ["train", "fresh", "blind", "probe"]
for kd in K.KINDS:
    kind = CLAIM_KINDS.get(kd.name)
    row = []
    for fam in fams:
        n = claimed = valued = 0
        for slot in ("state", "change"):
            for val in G.family_values(fam, kd):
                said = G.phrasing(fam, kd.name, slot).format(v=val, who="")
                n += 1
                if kind and claims(said, kind):
                    claimed += 1
                    got = claimed_values(said, kind)
                    ok = any(val.lower() == g or val.lower() in g or g in val.lower() for g in got)
                    valued += ok
                    if verbose and not ok:
                        print("   no value:", fam, kd.name, said, sorted(got))
                elif verbose:
                    print("   no claim:", fam, kd.name, said)
        row.append(f"{fam} {claimed}/{n} valued {valued}")
    print(f"{kd.name:15s} {kind!s:10s}", " | ".join(row))
