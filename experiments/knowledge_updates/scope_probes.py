"""Issue 31: the write-time links (``ingest.updates.changes``) on a fact told for a while or for one of several
instances: "This week I am based in Aberdeen for the audit." after "I live in Inverness." is a stay, not a move;
"Call me on my work number 0131 496 0001." after "My number is 0752 119 3387." is a second number, not a new one.
Sentences of my own, in pairs (new, old), none from any family (6 December).

- ``SEEN``: found linking on 619e6b9 and read while writing the fix;
- ``HELD``: written at the same time, before the fix, and only counted after it (how many still link);
- ``CHANGES``: changes told with a time or a qualifier, which must still link.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/scope_probes.py
"""

from cbmemory.ingest.updates import changes

SEEN = [
    ("We are renting a cottage in Aberdeen for the holidays.", "I live in Inverness."),
    ("I am working for a client, Marsh & Finch, this month.", "I work at Quillon Labs."),
    ("This week I am based in Aberdeen for the audit.", "I live in Inverness."),
    ("Call me on my work number 0131 496 0001 during the day.", "My number is 0752 119 3387."),
    ("My work email is quinn@quillonlabs.com.", "My email is quinn@mail.com."),
]

HELD = [
    ("For the summer we are living in a caravan in Oban.", "We live in Inverness."),
    ("I'm working for Fenwick Analytics for a few weeks on a contract.", "I work at Quillon Labs."),
    ("Until Friday I'm based in Dundee for training.", "I'm based in Inverness."),
    ("My home number is 01463 220 110 if the mobile is off.", "My number is 0752 119 3387."),
    ("My personal email is quinn.r@fastmail.com, use it for the party.", "My email is quinn@quillonlabs.com."),
    ("Reach me on my office line, 0131 496 0002, this afternoon.", "You can reach me on 0752 119 3387."),
    ("For the conference I'm staying at a flat in Aberdeen.", "I live in Inverness."),
    ("This month I'm working at the Aberdeen branch of Marsh & Finch.", "I work at Quillon Labs."),
]

CHANGES = [
    ("I moved to Aberdeen this week, the flat is lovely.", "I live in Inverness."),
    ("I started a new job at Quillon Labs this month.", "I work at Marsh & Finch."),
    ("My work number changed, it's 0131 496 0003 now.", "My work number is 0131 496 0001."),
    ("I changed my number, it's 0752 119 3387 now.", "My number is 0745 330 8172."),
    ("New email: quinn@fastmail.com, the old inbox is closed.", "My email is quinn@mail.com."),
    ("Big news: I moved to Aberdeen for good this summer.", "I live in Inverness."),
]


def main() -> None:
    for name, pairs, want in (("SEEN", SEEN, False), ("HELD", HELD, False), ("CHANGES", CHANGES, True)):
        linked = sum(changes(new, old, 0.8) for new, old in pairs)
        print(f"{name}: {linked} of {len(pairs)} link (wanted: {'all' if want else 'none'})")


if __name__ == "__main__":
    main()
