"""Unit layer (ingest.updates): the write-time rules of supersession, one kind of link or non-link per test.
Pure: the similarity a caller measures is given."""

import pytest

from cbmemory.claims import (
    CHANGE,
    CLAUSE_CHARS,
    SLOTS,
    Claim,
    claims,
    in_the_past,
    rule_words,
    sentences,
    slots,
)
from cbmemory.ingest.updates import OWN, changes, people
from cbmemory.values import KIND_WORDS, claim_values, name_openings, opens_with_name, value_form, values

LINKS = [  # (new, old, similarity): the user's new statement changes the old one
    ("Big news: I moved to Porto last week.", "I live in Paris and love it.", 0.25),  # lives in / moved
    ("I started a new job at Lumen Health this month.", "I work at Pinecrest Bank.", 0.3),  # works at
    ("I changed my phone number, it's 0752 119 3387 now.", "You can reach me on 0745 330 8172.", 0.4),  # my X is
    ("I switched doctors, I see Dr. Haddad now.", "My doctor is Dr. Okafor, she's very thorough.", 0.5),  # switched
    ("Change of plans, my big trip is going to be Peru instead.", "My next big trip is to Iceland.", 0.45),  # instead
    ("We moved my daughter to Riverside Academy this term.", "My daughter goes to St Brigid's.", 0.45),  # same person
    ("Back home: I moved back to Paris last week.", "Big news: I moved to Porto last week.", 0.46),  # a revert
    # the partner a claim names is the slot itself, not someone else
    ("I'm seeing someone new, Tobias, and it's going really well.", "My partner Rafael says hi, by the way.", 0.3),
    # the partner told with the speaker ("Callum and I"): a value of the claim though it opens the sentence
    ("I'm seeing Tobias now, it's going well.", "Callum and I have been together a year now.", 0.5),
    ("I went pescatarian last month.", "I'm vegetarian, have been for a while.", 0.5),  # values in ordinary words
    ("I've started commuting by bus instead.", "I get to work by bike.", 0.4),
    ("I've switched to oat milk lattes.", "My usual coffee is an espresso.", 0.5),
    ("I sold the old car and bought a Kia Niro.", "I drive a Skoda Octavia.", 0.5),  # a car by its make
    ("I bought a Toyota Prius last week.", "I drive a Skoda Octavia.", 0.5),
    # the same days told for a habit, or a day that is a date ("on Monday"), not a scope
    ("I've started getting up at 5:30 on weekdays.", "I wake up at 7:00 on workdays.", 0.6),
    ("I wake at 6:00 on those days now, the club moved its start.",  # both told for the days named elsewhere
     "I joined a rowing club that trains on Tuesdays and Thursdays, so I wake up at 6:15 AM on those days.", 0.6),
    ("Big news: I started at Globex on Monday.", "I work at Initech.", 0.3),
    ("With the new baby there are four of us in the house now.", "There are five of us living in the house.", 0.6),
    # LoCoMo (conv-41): losing the job changes the job the user enjoyed
    ("Crazy thing happened since we last talked. I lost my job at the mechanical engineering company.",
     "A lot has changed since last time. I'm really enjoying my new job.", 0.5),
    # news told before a question back (text.stated): the news is the statement
    ("Big news: I moved to Porto last week! How have you been?", "I live in Paris and love it.", 0.25),
    ("I changed my phone number, it's 0752 119 3387 now, did you get my text?",
     "You can reach me on 0745 330 8172. How about you?", 0.4),
    # a change that opens with the new name (read both ways, both see the change)
    ("Quillon Labs is my new employer, I start Monday.", "I work at Marsh & Finch.", 0.4),
    ("Our son goes to Dunfermline High now.", "Aberdeen Grammar is our son's school.", 0.5),
    # another value, in any writing
    ("I changed my number, it is 0752 119 3387 now.", "My number is 0745 330 8172.", 0.8),
    ("I wake up at 6:30 on weekdays now.", "I wake up at 7:00 on weekdays.", 0.8),
    ("My doctor is Dr. Okafor now.", "My doctor is Dr Haddad.", 0.8),
    ("My new email is quinn@fastmail.com.", "My email is Quinn.Reyes@Mail.com.", 0.8),
    # a change told with a while or a qualifier, or an event with its season
    ("I moved to Aberdeen this week, the flat is lovely.", "I live in Inverness.", 0.8),  # a move told with a week
    ("I started a new job at Quillon Labs this month.", "I work at Marsh & Finch.", 0.8),
    # the same qualifier
    ("My work number is 0131 496 0003 now, the old line is gone.", "My work number is 0131 496 0001.", 0.8),
    ("We bought a house in Aberdeen this spring.", "We live in Inverness.", 0.8),  # an event told with its season
    ("I got engaged to Callum this summer!", "My boyfriend is Ruairidh.", 0.8),
    # a change told on its day (a beginning, a first, a move)
    ("Starting today I wake up at 5:30 for the new shift.", "I wake up at 7:00 every day.", 0.8),
    # a first: a beginning
    ("Had my first check-up with Dr Patel today, she was lovely.", "My doctor is Dr Haddad.", 0.8),
    # a day's event that is the change
    ("I moved to Aberdeen yesterday, boxes everywhere.", "I live in Inverness.", 0.8),
    # changes in everyday words told with a time, which the rules for a past, a stay and a day must keep
    ("I went vegan this month, feeling great.", "I'm vegetarian, have been for years.", 0.8),
    ("I got a Kia Niro this week, the Skoda is gone.", "I drive a Skoda Octavia.", 0.8),  # the old one named short
    ("My doctor is Dr Patel now, I saw her yesterday.", "My doctor is Dr Haddad.", 0.8),
    ("Our new address is 3 Ness Walk, we moved on Tuesday.", "Our address is 14 Kelvin Road.", 0.8),
    ("I'm a staff engineer now, promoted this month.", "I'm a team lead at Quillon Labs.", 0.8),
    # a move done, or under way this weekend: no plan
    ("I moved to Aberdeen in March, the flat is lovely.", "I live in Inverness.", 0.8),  # done
    ("Big news: I'm moving to Aberdeen this weekend, the van is booked for today.", "I live in Inverness.", 0.8),
    # a new place told as one's home
    ("We moved to a new place in Dundee last month.", "We live in Inverness.", 0.8),
    ("Our new place in Aberdeen has a garden, finally!", "We live in Inverness.", 0.8),
    ("I found a new place to live in Dundee and moved in on Saturday.", "I live in Inverness.", 0.8),
    ("We have a new place in Dundee now.", "We live in Inverness.", 0.8),
    # a change told with a while or a usual: its own change word
    ("I changed my number while I was abroad, it's 0131 496 0004 now.", "My number is 0752 119 3387.", 0.8),
    ("Lately I have been having oat lattes instead of my usual flat white.", "My usual coffee is a flat white.", 0.8),
    # a change told with the people who share it (COMPANY)
    ("My partner and I moved to Aberdeen last week.", "I live in Inverness.", 0.8),
    ("I moved to Dundee with my sister in March, the flat is great.", "I live in Inverness.", 0.8),
    ("Me and my boyfriend moved to Aberdeen, so happy.", "I live in Inverness.", 0.8),
    ("My brother and I started at Quillon Labs on Monday.", "I work at Marsh & Finch.", 0.8),
    ("I relocated to Dundee with my husband for his job.", "I live in Inverness.", 0.8),  # his job: no home of his
    ("I moved to Leith with my kids and my partner.", "I live in Inverness.", 0.8),  # company told as a list
    ("My wife, my son and I moved to Dundee in May.", "We live in Inverness.", 0.8),
    # someone's possessive in another clause than the claim's
    ("I moved to Leith, their flat was far too small for us.", "I live in Inverness.", 0.8),
    ("I bought a Kia Niro, her car was too small for the dogs.", "I drive a Skoda Octavia.", 0.8),
    # an email told by its address or as changed, a new GP
    ("My new email is quinn.reyes@fastmail.com.", "My email is quinn@mail.com.", 0.8),
    ("I changed my email address, will send you the new one.", "My email is quinn@mail.com.", 0.8),
    ("I have a new number, will text it to you later.", "My number is 0752 119 3387.", 0.8),  # no digits told
    ("My email address has changed, I will send you the new one.", "My email is quinn@mail.com.", 0.8),
    ("I registered with a new GP, Dr Okafor, in Dundee.", "My doctor is Dr Haddad.", 0.8),
    # a partner and a number told as such, a handset with them
    ("I have a new partner, Isla, we met in May.", "My partner is Callum.", 0.8),
    ("I changed my number, will text you the new one.", "My number is 0752 119 3387.", 0.8),
    ("I got a new phone, my number is 0131 496 0006 now.", "My number is 0752 119 3387.", 0.8),
    # a car claim with a compound beside it
    ("I drive a Kia Niro now, the car insurance is cheaper too.", "I drive a Skoda Octavia.", 0.8),
    ("My new car is a Mazda MX-5, it arrived on Friday.", "I drive a Skoda Octavia.", 0.8),
]

