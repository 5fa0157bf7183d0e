"""Issue 31: the write-time links (``ingest.updates.changes``) on statements that only look like a change of the
user's fact, in pairs (new, old) of my own, none from any family (6 December), one set per fix:

- ``PAST_*``: what held once ("I lived in Aberdeen for ten years before I came here." after "I live in Inverness.");
- ``STAY_*``: a fact told for a while or of one of several numbers ("This week I am based in Aberdeen for the audit.",
  "Call me on my work number ...");
- ``DAY_*``: a habit's one day ("I woke up at 9 today, lovely lie-in.", "I saw Dr Patel today as my GP was away.");
- ``PLAN_*``: a plan told in the present ("I am moving to Aberdeen in March.");
- ``PLACE_*``: a place one goes to, or a thing of one's that moved ("We had dinner at a new place in Dundee.", "My
  office moved to Leith over the summer." after "I live in Inverness.");
- ``AWAY_*``: a number for a while away, a day's work elsewhere, a one-off swap ("Text me on 07700 900123 while I am
  abroad.", "Spent the day working at a Starbucks in Leith.", "I had a latte instead of my usual today.");
- ``KIND_*``: a word of the kind used of something else: a partner in an activity ("My new running partner is Morag
  from work."), a phone that is a device ("My new phone is a Pixel 8, the camera is amazing.");
- ``CAR_*``: a car word in a compound ("My new car insurance is with Fenwick Direct.");
- ``TOLD_*``: an email that is a message, a doctor one is referred to ("My email to Fenwick Analytics bounced, the
  address is wrong.", "My doctor referred me to Dr Lennox, a specialist.");
- ``COMPANY_*``: a change the user tells with the people who share it ("My partner and I moved to Aberdeen last
  week."), a recall fix: here ``CHANGES`` and ``HELD_CHANGES`` must link, ``SEEN`` and ``HELD`` (someone else's move,
  a wish, a visit told with company) must not.
- ``LIST_*``: company told as a list ("I moved to Leith with my kids and my partner."), a recall fix: ``CHANGES`` and
  ``HELD_CHANGES`` (``--held``) must link, ``LOOK`` (other people's moves told as lists) must not.

In each set ``SEEN`` were found linking and read while writing the fix, ``HELD`` were written with them, before the
fix, and only counted after it, and ``CHANGES`` are changes told the same way, which must still link. ``REGRESS``:
changes in everyday words told with a time, written after the three fixes to find links they take away (11 of 14
link on d4bc3bd, the same 11 after; ``-v`` prints each, to compare checkouts).

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/link_probes.py [-v]
"""

import sys

from cbmemory.ingest.updates import changes

PAST_SEEN = [
    ("I lived in Aberdeen for ten years before I came here.", "I live in Inverness."),
    ("My old number was 0745 330 8172, do not use it.", "My number is 0752 119 3387."),
    ("My previous employer was Marsh & Finch.", "I work at Quillon Labs."),
    ("Back when I worked for Marsh & Finch the hours were awful.", "I work at Quillon Labs."),
    ("Years ago I lived in Aberdeen, loved it.", "I live in Inverness."),
    ("Before I moved here I lived in Aberdeen.", "I live in Inverness."),
    ("My former doctor, Dr Haddad, retired.", "My doctor is Dr Okafor."),
    ("I was living in Aberdeen when we met.", "I live in Inverness."),
]

