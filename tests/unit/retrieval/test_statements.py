"""Unit layer (retrieval.statements): whose fact a user's turn states, for the current-value stage: someone else's
("my cousin moved to Glasgow", "my godmother moved to Leeds") is not the user's; of a statement naming someone, the
user's own clauses that claim the kind asked about are (someone named as the user's company goes along); on the
household, anyone is of the matter but the owner of another household ("my neighbour's family"); a name the user says
to the person they talk to is left out of what the stage embeds."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cbmemory.models import Hit, MemoryRecord
from cbmemory.retrieval.slots import ABOUT_PEOPLE, matter
from cbmemory.retrieval.statements import addressees, kept_texts, own, own_clauses, unaddressed


@pytest.mark.parametrize(("said", "kind", "expected"), [
    ("I got vaccinated for Peru, our trip now, and the nurse asked about your sister.", "trip",
     "I got vaccinated for Peru, our trip now"),  # the user's trip; the sister is in a clause of her own
    ("We've got a tortoise now, the old one lives with my aunt.", "pet", "We've got a tortoise now"),
    ("My cousin just became a resident of Glasgow, she loves it.", "home", ""),  # hers: "she" is the cousin
    ("My brother moved to Porto and I helped carry the boxes to his new flat.", "home", ""),  # his flat
    ("My sister moved to Porto.", "home", ""),  # one clause, naming her
    ("I moved to Leeds with my sister.", "home", "I moved to Leeds with my sister."),  # she goes along: the user's
    ("On weekends I play squash with friends.", "sport", "On weekends I play squash with friends."),
    ("I moved to Leeds with my sister, she found the flat.", "home", "I moved to Leeds with my sister"),
    ("I had dinner with my parents, they moved to Leeds.", "home", ""),  # theirs, though the first clause is not
    ("My cousin moved to Glasgow with her kids.", "home", ""),  # the cousin is no company
    # the kind in one clause, the first person in the next: read together for the claim
    ("The Welsh lessons, which is what I do on Tuesdays now, at my sister's college are great fun.", "language",
     "The Welsh lessons, is what I do on Tuesdays now"),
    ("My cousin's Welsh lessons are great fun, I should try.", "language", ""),  # hers, and no claim of the user's
])
def test_of_a_statement_naming_someone_the_users_own_clauses_are_read(said, kind, expected):
    """``own_clauses``: the clauses that name no one else (someone named as company, "with my sister", goes along)
    and have no third- or second-person word, when one of them is in the first person and they claim the kind; else
    nothing."""
    assert own_clauses(said, frozenset(), kind) == expected


def test_a_statement_naming_someone_is_the_users_only_by_clauses_that_claim_the_kind():
    """``own``: of a statement naming someone the question does not, its own clauses count when they claim the
    question's kind of fact (a long memory's statements about family hold many other first-person clauses)."""

    def turn(text: str) -> MemoryRecord:
        when = datetime(2023, 5, 1, tzinfo=timezone.utc)
        return MemoryRecord("r", "u", "s", "turn", 0, "user", text, text, when, when, "h")

    trip = turn("I got vaccinated for Peru, our trip now, and the nurse asked about your sister.")
    assert own(trip, frozenset(), frozenset(), "trip") == "I got vaccinated for Peru, our trip now"
    assert own(trip, frozenset(), frozenset(), "home") == ""  # no claim of a home in them
    assert own(trip, frozenset(), frozenset(), None) == ""  # a matter with no rules
    family = turn("When times get hard I remember why I do this, and my family keeps me going.")
    assert own(family, frozenset(), frozenset(), "habit") == ""
    assert own(turn("I moved to Porto."), frozenset(), frozenset(), "home") == "I moved to Porto."  # names no one
    for theirs in ("My godmother moved to Leeds last month.", "My stepdad started at Pinecrest Bank on Monday.",
                   "My step-sister moved to Porto.", "My landlord moved to Porto.", "My bestie moved to Porto.",
                   "My old schoolfriend moved to Dundee.", "My penpal moved to Leith.", "My bandmate moved to Leith."):
        assert own(turn(theirs), frozenset(), frozenset(), "home") == ""  # someone else's, in any word for them
    hubby = turn("My hubby and I moved in together, and he cooks on Sundays.")  # the partner's matter: the user's own
    assert own(hubby, frozenset(), ABOUT_PEOPLE["partner"], "partner") == hubby.text
    for theirs in ("My cousins moved to Inverness.", "Our neighbours moved to Inverness.",
                   "My old schoolfriends moved to Inverness."):
        assert own(turn(theirs), frozenset(), frozenset(), "home") == ""  # in the plural
    ours = turn("Our daughters started at Harewood Primary, we are all thrilled.")  # a child's school: its matter
    assert own(ours, frozenset(), ABOUT_PEOPLE["child_school"], "school") == ours.text
    manager = turn("My manager moved to Inverness.")  # someone named by a role
    assert own(manager, frozenset(), matter("home_city"), "home") == ""
    leave = turn("My manager at Quillon Labs approved my leave.")  # a role on the user's own job: its matter
    assert own(leave, frozenset(), matter("employer"), "work") == leave.text
    assert own(leave, frozenset(), matter("home_city"), "home") == ""


@pytest.mark.parametrize(("said", "mine"), [
    ("My neighbour's family is six people now.", False),  # the neighbour's household
    ("My landlady's house has nine people in it now.", False),
    ("My colleague's new flat in Leith has four of them in it.", False),
    ("My sister's kids moved in with us, so we're seven now.", True),  # the sister's kids join the user's household
    ("Since my mum's moved in, we are five at dinner.", True),  # "mum's" is "mum has"
    ("My mum moved in with us last week.", True),  # any person may join it
])
def test_on_the_household_someone_named_as_the_owner_of_a_household_is_someone_else(said, mine):
    """``own``: on a matter of any person (the household), someone named as the owner of a household or a home
    (``owners``) is not of it: their household is theirs."""
    when = datetime(2023, 5, 1, tzinfo=timezone.utc)
    r = MemoryRecord("r", "u", "s", "turn", 0, "user", said, said, when, when, "h")
    assert (own(r, frozenset(), matter("household"), "household") == said) is mine


def test_the_people_a_kind_of_fact_is_about():
    """``slots.matter``: the people words a statement on a kind may name and stay the user's own."""
    assert matter("household") is None  # any relative: one moving in changes the household
    assert {"boyfriend", "hubby"} <= matter("partner") and {"manager", "supervisor"} <= matter("employer")
    assert {"gp", "dentist"} <= matter("doctor") and {"teacher", "daughters"} <= matter("child_school")
    assert matter("home_city") == frozenset()  # no one: "my manager moved to Inverness" is someone else's