NOT_LINKS = [
    ("My cousin just moved to Glasgow.", "I live in Paris and love it.", 0.4),  # someone else's fact
    ("My friend's daughter just started at Riverside Academy.", "My daughter goes to St Brigid's.", 0.55),
    ("Still in Paris, it's raining again.", "I live in Paris and love it.", 0.5),  # a restatement
    ("Should I move to Porto?", "I live in Paris and love it.", 0.5),  # a question
    ("So you moved to Porto, didn't you?", "I live in Paris and love it.", 0.5),  # an echo with a tag
    ("I moved the sofa to the window.", "I live in Paris and love it.", 0.1),  # far apart
    ("Thanks, Maria. Working together would be great!", "Yeah Maria! We did it together.", 0.6),  # chat
    ("I would love to live in Lisbon one day.", "I live in Paris and love it.", 0.5),  # a wish
    ("I'd love to move to Rome.", "I live in Paris and love it.", 0.5),
    ("I'm going to move to Porto next year.", "I live in Paris and love it.", 0.5),  # a plan
    ("I don't live in Porto, I only work there.", "I live in Paris and love it.", 0.5),  # negated
    ("She moved to Porto last week, I miss her.", "I live in Paris and love it.", 0.5),  # someone else
    ("So glad you moved to Porto!", "I live in Paris and love it.", 0.5),  # the one the user speaks to
    ("Saturday works for me.", "I work at Pinecrest Bank.", 0.3),  # not a workplace
    # LoCoMo: things people have several of, told without a change word
    ("I still have cats, Luna is sitting on the left.", "That one is Max, my childhood dog.", 0.6),
    ("Harry Potter is my favorite book.", "Here's a pic of my favorite, Lord of the Rings!", 0.55),
    ("I had a tough exam. But instead of giving up, I turned it into a learning experience.",
     "I've also started learning how to play the piano.", 0.44),  # 'instead of' doing something
    ("I may have found a job at a tech company I like.", "I lost my job at the mechanical engineering company.", 0.6),
    # LoCoMo's other speakers: a partner mentioned, not named; a value outside the claim (a day, the diet's own word)
    ("Last weekend my partner and I traveled to a meditation retreat for a few weeks in Phuket.",
     "Yesterday my partner and I got back from an awesome trip to Rio de Janeiro.", 0.52),
    ("Hey, Audrey! My girlfriend, Toby and I are going camping.",
     "Last Friday was amazing - I had a picnic with my girlfriend and it was so much fun!", 0.62),
    ("Last Monday I got to teach people vegan ice cream recipes on my own cooking show!",
     "I made vegan ice cream last Friday and shared it with some people in my vegan diet group.", 0.74),
    # a user asking an assistant for help (LongMemEval's kind of talk): a purchase is no car, "game-changer" no
    # change, a worry no fact
    ("I recently bought a new pair of running shoes, a real game-changer for my morning jogs.",
     "I just bought a new vacuum cleaner online with a 15% coupon.", 0.3),
    ("I bought a new Instant Pot and some kitchen knives.", "I bought a new vacuum cleaner in the Amazon sale.", 0.4),
    ("I'm worried about waking up at 7:00 am on days with meetings.", "I wake up at 6:45 on weekdays.", 0.6),
    # told for other days: a habit of some days is not changed by one told for none
    ("I've been waking up at 7:30 am lately.", "I've been waking up at 6:45 on Tuesdays and Thursdays for yoga.", 0.6),
    # ... also when those days are named in another clause ("on those days", "on such mornings")
    ("I've been waking up at 7:30 am lately.",
     "I joined a rowing club that trains on Tuesdays and Thursdays, so I wake up at 6:15 AM on those days.", 0.6),
    ("These days I get up at 8.", "Choir is on Wednesdays and I get up at 6 on such mornings.", 0.6),
    # a restatement that opens with the name it restates (a name that opens a sentence is read both ways)
    ("Quillon Labs is still my employer, no change there.", "I work at Quillon Labs.", 0.6),
    ("Dunfermline High is our son's school and he likes it.", "Our son goes to school at Dunfermline High.", 0.6),
    ("Our son is still at Dunfermline High school, no change.", "Dunfermline High is our son's school.", 0.6),
    # one value written two ways (values.value_form)
    ("My number is 07521193387, same as always.", "My number is 0752 119 3387.", 0.8),
    ("My number is 0752-119-3387.", "My number is 0752 119 3387.", 0.8),
    ("My mobile is +44 7521 193387.", "My number is 07521 193387.", 0.8),  # a country code where the 0 was
    ("I wake up at 7am on weekdays.", "I wake up at 7:00 on weekdays.", 0.8),
    ("My doctor is Dr Haddad.", "My doctor is Dr. Haddad.", 0.8),
    ("I work at Quillon now, loving it.", "I work at Quillon Labs.", 0.8),  # a name cut short
    ("My email is Quinn.Reyes@Mail.com now.", "My email is quinn.reyes@mail.com.", 0.8),
    # a past told later: what held once (claims.in_the_past)
    ("I lived in Aberdeen for ten years before I came here.", "I live in Inverness.", 0.8),
    ("My old number was 0745 330 8172, do not use it.", "My number is 0752 119 3387.", 0.8),
    ("My previous employer was Marsh & Finch.", "I work at Quillon Labs.", 0.8),
    ("Back when I worked for Marsh & Finch the hours were awful.", "I work at Quillon Labs.", 0.8),
    ("My former doctor, Dr Haddad, retired.", "My doctor is Dr Okafor.", 0.8),
    ("I was living in Aberdeen when we met.", "I live in Inverness.", 0.8),
    # a stay told for a while, or one of several numbers (WHILE, QUALIFIER)
    ("This week I am based in Aberdeen for the audit.", "I live in Inverness.", 0.8),  # a stay
    ("We are renting a cottage in Aberdeen for the holidays.", "I live in Inverness.", 0.8),
    ("I am working for a client, Marsh & Finch, this month.", "I work at Quillon Labs.", 0.8),
    ("Call me on my work number 0131 496 0001 during the day.", "My number is 0752 119 3387.", 0.8),  # one of several
    ("My work email is quinn@quillonlabs.com.", "My email is quinn@mail.com.", 0.8),
    # a habit's one day (ONE_DAY, HABITS)
    ("I woke up at 9 today, lovely lie-in.", "I wake up at 6:30 every day.", 0.8),  # one morning
    ("I saw Dr Patel today as my GP was away.", "My doctor is Dr Haddad.", 0.8),  # a visit
    ("I have an appointment with Dr Patel on Tuesday about my knee.", "My doctor is Dr Haddad.", 0.8),
    # a plan told in the present (PLANNED, TO_COME)
    ("I am moving to Aberdeen in March.", "I live in Inverness.", 0.8),
    ("We are moving to Aberdeen once the house sale goes through.", "We live in Inverness.", 0.8),
    ("I have accepted an offer from Quillon Labs, starting in September.", "I work at Marsh & Finch.", 0.8),
    # a place one goes to, or finds for something, is no home (NEW_PLACE); a thing of one's that moved is no move of
    # one's own (MOVED)
    ("We had dinner at a new place in Dundee, amazing ramen.", "I live in Inverness.", 0.8),
    ("Tried a cortado at the new place, interesting.", "I live in a flat in Inverness.", 0.8),
    ("Tried a cortado at the new place, interesting.", "My usual coffee is a flat white.", 0.8),
    ("I found a new place for haircuts, finally.", "I live in a flat in Inverness.", 0.8),
    ("My gym moved to a new place near the station.", "I live in a flat in Inverness.", 0.8),
    ("My office moved to Leith over the summer.", "I live in Inverness.", 0.8),
    ("Our book club has just moved to Dundee, a cosy cafe.", "I live in Inverness.", 0.8),
    # a number for a while away, a day's work elsewhere (WHILE), a one-off swap on one day (ONE_OFF)
    ("Text me on 07700 900123 while I am abroad.", "My number is 0752 119 3387.", 0.8),
    ("Email me at quinn@quillonlabs.com while I am at work.", "My email is quinn@mail.com.", 0.8),
    ("Spent the day working at a Starbucks in Leith.", "I work at Quillon Labs.", 0.8),
    ("I had a latte instead of my usual today.", "My usual coffee is a flat white.", 0.8),
    # company told with someone else's move, a wish or a visit; a venue one goes to (VISITED); someone else's thing (THEIRS)
    ("My sister and her husband moved to Aberdeen.", "I live in Inverness.", 0.8),
    ("My partner and I are thinking of moving to Aberdeen.", "I live in Inverness.", 0.8),
    ("My aunt, my uncle and my cousins moved to Dundee.", "I live in Inverness.", 0.8),  # a list with no "I"
    ("I helped my son and my daughter move to Dundee.", "I live in Inverness.", 0.8),
    ("I drove to Leith with my dad to see his new house.", "I live in Inverness.", 0.8),
    ("My friend and I went to the new place in Dundee for brunch.", "I live in Inverness.", 0.8),
    ("We went to the new place in Dundee.", "I live in Inverness.", 0.8),
    ("I visited his new house in Leith.", "I live in Inverness.", 0.8),
    # a partner in an activity (ACTIVITY_PARTNER); a handset with no number told (NUMBER_TOLD)
    ("My new running partner is Morag from work.", "My partner is Callum.", 0.8),
    ("Callum and I have been a couple since school.", "My partner is Callum.", 0.8),  # the same partner
    ("My business partner Ewan signed the lease today.", "My partner is Callum.", 0.8),
    ("My new phone is a Pixel 8, the camera is amazing.", "My number is 0752 119 3387.", 0.8),
    ("I got a new Samsung phone, same number though.", "My number is 0752 119 3387.", 0.8),
    # a car word that opens a compound (CAR_COMPOUND)
    ("My new car insurance is with Fenwick Direct.", "I drive a Skoda Octavia.", 0.8),
    ("My car loan with Leith Mutual is finally paid off.", "I drive a Skoda Octavia.", 0.8),
    # an email that is a message (EMAIL_TOLD); a doctor one is referred to (REFERRED)
    ("My email to Fenwick Analytics bounced, the address is wrong.", "My email is quinn@mail.com.", 0.8),
    ("My doctor referred me to Dr Lennox, a specialist.", "My doctor is Dr Haddad.", 0.8),
]