PAST_HELD = [
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

PAST_CHANGES = [
    ("I moved to Aberdeen last month.", "I live in Inverness."),
    ("I left Marsh & Finch and joined Quillon Labs.", "I work at Marsh & Finch."),
    ("I lived in Aberdeen until May, now I live in Inverness.", "I live in Aberdeen."),
    ("I changed my number last week, it's 0752 119 3387 now.", "My number is 0745 330 8172."),
    ("I switched doctors, I see Dr Okafor now.", "My doctor is Dr Haddad."),
    ("Big news: I started at Quillon Labs on Monday.", "I work at Marsh & Finch."),
]

STAY_SEEN = [
    ("We are renting a cottage in Aberdeen for the holidays.", "I live in Inverness."),
    ("I am working for a client, Marsh & Finch, this month.", "I work at Quillon Labs."),
    ("This week I am based in Aberdeen for the audit.", "I live in Inverness."),
    ("Call me on my work number 0131 496 0001 during the day.", "My number is 0752 119 3387."),
    ("My work email is quinn@quillonlabs.com.", "My email is quinn@mail.com."),
]

STAY_HELD = [
    ("For the summer we are living in a caravan in Oban.", "We live in Inverness."),
    ("I'm working for Fenwick Analytics for a few weeks on a contract.", "I work at Quillon Labs."),
    ("Until Friday I'm based in Dundee for training.", "I'm based in Inverness."),
    ("My home number is 01463 220 110 if the mobile is off.", "My number is 0752 119 3387."),
    ("My personal email is quinn.r@fastmail.com, use it for the party.", "My email is quinn@quillonlabs.com."),
    ("Reach me on my office line, 0131 496 0002, this afternoon.", "You can reach me on 0752 119 3387."),
    ("For the conference I'm staying at a flat in Aberdeen.", "I live in Inverness."),
    ("This month I'm working at the Aberdeen branch of Marsh & Finch.", "I work at Quillon Labs."),
]

STAY_CHANGES = [
    ("I moved to Aberdeen this week, the flat is lovely.", "I live in Inverness."),
    ("I started a new job at Quillon Labs this month.", "I work at Marsh & Finch."),
    ("My work number changed, it's 0131 496 0003 now.", "My work number is 0131 496 0001."),
    ("I changed my number, it's 0752 119 3387 now.", "My number is 0745 330 8172."),
    ("New email: quinn@fastmail.com, the old inbox is closed.", "My email is quinn@mail.com."),
    ("Big news: I moved to Aberdeen for good this summer.", "I live in Inverness."),
]

DAY_SEEN = [
    ("I saw Dr Patel today as my GP was away.", "My doctor is Dr Haddad."),
    ("I have an appointment with Dr Patel on Tuesday about my knee.", "My doctor is Dr Haddad."),
    ("I woke up at 9 today, lovely lie-in.", "I wake up at 6:30 every day."),
]

DAY_HELD = [
    ("Yesterday I got up at 5:00 to catch the early train.", "I wake up at 7:00 on weekdays."),
    ("This morning I drove to work because of the rain.", "I cycle to work every day."),
    ("Dr Okafor stitched my hand at the clinic last night.", "My GP is Dr Haddad."),
    ("I had an oat latte this morning for a change.", "My usual coffee is an espresso."),
    ("On Saturday I slept in and got up at 10.", "I wake up at 6:00 every day."),
    ("I took the train in today, the roads were closed.", "I get to work by bike."),
]

DAY_CHANGES = [
    ("I've been waking at 7:15 since the new job.", "I wake up at 6:30 every day."),
    ("Starting today I wake up at 5:30 for the new shift.", "I wake up at 7:00 every day."),
    ("I registered with Dr Patel today, Dr Haddad retired.", "My doctor is Dr Haddad."),
    ("From now on I take the bus to work, the bike was stolen.", "I cycle to work."),
    ("I switched to cortados this week, no more espresso.", "My usual coffee is an espresso."),
]

PLAN_SEEN = [
    ("I am moving to Aberdeen in March.", "I live in Inverness."),
    ("We are moving to Aberdeen once the house sale goes through.", "We live in Inverness."),
    ("I am relocating to Aberdeen later this year.", "I live in Inverness."),
    ("I have accepted an offer from Quillon Labs, starting in September.", "I work at Marsh & Finch."),
]

PLAN_HELD = [
    ("We're relocating to Dundee in the spring, the school is sorted.", "We live in Inverness."),
    ("I'm switching to Fenwick Analytics at the end of the month.", "I work at Quillon Labs."),
    ("I am starting at Marsh & Finch in January, I handed in my notice today.", "I work at Quillon Labs."),
    ("We're moving to Leith after the wedding.", "We live in Inverness."),
    ("I'm leaving Quillon Labs for Fenwick Analytics in a few weeks.", "I work at Quillon Labs."),
    ("My number is changing to 0131 496 0009 from next Monday.", "My number is 0752 119 3387."),
]

PLAN_CHANGES = [
    ("I moved to Aberdeen in March, the flat is lovely.", "I live in Inverness."),
    ("Big news: I'm moving to Aberdeen this weekend, the van is booked for today.", "I live in Inverness."),
    ("I started at Quillon Labs in January.", "I work at Marsh & Finch."),
    ("I'm working at Quillon Labs now, I started in September.", "I work at Marsh & Finch."),
]

PLACE_SEEN = [
    ("We had dinner at a new place in Dundee, amazing ramen.", "I live in Inverness."),
    ("Tried a cortado at the new place, interesting.", "I live in a flat in Inverness."),
    ("Tried a cortado at the new place, interesting.", "My usual coffee is a flat white."),
    ("My gym moved to a new place near the station.", "I live in a flat in Inverness."),
    ("I found a new place for haircuts, finally.", "I live in a flat in Inverness."),
    ("We booked a new place for the wedding reception.", "I live in a flat in Inverness."),
    ("My office moved to Leith over the summer.", "I live in Inverness."),
    ("Our book club moved to a new place in Dundee, a cosy cafe.", "I live in Inverness."),
    ("I have discovered a new place for coffee in Aberdeen, the beans are great.", "I live in Inverness."),
    ("We celebrated at a new place in Dundee last night.", "We live in Inverness."),
    ("My favourite bakery moved to Leith, so far from me now.", "I live in Inverness."),
    ("Our team offsite was at a new place in Aberdeen, lovely venue.", "I live in Inverness."),
    ("Grabbed a flat white at a new place near the office, so good.", "My usual coffee is an oat latte."),
]

PLACE_HELD = [
    ("We tried a new place in Aberdeen for Sunday lunch, the roast was great.", "I live in Inverness."),
    ("Picked up the cake from a new place in Leith, worth the drive.", "I live in Inverness."),
    ("Our yoga studio moved to Dundee, so I've had to stop going.", "I live in Inverness."),
    ("Our conference moved to Aberdeen this year, a long drive.", "I live in Inverness."),
    ("My barber moved to a new place in Dundee.", "I live in Inverness."),
    ("We had drinks at a new place on Leith Walk, very fancy.", "We live in Inverness."),
    ("I love the new place for brunch in Dundee, we go every Sunday.", "I live in Inverness."),
    ("My company moved to Aberdeen, luckily I can work from home.", "I live in Inverness."),
    ("Went to a new place in Dunfermline for my birthday dinner.", "I live in Inverness."),
]

PLACE_CHANGES = [
    ("We moved to a new place in Dundee last month.", "We live in Inverness."),
    ("Our new place in Aberdeen has a garden, finally!", "We live in Inverness."),
    ("My new place is in Leith, two minutes from the shore.", "I live in Inverness."),
    ("I found a new place to live in Dundee and moved in on Saturday.", "I live in Inverness."),
    ("We have a new place in Dundee now.", "We live in Inverness."),
]

AWAY_SEEN = [
    ("Spent the day working at a Starbucks in Leith.", "I work at Quillon Labs."),
    ("Text me on 07700 900123 while I am abroad.", "My number is 0752 119 3387."),
    ("Email me at quinn@quillonlabs.com while I am at work.", "My email is quinn@mail.com."),
    ("I had a latte instead of my usual today.", "My usual coffee is a flat white."),
]

AWAY_HELD = [
    ("While we are away, ring us on 0131 496 0077, the cottage phone.", "Our number is 0131 496 0011."),
    ("Reach me at quinn.reyes@hotelmail.com while I'm travelling.", "My email is quinn@mail.com."),
    ("I spent the whole day working at the Aberdeen office.", "I work at Quillon Labs."),
    ("Had a cappuccino instead of my usual flat white this morning.", "My usual coffee is an oat latte."),
    ("Took the bus instead of my usual cycle today, it was pouring.", "I cycle to work."),
    ("Use 07700 900456 while I'm on holiday, my usual phone stays home.", "My number is 0752 119 3387."),
    ("Worked at the Dundee site all day for the inspection.", "I work at Quillon Labs."),
]

AWAY_CHANGES = [
    ("I changed my number while I was abroad, it's 0131 496 0004 now.", "My number is 0752 119 3387."),
    ("I switched to oat lattes instead of my usual flat white, for good.", "My usual coffee is a flat white."),
    ("I've been cycling instead of taking the bus since March.", "I take the bus to work."),
    ("I work at Fenwick Analytics now, I spent my first day there today.", "I work at Quillon Labs."),
]

COMPANY_CHANGES = [
    ("My partner and I moved to Aberdeen last week.", "I live in Inverness."),
    ("My husband and I bought a house in Dundee, we got the keys on Friday.", "We live in Inverness."),
    ("I moved to Dundee with my sister in March, the flat is great.", "I live in Inverness."),
    ("My wife and I live in Leith now.", "We live in Inverness."),
    ("Me and my boyfriend moved to Aberdeen, so happy.", "I live in Inverness."),
    ("My brother and I started at Quillon Labs on Monday.", "I work at Marsh & Finch."),
    ("My sister and I switched to oat lattes, no going back.", "My usual coffee is a flat white."),
]

COMPANY_HELD_CHANGES = [
    ("My fiancee and I got a flat in Dunfermline, moved in on Sunday.", "I live in Inverness."),
    ("My girlfriend and I live in Aberdeen now, since June.", "I live in Inverness."),
    ("I relocated to Dundee with my husband for his job.", "I live in Inverness."),
    ("My son and I moved to Aberdeen after the summer.", "I live in Inverness."),
    ("Me and my wife switched to a vegan diet this year.", "I'm vegetarian."),
]

COMPANY_SEEN = [
    ("My sister and I visited Dundee for the weekend.", "I live in Inverness."),
    ("My sister and her husband moved to Aberdeen.", "I live in Inverness."),
    ("I helped my brother move to Dundee last week.", "I live in Inverness."),
    ("My partner and I are thinking of moving to Aberdeen.", "I live in Inverness."),
    ("My mum and dad moved to Leith, I miss them.", "I live in Inverness."),
    ("My friend and I had lunch at a new place in Dundee.", "I live in Inverness."),
]

COMPANY_HELD = [
    ("My sister and I looked at flats in Dundee, nothing yet.", "I live in Inverness."),
    ("My brother and his wife moved to Dundee in March.", "I live in Inverness."),
    ("My partner and I might move to Aberdeen next year.", "I live in Inverness."),
    ("I drove to Leith with my dad to see his new house.", "I live in Inverness."),
    ("My friend and I went to the new place in Dundee for brunch.", "I live in Inverness."),
]

KIND_SEEN = [
    ("My new running partner is Morag from work.", "My partner is Callum."),
    ("My new phone is a Pixel 8, the camera is amazing.", "My number is 0752 119 3387."),
    ("I got a new Samsung phone, same number though.", "My number is 0752 119 3387."),
]

KIND_HELD = [
    ("My business partner Ewan signed the lease today.", "My partner is Callum."),
    ("My new tennis partner, Isla, is brilliant at volleys.", "My partner is Callum."),
    ("Met my new lab partner, Fraser, in chemistry.", "My boyfriend is Callum."),
    ("Just got a new phone, an iPhone 15, love it.", "My number is 0752 119 3387."),
    ("My phone is a Nokia now, the old one died.", "My number is 0752 119 3387."),
    ("Dropped my phone in the Ness, so I am on a Motorola until Monday.", "My number is 0752 119 3387."),
]

KIND_CHANGES = [
    ("I have a new partner, Isla, we met in May.", "My partner is Callum."),
    ("My new number is 0131 496 0004.", "My number is 0752 119 3387."),
    ("I changed my number, will text you the new one.", "My number is 0752 119 3387."),
    ("I got a new phone, my number is 0131 496 0006 now.", "My number is 0752 119 3387."),
]

CAR_SEEN = [
    ("My new car insurance is with Fenwick Direct.", "I drive a Skoda Octavia."),
]

CAR_HELD = [
    ("The car park at Quillon Labs is full again, so I parked at the Tesco.", "I drive a Skoda Octavia."),
    ("Booked a car wash at Sparkle Valet in Leith.", "I drive a Skoda Octavia."),
    ("My car loan with Leith Mutual is finally paid off.", "I drive a Skoda Octavia."),
    ("Got a new car seat for the baby from Halfords.", "I drive a Skoda Octavia."),
    ("Our car share scheme switched to Enterprise Club this month.", "I drive a Skoda Octavia."),
]

CAR_CHANGES = [
    ("I drive a Kia Niro now, the car insurance is cheaper too.", "I drive a Skoda Octavia."),
    ("I sold my car and bought a Volvo XC40.", "I drive a Skoda Octavia."),
    ("My new car is a Mazda MX-5, it arrived on Friday.", "I drive a Skoda Octavia."),
]

TOLD_SEEN = [
    ("My email to Fenwick Analytics bounced, the address is wrong.", "My email is quinn@mail.com."),
    ("My doctor referred me to Dr Lennox, a specialist.", "My doctor is Dr Haddad."),
]

TOLD_HELD = [
    ("My email to Marsh & Finch about the invoice went unanswered.", "My email is quinn@mail.com."),
    ("Sent an email to Leith Council today, fingers crossed.", "My email is quinn@mail.com."),
    ("My GP sent me to Dr Okafor at the Dundee clinic for my knee.", "My doctor is Dr Haddad."),
    ("Dr Haddad referred me to a physio, Dr Lennox, for my back.", "My doctor is Dr Haddad."),
    ("My email newsletter from Quillon Labs says they are hiring.", "My email is quinn@mail.com."),
]

TOLD_CHANGES = [
    ("My new email is quinn.reyes@fastmail.com.", "My email is quinn@mail.com."),
    ("I changed my email address, will send you the new one.", "My email is quinn@mail.com."),
    ("I registered with a new GP, Dr Okafor, in Dundee.", "My doctor is Dr Haddad."),
]

# written after the first fix's count (see the README), before its mend
COMPANY_HELD2 = [
    ("My mum and I popped into the new place on Leith Walk for cake.", "I live in Inverness."),
    ("I helped pack boxes in Dundee with my brother for their new flat.", "I live in Inverness."),
    ("Me and my sister went to see her new house in Aberdeen.", "I live in Inverness."),
    ("My partner and I have been to the new place in Dundee twice, great pizza.", "I live in Inverness."),
    ("I spent Sunday in Leith with my dad, at his new flat.", "I live in Inverness."),
    ("My brother and I went to a new place in Aberdeen for his birthday.", "We live in Inverness."),
]

COMPANY_HELD2_CHANGES = [
    ("My partner and I got the keys to our new flat in Aberdeen today.", "I live in Inverness."),
    ("We moved to Dundee with our kids, the new house is lovely.", "We live in Inverness."),
    ("Me and my husband live in Leith now, since the spring.", "I live in Inverness."),
]

# company told as a list (rule, 6 December, 04:22 UTC): CHANGES and HELD_CHANGES must link, LOOK must not
LIST_CHANGES = [
    ("I moved to Leith with my kids and my partner.", "I live in Inverness."),
    ("My wife, my son and I moved to Dundee in May.", "We live in Inverness."),
    ("We relocated to Aberdeen with my husband and our two kids.", "We live in Inverness."),
]

LIST_HELD_CHANGES = [
    ("I moved to Dunfermline with my partner and my mum last month.", "I live in Inverness."),
    ("My brother, my sister and I started at Quillon Labs together.", "I work at Marsh & Finch."),
]

LIST_LOOK = [
    ("My sister and my mum moved to Leith, I stayed put.", "I live in Inverness."),
    ("I helped my son and my daughter move to Dundee.", "I live in Inverness."),
    ("My dad and my uncle moved to Aberdeen last year.", "I live in Inverness."),
    ("My aunt, my uncle and my cousins moved to Dundee.", "I live in Inverness."),
]

REGRESS = [
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

SETS = {"past": (PAST_SEEN, PAST_HELD, PAST_CHANGES), "stay": (STAY_SEEN, STAY_HELD, STAY_CHANGES),
        "day": (DAY_SEEN, DAY_HELD, DAY_CHANGES), "plan": (PLAN_SEEN, PLAN_HELD, PLAN_CHANGES),
        "place": (PLACE_SEEN, PLACE_HELD, PLACE_CHANGES), "away": (AWAY_SEEN, AWAY_HELD, AWAY_CHANGES),
        "kind": (KIND_SEEN, KIND_HELD, KIND_CHANGES), "car": (CAR_SEEN, CAR_HELD, CAR_CHANGES),
        "told": (TOLD_SEEN, TOLD_HELD, TOLD_CHANGES)}


def _count(pairs) -> int:
    return sum(changes(new, old, 0.8) for new, old in pairs)


def _line(name: str, first: dict, first_wanted: str, second: dict, second_wanted: str, hidden: tuple = ()) -> str:
    """One set's counts: each group's label, links and size (a ``hidden`` group, held back, shows "-")."""
    def group(sets: dict) -> str:
        return ", ".join(f"{label} {'-' if label in hidden else _count(pairs)} of {len(pairs)}"
                         for label, pairs in sets.items())
    return f"{name}: {group(first)} link (wanted: {first_wanted}); {group(second)} (wanted: {second_wanted})"


def main() -> None:
    if "-v" in sys.argv:
        for new, old in REGRESS:
            print(int(changes(new, old, 0.8)), new)
    for name, (seen, held, changed) in SETS.items():
        print(_line(name, {"SEEN": seen, "HELD": held}, "none", {"CHANGES": changed}, "all"))
    print(_line("company", {"CHANGES": COMPANY_CHANGES, "HELD_CHANGES": COMPANY_HELD_CHANGES}, "all",
                {"SEEN": COMPANY_SEEN, "HELD": COMPANY_HELD}, "none"))
    if "--held2" in sys.argv:  # counted once, after the mend
        print(_line("company, second held sets", {"HELD2_CHANGES": COMPANY_HELD2_CHANGES}, "all",
                    {"HELD2": COMPANY_HELD2}, "none"))
    print(_line("list", {"CHANGES": LIST_CHANGES, "HELD_CHANGES": LIST_HELD_CHANGES}, "all", {"LOOK": LIST_LOOK}, "none",
                hidden=() if "--held" in sys.argv else ("HELD_CHANGES",)))
    print(f"regress: {_count(REGRESS)} of {len(REGRESS)} link")


if __name__ == "__main__":
    main()