@pytest.mark.parametrize(("said", "mine"), [
    ("Ingrid met my parents on Sunday and they got on well.", True),  # the parents are the object of her act
    ("I visited my parents in Harrogate.", True),
    ("I called Mum yesterday.", True),
    ("Olek drove our kids to the lake.", False),  # followed by "to": not read as an object
    ("I heard my cousin moved to Glasgow.", False),  # the cousin is the subject of the move
    ("I helped my cousin with her move to Glasgow.", False),
    ("My cousin just moved to Glasgow.", False),
    ("Yesterday my cousin moved to Glasgow.", False),  # no verb before the name
    ("and then my brother moved in.", False),
    ("We had dinner at my sister's place.", False),  # an owner, not an object
    ("The parents' evening at Elmwood School clashed with yoga.", True),  # a school's parents: no one of the user's
    ("The barbecue at my parents' house clashed with yoga.", False),  # the user's parents, as owners
    ("My little sister, Elin, lives in Porto now.", False),  # "little" is no verb: "my" is not right before her
    ("I love my little sister.", True),  # "little" describes her: the verb before "my" is what counts
    ("I visited my old friends in Dunfermline.", True),
    ("My old friends moved to Dunfermline.", False),
    ("Yesterday my new manager moved to Dunfermline.", False),
    ("You'll find the right flat for you and your new furry friend.", False),
])
def test_a_relative_named_as_the_object_of_an_act_is_not_who_the_statement_is_about(said, mine):
    """``own``: a person named right after a verb and before the clause's end or a word of time or place is the
    object of that act ("Ingrid met my parents on Sunday" is news of the partner, Ingrid); a person who is the
    subject, an owner, or followed by anything else still makes the statement someone else's."""
    when = datetime(2023, 5, 1, tzinfo=timezone.utc)
    r = MemoryRecord("r", "u", "s", "turn", 0, "user", said, said, when, when, "h")
    assert (own(r, frozenset(), frozenset(), "partner") == said) is mine