@pytest.mark.parametrize(("new", "old", "similarity"), LINKS)
def test_a_change_of_the_users_own_fact_is_a_link(new, old, similarity):
    assert changes(new, old, similarity)


@pytest.mark.parametrize(("new", "old", "similarity"), NOT_LINKS)
def test_what_changes_nothing_is_no_link(new, old, similarity):
    assert not changes(new, old, similarity)


def test_without_a_slot_rule_nothing_links():
    # another value and a change word, but no kind of fact the rules know: left unlinked (precision first)
    assert not changes("My lucky colour is Teal now.", "My lucky colour is Crimson.", 0.92)


def test_a_claim_is_the_users_own_statement_of_a_slot():
    said = "My daughter goes to St Brigid's, she loves her teacher."
    assert claims(said) == {"school": [Claim(said, said)]}  # 'she' is another clause
    # the value is looked for in the claim's clause and the next one, not in the whole sentence
    assert claims("I changed my number, it's 0752 119 3387 now, and Maria says hi.")["phone"][0].span == (
        "I changed my number, it's 0752 119 3387 now")
    assert "home" in claims("Hey Maria! Big news: I moved to Porto.")
    assert claims("Have you moved to Porto?") == {}
    assert claims("If I moved to Porto, I'd miss you.") == {}
    assert claims("She lives in Porto now.") == {}  # no first person at the phrase
    assert claims("The new flat in Porto made it worth it.") == {}  # nobody's: not linked either
    # a claim of a kind that is a value names it: no wake-up time, no claim of one
    assert "wake" not in claims("I'm slowly adjusting my wake-up time on non-yoga days.")
    assert "wake" in claims("I've been waking up at 7:30 am lately.")
    # a morning mentioned is no habit; a routine of the user's is
    assert "habit" not in claims("My new shoes are great for my morning jogs.")
    assert "habit" in claims("I switched my morning routine, now it's journaling first thing.")
    assert "car" not in claims("I just bought a new vacuum cleaner.")
    # a plural weekday tells a day that recurs: a weekly habit
    assert "schedule" in claims("I'll skip the film, I'm at the clay studio on Mondays now.")
    assert "schedule" not in claims("I'm at the clay studio on Monday.")  # one day: a date, not a habit
    # a clause is read at most CLAUSE_CHARS before its slot phrase: the first person must be near the phrase
    assert "home" in claims("I " + "really " * 20 + "live in Porto.")
    assert "home" not in claims("I " + "really " * (CLAUSE_CHARS // 7 + 1) + "live in Porto.")
    assert CHANGE.search("I changed my number") and not CHANGE.search("The shoes were a game-changer for me.")


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    ("Going in by tram each day, I got through a whole novel last week.", "commute", True),  # the main clause's "I"
    ("Coming in by bike, my route now, I passed the new cinema.", "commute", True),
    ("Living in Leeds, we love the markets.", "home", True),
    ("Walking to work by bus, she told me about it.", "commute", False),  # hers
    ("Going in by tram each day was tiring.", "commute", False),  # no subject of the user's
    ("Thinking of moving to Leeds, I looked at flats.", "home", False),  # a wish, as before
    ("Not living in Leeds anymore, I miss the markets.", "home", False),  # negated, as before
])
def test_a_clause_that_opens_with_a_participle_is_the_subjects_of_the_sentence(said, kind, claimed):
    """An opening clause with an -ing word has the main clause's subject: the user's when that is "I" or "we"."""
    assert (kind in claims(said)) is claimed


