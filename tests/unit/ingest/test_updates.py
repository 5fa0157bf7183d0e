"""Unit layer (ingest.updates): the write-time rules of supersession, one kind of link or non-link per test.
Pure: the similarity a caller measures is given."""

import pytest

from cbmemory.ingest.updates import changes, people, slots, values

LINKS = [  # (new, old, similarity): the user's new statement changes the old one
    ("Big news: I moved to Porto last week.", "I live in Paris and love it.", 0.25),  # lives in / moved
    ("I started a new job at Lumen Health this month.", "I work at Pinecrest Bank.", 0.3),  # works at
    ("I changed my phone number, it's 0752 119 3387 now.", "You can reach me on 0745 330 8172.", 0.4),  # my X is
    ("I switched doctors, I see Dr. Haddad now.", "My doctor is Dr. Okafor, she's very thorough.", 0.5),  # switched
    ("Change of plans, the big trip is going to be Peru instead.", "My next big trip is to Iceland.", 0.45),  # instead
    ("We moved my daughter to Riverside Academy this term.", "My daughter goes to St Brigid's.", 0.45),  # same person
    ("Back home: I moved back to Paris last week.", "Big news: I moved to Porto last week.", 0.46),  # a revert
]

NOT_LINKS = [
    ("My cousin just moved to Glasgow.", "I live in Paris and love it.", 0.4),  # someone else's fact
    ("My friend's daughter just started at Riverside Academy.", "My daughter goes to St Brigid's.", 0.55),
    ("Still in Paris, it's raining again.", "I live in Paris and love it.", 0.5),  # a restatement
    ("Should I move to Porto?", "I live in Paris and love it.", 0.5),  # a question
    ("I moved the sofa to the window.", "I live in Paris and love it.", 0.1),  # far apart
    ("Thanks, Maria. Working together would be great!", "Yeah Maria! We did it together.", 0.6),  # chat
]


@pytest.mark.parametrize(("new", "old", "similarity"), LINKS)
def test_a_change_of_the_users_own_fact_is_a_link(new, old, similarity):
    assert changes(new, old, similarity)


@pytest.mark.parametrize(("new", "old", "similarity"), NOT_LINKS)
def test_what_changes_nothing_is_no_link(new, old, similarity):
    assert not changes(new, old, similarity)


def test_without_a_slot_rule_a_change_word_and_nearly_the_same_embedding_are_needed():
    assert changes("My lucky colour is Teal now.", "My lucky colour is Crimson.", 0.92)
    assert not changes("My lucky colour is Teal now.", "My lucky colour is Crimson.", 0.7)
    assert not changes("Turn 4 about the garden.", "Turn 2 about the garden.", 0.97)  # alike but for a value


def test_the_evidence_the_rules_read():
    assert people("My cousin's daughter started school") == {"cousin", "daughter"}
    assert people("I moved to Porto") == frozenset()
    assert values("Hey Maria! I moved to Porto on Saturday.") == {"porto", "saturday"}  # not whom it speaks to
    assert values("New SIM, new digits: 0789 951 4406.") >= {"0789 951 4406"}
    assert "home" in slots("Tomorrow is my first morning as a resident of Porto.")
    assert "work" in slots("Signed the contract with Orbital Foods yesterday.")
