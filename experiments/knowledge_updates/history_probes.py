"""Issue 31: the write-time links (``ingest.updates.changes``) on what a user tells of their past ("I lived in Aberdeen
for ten years before I came here" after "I live in Inverness"): a fact that held once is no change of the one that
holds now. Sentences of my own, in pairs (new, old), none from any family (6 December).

- ``SEEN``: found linking on d36a60f and read while writing the fix;
- ``HELD``: written at the same time, before the fix, and only counted after it (how many still link);
- ``CHANGES``: changes told in the past tense, which must still link.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/history_probes.py
"""

from cbmemory.ingest.updates import changes

SEEN = [
    ("I lived in Aberdeen for ten years before I came here.", "I live in Inverness."),
    ("My old number was 0745 330 8172, do not use it.", "My number is 0752 119 3387."),
    ("My previous employer was Marsh & Finch.", "I work at Quillon Labs."),
    ("Back when I worked for Marsh & Finch the hours were awful.", "I work at Quillon Labs."),
    ("Years ago I lived in Aberdeen, loved it.", "I live in Inverness."),
    ("Before I moved here I lived in Aberdeen.", "I live in Inverness."),
    ("My former doctor, Dr Haddad, retired.", "My doctor is Dr Okafor."),
    ("I was living in Aberdeen when we met.", "I live in Inverness."),
]

HELD = [
    ("When I was a student I lived in Dundee, in a tiny flat.", "I live in Inverness."),
    ("I worked for Fenwick Analytics straight out of university.", "I work at Quillon Labs."),
    ("My last job was at Marsh & Finch, on the sales side.", "I work at Quillon Labs."),
    ("Our old address was 14 Kelvin Road, the post still goes there.", "Our address is 3 Ness Walk."),
    ("In my twenties I was based in Leith.", "I'm based in Inverness."),
    ("My ex-husband Gordon still calls sometimes.", "My husband is Ewan."),
    ("As a kid I was a pupil at Dunfermline High.", "Our son goes to school at Inverness Royal Academy."),
    ("I used to be a nurse, years before I retrained as an engineer.", "I'm a staff engineer now."),
    ("Back then my phone number was 0131 496 0001.", "My number is 0752 119 3387."),
    ("I worked at Marsh & Finch until 2019.", "I work at Quillon Labs."),
    ("We lived in Aberdeen before the kids were born.", "We live in Inverness."),
    ("My previous car was a Skoda Octavia and it never broke down.", "I drive a Kia Niro."),
]

CHANGES = [
    ("I moved to Aberdeen last month.", "I live in Inverness."),
    ("I left Marsh & Finch and joined Quillon Labs.", "I work at Marsh & Finch."),
    ("I lived in Aberdeen until May, now I live in Inverness.", "I live in Aberdeen."),
    ("I changed my number last week, it's 0752 119 3387 now.", "My number is 0745 330 8172."),
    ("I switched doctors, I see Dr Okafor now.", "My doctor is Dr Haddad."),
    ("Big news: I started at Quillon Labs on Monday.", "I work at Marsh & Finch."),
]


def main() -> None:
    for name, pairs, want in (("SEEN", SEEN, False), ("HELD", HELD, False), ("CHANGES", CHANGES, True)):
        linked = sum(changes(new, old, 0.8) for new, old in pairs)
        print(f"{name}: {linked} of {len(pairs)} link (wanted: {'all' if want else 'none'})")


if __name__ == "__main__":
    main()