def test_the_evidence_the_rules_read():
    assert people("My cousin's daughter started school") == {"cousin", "daughter"}
    assert people("I moved to Porto") == frozenset()


@pytest.mark.parametrize(("said", "named"), [
    ("My godmother moved to Leeds", {"godmother"}),
    ("My stepdad and my step-sister came over", {"stepdad", "sister"}),  # a hyphenated one by its last word
    ("My spouse and our housemate cook on Sundays", {"spouse", "housemate"}),
    ("My manager at Quillon Labs approved my leave", {"manager"}),  # a role, after "my" (a job's matter: OWN)
    ("As a manager I approve leave, and the teacher at the gym is kind", set()),  # a role not after "my" or "our"
    ("My cousins and our neighbours moved away", {"cousins", "neighbours"}),  # plurals after "my" or "our"
    ("The neighbours in my new town are lovely, and I play squash with friends", set()),  # plurals in passing
    ("The parents' group chat for Leith High never sleeps", set()),  # a school's parents, in passing
    ("My parents and our parents' friends came round", {"parents"}),  # the user's own, after "my" or "our"
    ("Sounds like you had a lot of support from your parents", {"parents"}),  # another's: after "your", "his" ...
    ("Stephen went to the Godfrey Hotel", set()),  # names that begin as the words do
    ("Our landlord sold the building, and my gran moved in with my auntie", {"landlord", "gran", "auntie"}),
    ("My best mate and my ex both started at Globex", {"best mate", "ex"}),  # everyday words after "my"
    ("Thanks, mate! I mentor two interns and my exam went well", set()),  # the same words otherwise name no one
    ("The other half of the loaf is yours, buddy", set()),
    ("My better half and our significant others met", {"better half"}),  # a partner's words, after "my" or "our"
    ("The better half of the season is ahead", set()),
    ("My new manager and our two neighbours met my old mates", {"manager", "neighbours", "mates"}),  # one word between
    ("A new manager started, the old friends left, my very old friends stayed", set()),  # not after "my"; two words
])
def test_the_people_a_statement_names(said, named):
    assert people(said) == named
    assert values("Hey Maria! I moved to Porto on Saturday.") == {"porto", "saturday"}  # not whom it speaks to
    assert values("New SIM, new digits: 0789 951 4406.") >= {"0789 951 4406"}
    assert "home" in slots("Tomorrow is my first morning as a resident of Porto.")
    assert "work" in slots("Signed the contract with Orbital Foods yesterday.")  # a slot, but no one's claim


