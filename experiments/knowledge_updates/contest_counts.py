"""Issue 31: a run's counts split by whether the user's own later talk claims the question's kind again
(``cbmemory_eval.updates.contest``), for runs written before the runs carried the label. The cases and haystacks
are made again as the run made them (LoCoMo dev, seed 0, plain phrasings); counts only, no sentence printed.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/contest_counts.py DATA RUN FAMILY SCALE
"""

import json
import sys
from collections import Counter

from cbmemory_eval.datasets.locomo import load_locomo
from cbmemory_eval.scale import scaled_haystacks
from cbmemory_eval.updates import generate
from cbmemory_eval.updates.contest import claimed_kinds, contested


def main() -> None:
    data, run, family, scale = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    conversations = load_locomo(data)
    hs = scaled_haystacks(conversations, scale, others=conversations, seed=0)
    cases = {c.case_id: c for c in generate(conversations, family, seed=0) if c.user_id in hs}
    later = {u: claimed_kinds(h.sessions) for u, h in hs.items()}
    dates = {u: {s.session_id: s.date for s in h.sessions} for u, h in hs.items()}
    tab: Counter = Counter()
    for line in open(f"{run}/cases-{family}-x{scale}.jsonl"):
        r = json.loads(line)
        c = cases[r["case_id"]]
        where = "contested" if contested(c, later[c.user_id], dates[c.user_id]) else "clear"
        what = "change" if r["is_change"] else "own"
        tab[where, what, "n"] += 1
        tab[where, what, "shown"] += r["new_shown"]
        tab[where, what, "stale_only"] += r["stale_only"] if r["is_change"] else 0
    for where in ("clear", "contested"):
        print(f"{family} x{scale} {where:9s} newest shown / stale only {tab[where, 'change', 'shown']} / "
              f"{tab[where, 'change', 'stale_only']} of {tab[where, 'change', 'n']}, own value "
              f"{tab[where, 'own', 'shown']} of {tab[where, 'own', 'n']}")


if __name__ == "__main__":
    main()