@pytest.mark.parametrize(("said", "asked", "kind", "mine"), [
    ("She just moved to Dunfermline!", frozenset(), "home", False),  # someone just named: not the user's move
    ("He's started at Quillon Labs, he loves it.", frozenset(), "work", False),
    ("She moved in, so we're three at home now.", frozenset(), "household", True),  # "we": the user's own too
    ("She just moved to Dunfermline!", frozenset({"sister"}), "home", True),  # the question asks about someone
    ("She's settled in well, our new kitten.", frozenset(), "pet", True),  # a pet is he or she
    ("Shelley's class moved to Thursdays.", frozenset(), "schedule", True),  # a name that begins as "she"
    ("They moved my class to Thursdays.", frozenset(), "schedule", True),  # "they" is often no one in particular
])
def test_a_statement_that_opens_with_he_or_she_and_says_nothing_of_the_user_is_someone_elses(said, asked, kind,
                                                                                            mine):
    """``own``: "She just moved to Dunfermline!" after a turn about someone is that person's news."""
    when = datetime(2023, 5, 1, tzinfo=timezone.utc)
    r = MemoryRecord("r", "u", "s", "turn", 0, "user", said, said, when, when, "h")
    assert (own(r, asked, frozenset(), kind) == said) is mine


@pytest.mark.parametrize(("said", "expected"), [
    ("Thanks, Maria! Working together would be great!", "Thanks! Working together would be great!"),
    ("Hey Mel, what's up? Been a busy week.", "Hey, what's up? Been a busy week."),
    ("I live in Inverness. Take care, Mel.", "I live in Inverness. Take care."),
    ("Wow, Maria, how cute!", "Wow, how cute!"),
    # not said to anyone: kept as they are
    ("I told Maria about the move.", "I told Maria about the move."),
    ("I moved to Leith, Edinburgh.", "I moved to Leith, Edinburgh."),
    ("Well, Inverness is home now.", "Well, Inverness is home now."),
    ("Yes, Quillon Labs hired me.", "Yes, Quillon Labs hired me."),
])
def test_a_name_said_after_a_greeting_is_left_out_of_what_is_embedded(said, expected):
    assert unaddressed(said) == expected


def test_the_names_of_those_the_user_talks_to_are_left_out_where_they_address_them():
    talked_to = frozenset({"Maria", "Melanie"})
    assert unaddressed("Maria, what's the deal with that note?", talked_to) == "what's the deal with that note?"
    assert unaddressed("That means a lot, Maria. Your support matters.", talked_to) == \
        "That means a lot. Your support matters."
    assert unaddressed("You're right, Mel.", talked_to) == "You're right."  # a short form of Melanie
    # another name, or the name not said to them, stays
    assert unaddressed("I live with my partner, Ingrid.", talked_to) == "I live with my partner, Ingrid."
    assert unaddressed("Maria and I went hiking.", talked_to) == "Maria and I went hiking."
    assert unaddressed("That means a lot, Maria.") == "That means a lot, Maria."  # no names known


def test_who_the_user_talks_to_is_read_from_the_other_roles_records():
    at = datetime(2024, 5, 1, tzinfo=timezone.utc)
    user = MemoryRecord("r1", "u", "s", "turn", 0, "user", "Thanks, Maria!", "Thanks, Maria!", at, at, "h1",
                        speaker="John")
    other = MemoryRecord("r2", "u", "s", "turn", 1, "assistant", "Anytime, John.", "Anytime, John.", at, at, "h2",
                         speaker="Maria")
    assert addressees([Hit(record=user, score=1.0, context=(other,))]) == frozenset({"Maria"})
    assert kept_texts(user) == ("Thanks!",)  # the vector kept at write is of the statement without the name