def test_someone_named_in_everyday_words_changes_nothing_of_the_users():
    """"My landlord moved to ..." is the landlord's move, not a change of the user's home; the partner's everyday
    words are the partner's own matter, so "my hubby" still states the user's partner."""
    assert changes("I moved to Tallinn last week.", "I live in Lisbon.", 0.3)
    for theirs in ("My landlord moved to Tallinn last week.", "My gran moved to Tallinn last week.",
                   "My mate moved to Tallinn last week."):
        assert not changes(theirs, "I live in Lisbon.", 0.3)
    assert {"partner", "hubby", "other half"} <= OWN["partner"]


def test_someone_named_in_the_plural_changes_nothing_of_the_users():
    """"My cousins moved to ..." is the cousins' move, not a change of the user's home; friends in passing (after
    "with") are company, and the user's own claim told with them still links."""
    for theirs in ("My cousins moved to Inverness last week.", "Our neighbours moved to Inverness last week."):
        assert not changes(theirs, "I live in Aberdeen.", 0.3)
    assert changes("I moved to Inverness with friends last week.", "I live in Aberdeen.", 0.3)


def test_someone_named_by_a_role_changes_nothing_of_the_users_but_on_the_roles_own_matter():
    """"My manager moved to ..." is someone else's move, not a change of the user's home; a role that acts on the
    user's own fact of a kind is that fact's matter (``OWN``): a new job told with the manager still changes the
    user's employer."""
    for theirs in ("My manager moved to Inverness last week.", "Our GP moved to Inverness last week."):
        assert not changes(theirs, "I live in Aberdeen.", 0.3)
    assert changes("I started at Quillon Labs last week, my manager is lovely.", "I work at Marsh & Finch.", 0.3)
    assert {"manager", "managers"} <= OWN["work"] and "manager" not in OWN.get("home", frozenset())


