"""Issue 31, a look (README, "What the ×10 haystack's renamed talk claims"): at ×10, does the haystack's distractor talk,
renamed to the user's speaker (``cbmemory_eval.scale``), hold claims of the case's kind (``cbmemory.claims``), later
than the case's last injected statement of the user? Counts by verdict; prints no text (``dev`` and ``test`` are read
as counts only). Each argument is FAMILY=RUN, a ×10 run of that family made with ``--keep-text`` (its case file and
its stores under ``work/``).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/x10_claims.py train=/tmp/s33/CB1_train10 ...
"""
import collections
import json
import sqlite3
import sys

from cbmemory.claims import claims

KIND = {"city": "home", "home_type": "home", "employer": "work", "job_title": "title", "weekly_class": "schedule",
        "phone": "phone", "favourite_dish": "favourite", "child_school": "school", "trip": "trip",
        "morning_habit": "habit", "partner": "partner", "laptop": "device", "household": "household",
        "doctor": "doctor", "language": "language", "sport": "sport", "pet": "pet", "commute": "commute",
        "car": "car", "diet": "diet", "coffee": "coffee", "wake_time": "wake", "email": "email"}

counts: collections.Counter = collections.Counter()
for arg in sys.argv[1:]:
    fam, run = arg.split("=", 1)
    for line in open(f"{run}/cases-{fam}-x10.jsonl"):
        case = json.loads(line)
        db = sqlite3.connect(f"{run}/work/{case['user_id']}-x10-{fam}.db")
        steps = ("new", "back") if case["is_change"] else ("old",)
        last = db.execute("SELECT occurred_at, speaker FROM records WHERE turn_id LIKE ? OR turn_id LIKE ? "
                          "ORDER BY occurred_at DESC", tuple(f"upd|{case['kind']}|{s}|%" for s in (steps * 2)[:2])
                          ).fetchone()
        at, speaker = last
        later = earlier = 0
        for t, text in db.execute("SELECT occurred_at, text FROM records WHERE turn_id LIKE 'x%' AND speaker = ?",
                                  (speaker,)):
            if claims(text, KIND[case["kind"]]):
                later += t > at
                earlier += t <= at
        verdict = "shown" if case["new_shown"] else ("stale only" if case["stale_only"] else "neither")
        where = "later" if later else ("earlier only" if earlier else "none")
        counts[(fam, "change" if case["is_change"] else "own", verdict, where)] += 1
for key, n in sorted(counts.items()):
    print(*key, n, sep="\t")
