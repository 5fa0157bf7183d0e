"""Issue 31: changes in everyday words told with a time (sentences of my own, 6 December), written after the
links' fixes for a past, a stay and a habit's one day, to find links those fixes take away: run in two checkouts and
compare (1: links, 0: does not).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/regress_probes.py
"""

from cbmemory.ingest.updates import changes

PAIRS = [
    ("I went vegan this month, feeling great.", "I'm vegetarian, have been for years."),
    ("This week I switched to decaf.", "My usual coffee is an espresso."),
    ("I took up squash this summer and play every weekend.", "I play tennis on weekends."),
    ("I've been cycling to work this month, the bus was too slow.", "I take the bus to work."),
    ("Today I got a new number: 0131 496 0004.", "My number is 0752 119 3387."),
    ("My partner Callum moved in this week.", "My partner is Ruairidh."),
    ("I got a Kia Niro this week, the Skoda is gone.", "I drive a Skoda Octavia."),
    ("This morning was my first commute by train, no more driving.", "I drive to work."),
    ("We live in Aberdeen now, for the past month.", "We live in Inverness."),
    ("I work at Quillon Labs now, this is my second week.", "I work at Marsh & Finch."),
    ("I wake at 5:30 these days, yesterday included.", "I wake up at 7:00 every day."),
    ("My doctor is Dr Patel now, I saw her yesterday.", "My doctor is Dr Haddad."),
    ("Our new address is 3 Ness Walk, we moved on Tuesday.", "Our address is 14 Kelvin Road."),
    ("I'm a staff engineer now, promoted this month.", "I'm a team lead at Quillon Labs."),
]


if __name__ == "__main__":
    for new, old in PAIRS:
        print(int(changes(new, old, 0.8)), new)