def test_someone_named_after_a_word_that_describes_them_changes_nothing_of_the_users():
    """"My new manager moved to ..." and "My old friends moved to ..." are theirs, as without the word between."""
    for theirs in ("My new manager moved to Inverness last week.", "My old friends moved to Inverness last week.",
                   "Our two sisters moved to Inverness last week."):
        assert not changes(theirs, "I live in Aberdeen.", 0.3)
    assert changes("I started at Quillon Labs last week, my new manager is lovely.", "I work at Marsh & Finch.", 0.3)


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    ("Moved to Porto last week!", "home", True),  # chat leaves the subject out: the user's own
    ("Just moved to Porto, boxes everywhere.", "home", True),
    ("Started a new job at Globex today.", "work", True),
    ("Signed the contract with Lumen Health yesterday, my badge arrives Monday.", "work", True),
    ("Got a new number: 0752 119 3387.", "phone", True),
    ("Ahmed moved to Porto.", "home", False),  # a name and its verb: Ahmed's move
    ("Ahmed lives in Leeds.", "home", False),
    ("Heard she moved to Porto.", "home", False),  # hers, as before
    ("Never moved to Porto.", "home", False),  # negated, as before
    ("Wanted to move to Porto.", "home", False),  # a wish, as before
    ("Working at Globex sounds fun.", "work", False),  # an -ing opener is as often a gerund subject
])
def test_a_sentence_with_its_subject_left_out_is_the_users(said, kind, claimed):
    assert (kind in claims(said)) is claimed


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    ("My mobile is 0771 482 9063 if you ever need me.", "phone", True),  # a condition on the listener hedges nothing
    ("I live in Leith if you're ever around.", "home", True),
    ("If you move to Dundee, call me.", "home", False),  # the listener's move: "if" stays in its clause
    ("I'd live in Dundee if you asked.", "home", False),  # the user's own hedge, as before
    ("I might move to Dundee if you come too.", "home", False),
    ("I'd move to Inverness if I could.", "home", False),  # a condition on the user: as before
])
def test_a_condition_on_the_listener_hedges_nothing_the_user_states_before_it(said, kind, claimed):
    assert (kind in claims(said)) is claimed


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    ("Quick update: I've left my old job and joined Quillon Labs.", "work", True),  # the subject carried over "and"
    ("We sold the flat and moved to Dundee.", "home", True),
    ("So I quit, and started at Marsh & Finch.", "work", True),  # past an empty clause between two boundaries
    ("I love Leith but moved to Dundee.", "home", True),
    ("My sister left her job and joined Quillon Labs.", "work", False),  # the clause before is not the user's
    ("She said I was great and moved to Dundee.", "home", False),  # ... nor opened by "I" or "we"
    ("I visited Dundee and moving there sounds fun.", "home", False),  # no verb in the past tense: no subject left out
    ("I asked Ahmed and he moved to Dundee.", "home", False),  # a subject of its own
])
def test_a_clause_joined_by_and_with_its_subject_left_out_is_the_users_when_the_one_before_opens_with_i(
        said, kind, claimed):
    assert (kind in claims(said)) is claimed


def test_a_rules_words_are_a_full_text_query_of_its_words_alone():
    """``rule_words``: the words of three letters or more of a kind's phrases, each once, no pattern syntax."""
    words = rule_words("partner").split()
    assert {"partner", "boyfriend", "dating", "married"} <= set(words) and len(words) == len(set(words))
    assert all(w.isalpha() and w.islower() and len(w) >= 3 for kind in SLOTS for w in rule_words(kind).split())
    assert all(rule_words(kind) for kind in SLOTS)


def test_a_change_with_its_subject_left_out_links():
    assert changes("Moved to Porto last week!", "I live in Paris and love it.", 0.25)
    assert not changes("Ahmed moved to Porto last week!", "I live in Paris and love it.", 0.25)


@pytest.mark.parametrize(("said", "kind"), [
    ("We've got a new address in Inverness now.", "home"),
    ("We're renting a cottage by the loch now.", "home"),
    ("I've joined Quillon Labs as of last week.", "work"),
    ("My new company is Brennan & Hale.", "work"),
    ("I'm now the lead analyst in our team.", "title"),
    ("Ring me on 0700 900 1234 from now on.", "phone"),
    ("New number: 0700 900 1234.", "phone"),  # a label of news: the user's own
    ("My go-to lunch is a falafel wrap these days.", "favourite"),
    ("I've switched to matcha in the mornings.", "coffee"),
    ("I'm flying to Oslo in June instead.", "trip"),
    ("I'm seeing Callum these days.", "partner"),
    ("I got engaged to Priya in June.", "partner"),
    ("Callum and I have been a couple since school.", "partner"),
    ("Callum and I have been an item for a year.", "partner"),
    ("I do everything on a Chromebook now.", "device"),
    ("I do everything on my Dell these days.", "device"),  # a laptop by its maker
    ("My new ZenBook arrived this morning.", "device"),
    ("Booked a table for Callum, my new other half.", "partner"),  # a name, then who they are
    ("Morag and my better half Isla say hi.", "partner"),  # a partner's everyday word before the name
    ("My partner is called Callum.", "partner"),  # the name told by "is called", "'s called", "'s name is"
    ("My partner's called Callum, we met at uni.", "partner"),
    ("My girlfriend's name is Isla.", "partner"),
    ("I go in on the Tube these days.", "commute"),  # going in on the means itself
    ("I'm getting in by ferry now, which is lovely.", "commute"),
    ("I live alone since the move.", "household"),
    ("I've taken up Norwegian classes.", "language"),
    ("We traded in the old hatchback for a Skoda.", "car"),
    ("I've taken up squash on Thursdays.", "sport"),
    ("I've taken up ultimate frisbee this spring.", "sport"),
    ("I've cut out meat completely.", "diet"),
    ("I take the tram to work now.", "commute"),
    ("I've been getting up at 6 these days.", "wake"),
    ("My piano lesson moved to Sunday afternoons.", "schedule"),
])
def test_a_direct_change_in_everyday_words_is_a_claim(said, kind):
    assert kind in claims(said)


