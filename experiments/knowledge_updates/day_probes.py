"""Issue 31: the write-time links (``ingest.updates.changes``) on a habit's one day: "I woke up at 9 today, lovely
lie-in." after "I wake up at 6:30 every day." is one morning, not a new habit; "I saw Dr Patel today as my GP was
away." is a visit, not a new doctor. Sentences of my own, in pairs (new, old), none from any family (6 December).

- ``SEEN``: found linking on the product after the stay fix and read while writing this one;
- ``HELD``: written at the same time, before the fix, and only counted after it (how many still link);
- ``CHANGES``: changes of a habit or a doctor told with a day, which must still link.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/day_probes.py
"""

from cbmemory.ingest.updates import changes

SEEN = [
    ("I saw Dr Patel today as my GP was away.", "My doctor is Dr Haddad."),
    ("I have an appointment with Dr Patel on Tuesday about my knee.", "My doctor is Dr Haddad."),
    ("I woke up at 9 today, lovely lie-in.", "I wake up at 6:30 every day."),
]

HELD = [
    ("Yesterday I got up at 5:00 to catch the early train.", "I wake up at 7:00 on weekdays."),
    ("This morning I drove to work because of the rain.", "I cycle to work every day."),
    ("Dr Okafor stitched my hand at the clinic last night.", "My GP is Dr Haddad."),
    ("I had an oat latte this morning for a change.", "My usual coffee is an espresso."),
    ("On Saturday I slept in and got up at 10.", "I wake up at 6:00 every day."),
    ("I took the train in today, the roads were closed.", "I get to work by bike."),
]

CHANGES = [
    ("I've been waking at 7:15 since the new job.", "I wake up at 6:30 every day."),
    ("Starting today I wake up at 5:30 for the new shift.", "I wake up at 7:00 every day."),
    ("I registered with Dr Patel today, Dr Haddad retired.", "My doctor is Dr Haddad."),
    ("From now on I take the bus to work, the bike was stolen.", "I cycle to work."),
    ("I switched to cortados this week, no more espresso.", "My usual coffee is an espresso."),
]


def main() -> None:
    for name, pairs, want in (("SEEN", SEEN, False), ("HELD", HELD, False), ("CHANGES", CHANGES, True)):
        linked = sum(changes(new, old, 0.8) for new, old in pairs)
        print(f"{name}: {linked} of {len(pairs)} link (wanted: {'all' if want else 'none'})")


if __name__ == "__main__":
    main()