@pytest.mark.parametrize(("said", "kind"), [
    ("I made a dairy-free chocolate cake for the party.", "diet"),  # a dish, not a diet
    ("I'd love to take up squash one day.", "sport"),  # a wish
    ("I never take the tram to work.", "commute"),  # negated
    ("She goes in on the Tube.", "commute"),  # hers
    ("Ewan, my business partner, signed the lease.", "partner"),  # a partner in business
    ("We saw Leith, my wife loved it.", "partner"),  # the place before, not the partner's name
    ("The HP printer jammed again.", "device"),  # HP alone is no laptop
    ("She's seeing Callum these days.", "partner"),  # hers
    ("They have been a couple for years.", "partner"),  # theirs
    ("Hey Callum, it's been a couple days since we talked.", "partner"),  # a few days
    ("We are a couple of weeks from the move to Leith.", "partner"),
    ("I joined a book club.", "work"),  # joining a club is no employer (only a name after "joined" is)
    ("I wake at last, after a long night.", "wake"),  # no time
])
def test_what_only_looks_like_a_change_in_everyday_words_is_no_claim(said, kind):
    assert kind not in claims(said)


@pytest.mark.parametrize(("said", "value", "claimed"), [
    ("I'm on the data team at Quillon Labs.", "quillon labs", True),
    ("I'm at Fenwick Analytics, in the operations team.", "fenwick analytics", True),
    ("I'm in the finance department at Marsh & Finch.", "marsh", True),
    ("I met the team at Quillon Labs yesterday.", None, False),  # a team met, not one's own
    ("We were at Fenwick Analytics, in the lobby.", None, False),  # a place one was at
])
def test_a_job_told_by_its_team_is_a_claim_of_the_employer(said, value, claimed):
    found = claims(said).get("work", [])
    assert bool(found) is claimed
    assert not claimed or any(value in claim_values(c, "work") for c in found)


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    ("I'm flying to Oslo in May instead.", "trip", True),  # the month
    ("I moved to Inverness in May.", "home", True),
    ("We may move to Inverness.", "home", False),  # the modal: a hedge
    ("Maybe I'll live in Inverness.", "home", False),
])
def test_may_the_month_is_no_hedge(said, kind, claimed):
    assert (kind in claims(said)) is claimed


@pytest.mark.parametrize(("said", "kind", "claimed"), [
    # the employer's guard ("work for me", "work all hours") is of whole words: a name may start with one
    ("I work for Medway Foods in Dundee.", "work", True),
    ("I work at Allsop & Finch now.", "work", True),
    ("I work at Usher Hall on weekends.", "work", True),
    ("My sister and I work all hours.", "work", False),
    ("You work for me now, remember.", "work", False),
    # what an employer's staff get, with the employer's name
    ("Picked up my Quillon Labs lanyard on the way in.", "work", True),
    ("The Fenwick Analytics induction took me all morning.", "work", True),
    ("My first payslip from Marsh & Finch landed today.", "work", True),
    ("I found a lanyard on the bus.", "work", False),  # no employer named
    # the day's start in its everyday forms
    ("I kick off the day with a cold shower now.", "habit", True),
    ("Starting the day with a swim, I feel awake by eight.", "habit", True),
    ("Once I'm up I write three pages.", "habit", True),
    ("I stretch at sunrise, every single day.", "habit", True),
    ("I started the project last day of term.", "habit", False),
    # the one seeing told in a relative clause or by what they are
    ("I took Callum, who I'm seeing now, to the Leith gig.", "partner", True),
    ("The woman I'm seeing is a chef in Dundee.", "partner", True),
    ("I'm seeing the dentist on Friday.", "partner", False),
    # the animals people keep at home, and not those one meets outdoors
    ("We've adopted a gecko called Moss.", "pet", True),
    ("Our guinea pig squeaks at the fridge.", "pet", True),
    ("My bearded dragon loves the heat lamp.", "pet", True),
    ("I saw a snake on the hike near Inverness.", "pet", False),
    ("We're flying to the Canary Islands.", "pet", False),
    # homes of two words, or not in the first list
    ("We rent a canal boat in Leith.", "home", True),
    ("I bought a townhouse in Dunfermline.", "home", True),
])
def test_the_claim_rules_read_new_values_and_everyday_forms(said, kind, claimed):
    assert (kind in claims(said)) is claimed


def test_an_animal_kept_at_home_is_a_pets_value_at_read_time():
    assert KIND_WORDS["pet"].search("The axolotl knocked its bowl over.")
    assert KIND_WORDS["pet"].search("Two guinea pigs joined us.")
    assert not KIND_WORDS["pet"].search("A hedgehog crossed the road.")


def test_a_change_in_everyday_words_links():
    assert changes("I've joined Quillon Labs as of last week.", "I work at Marsh & Finch.", 0.3)
    assert changes("New number: 0700 900 1234.", "My number is 0700 111 2222.", 0.3)
    assert not changes("My sister joined Quillon Labs last week.", "I work at Marsh & Finch.", 0.3)


def test_a_question_inside_a_turn_is_no_claim_and_a_closing_word_no_value():
    """Each sentence keeps its closing marks, so a question in the middle of a text is known as one (a claim skips
    it), and a word that is a whole sentence ("Haha.") is its first word, not a value."""
    assert sentences("Have I moved to Porto? No way. I live in Paris.") == [
        "Have I moved to Porto?", "No way.", "I live in Paris."]
    assert claims("Did I move to Porto? I doubt it.") == {}
    assert "home" in claims("Guess what? I moved to Porto.")
    assert values("I'm gonna find the best spot for the hike. Haha.") == frozenset()
    assert values("I moved to Porto. Haha.") == {"porto"}


@pytest.mark.parametrize(("said", "named"), [
    ("I live with my partner, Tobias.", {"tobias"}),  # beside "my partner": who Tobias is, not whom it speaks to
    ("Our dog, Rex!", {"rex"}),
    ("Thanks for the tip, Maria.", set()),  # whom it speaks to
    ("I've had tough times with my business, Jon.", set()),  # a business is no one: Jon is spoken to
    ("See you soon, John!", set()),
])
def test_a_name_beside_a_word_for_a_person_is_a_value_not_whom_the_turn_speaks_to(said, named):
    assert values(said) == named


def test_a_partner_named_by_is_called_names_the_partner_not_a_possessives_kin():
    """"My partner's called Callum" claims the partner and names Callum; "my partner's Mum" names no partner."""
    assert {claim_values(c, "partner") for c in claims("My partner's called Callum, we met at uni.")["partner"]} == {
        frozenset({"callum"})}
    assert "partner" not in claims("My partner's Mum came round for tea.")


def test_a_households_number_is_read_to_twenty():
    """"eleven of us" names its number as "four of us" does."""
    for said, value in (("There are eleven of us at home now.", "eleven of us"),
                        ("We're twenty of us under one roof at Christmas.", "twenty of us")):
        assert {v for c in claims(said)["household"] for v in claim_values(c, "household")} >= {value}


def test_a_partner_named_beside_the_word_links_when_another_is_named_so():
    assert changes("I live with my partner, Henrik, since the spring.", "I live with my partner, Tobias.", 0.5)


def test_a_name_that_opens_a_sentence_is_read_both_ways():
    assert values("Quillon Labs is my employer.") == {"labs"}  # as a word capitalised by its place
    assert values("Quillon Labs is my employer.", first_word=True) == {"quillon labs"}
    assert values("Visited Inverness last week.") == {"inverness"}
    assert values("Painting the walls took all weekend.", first_word=True) == frozenset()  # one word: as before
    assert opens_with_name("It was long. Quillon Labs is my employer.")
    assert not opens_with_name("Painting the walls took all weekend. I work at Quillon Labs.")


@pytest.mark.parametrize(("value", "form"), [
    ("07:00", "7"), ("7:30", "7:30"), ("0752 119 3387", "521193387"), ("44 7521 193387", "521193387"),
    ("07521 193387", "521193387"), ("007", "7"), ("dr. haddad", "dr haddad"), ("quinn@mail.com", "quinn@mail.com"),
])
def test_the_written_form_of_a_value(value, form):
    assert value_form(value) == form


def test_an_email_that_opens_with_a_capital_is_an_email_not_a_name():
    assert values("Write to Quinn.Reyes@Mail.com from now on.") == {"quinn.reyes@mail.com"}
    assert name_openings("quillon labs ltd") == ["quillon", "quillon labs"]
    assert name_openings("521193387") == [] and name_openings("a@b.com") == []


def test_what_still_holds_or_just_changed_is_not_the_past():
    assert not in_the_past(claims("I've lived in Aberdeen for ten years.")["home"][0])  # holds still
    assert not in_the_past(claims("I moved to Aberdeen last month.")["home"][0])  # a change
    assert in_the_past(claims("Years ago I lived in Aberdeen, loved it.")["home"][0])
    assert changes("I moved to Aberdeen last month.", "I live in Inverness.", 0.8)
    assert changes("I switched doctors, I see Dr Okafor now.", "My doctor is Dr Haddad.", 0.8)


@pytest.mark.parametrize(("said", "named"), [
    ("Elodie and I have been a couple since college.", {"elodie"}),
    ("Since May, Callum and I have been together.", {"callum"}),
    ("Mum and I have been together through all of it.", set()),  # a word for a person is no partner's name
    ("I've been dating Callum since May.", {"callum"}),
])
def test_a_partner_named_with_the_speaker_is_the_claims_value(said, named):
    found = claims(said).get("partner", [])
    assert {v for c in found for v in claim_values(c, "partner")} == named
    assert {v for c in claims("Sarah and I moved to Leith.")["home"] for v in claim_values(c, "home")} == {"leith"}
