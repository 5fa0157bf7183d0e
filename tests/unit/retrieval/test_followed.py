"""Unit layer: the values a statement's claims of a kind name (``cbmemory.retrieval.followed.claimed_values``: the
write-time rules' claim and values, lower case, and a pet's, a sport's, a home's, a job title's, a dish's, a commute's
or a coffee order's words: ``kind_words``) and whether a statement names one again (``names_value``: a whole sequence
of words, any case), and whether it names a value of a slot's shape (``shaped``: an email address, a phone number, a
school's, a city's or a company's name). Pure functions over text."""

import pytest

from cbmemory.retrieval.followed import claimed_values, kind_words, names_value, shaped


@pytest.mark.parametrize(("said", "kind", "values"), [
    ("I live in Lisbon now, near the river.", "home", {"lisbon"}),
    ("I work for Lumen Health these days.", "work", {"lumen health"}),
    ("My new number is 07700 900123, save it.", "phone", {"07700 900123"}),
    ("We're vegetarian now, all of us.", "diet", {"vegetarian"}),
    ("I'd love to live in Lisbon one day.", "home", set()),  # a wish claims nothing
    ("I don't live in Glasgow.", "home", set()),  # a negation claims nothing
    ("I live in Lisbon now.", "work", set()),  # no claim of that kind
    ("I have a tortoise now, he's great.", "pet", {"tortoise"}),  # a pet's word, read as a value at read time
    ("We adopted two cats last month.", "pet", {"cat"}),  # in the singular
    ("I play water polo on weekends now.", "sport", {"water polo"}),
    ("I play ultimate frisbee on weekends now.", "sport", {"ultimate frisbee"}),
    ("We rent a canal boat in Leith now.", "home", {"leith", "canal boat"}),  # the home's kind as well as its city
    ("I would love a tortoise one day.", "pet", set()),  # a wish: no claim, no value
    ("I love running in the park.", "sport", set()),  # no claim of the kind
    ("My role is head of design, I've held it for two years.", "title", {"head of design"}),  # a title's words
    ("Nothing beats paella for me, it's my favourite.", "favourite", {"paella"}),  # a dish's words
    ("I've been made team lead at Fenwick Analytics.", "title", {"team lead", "fenwick analytics"}),
    ("I get to the office on rollerblades most days.", "commute", {"rollerblade"}),  # a means' words
    ("I get to work by motorbike these days.", "commute", {"motorbike"}),
    ("My usual order is an oat latte, no sugar.", "coffee", {"oat latte"}),  # a coffee's words, not "latte" alone
])
def test_the_values_a_statements_claims_of_a_kind_name(said, kind, values):
    assert claimed_values(said, kind) == values


def test_a_claims_values_without_the_kinds_words():
    """On a slot of names only (``slots.NAMES_ONLY``: the home's city) the stage reads a claim's values without the
    kind's words."""
    assert claimed_values("We rent a canal boat in Leith now.", "home", words=False) == {"leith"}
    assert claimed_values("I play water polo on weekends now.", "sport", words=False) == set()


@pytest.mark.parametrize(("said", "kind", "words"), [
    ("The tortoise chewed through a charging cable already.", "pet", {"tortoise"}),
    ("Both dogs and the kitten slept all day.", "pet", {"dog", "kitten"}),
    ("Sore shoulders from Saturday's fencing session.", "sport", {"fencing"}),
    ("The tortoise chewed through a charging cable already.", "sport", set()),  # not the kind's word
    ("The tortoise chewed through a charging cable already.", "home", set()),  # not the kind's word
    ("The tortoise chewed through a charging cable already.", "work", set()),  # a kind with no such words
    ("Painted the front door of the canal boat green.", "home", {"canal boat"}),
    ("The houseboat and the terraced house next door.", "home", {"houseboat", "house"}),
    ("Dogmatic catalogues.", "pet", set()),  # parts of other words
    ("New business cards arrived and they say senior analyst.", "title", {"senior analyst"}),
    ("Since becoming staff engineer I barely see the garden.", "title", {"staff engineer"}),  # not "becoming"
    ("The org chart says head of design next to my name.", "title", {"head of design"}),
    ("Now that I'm team lead I have a budget.", "title", {"team lead"}),
    ("I lead the choir on Sundays and my manager sings.", "title", {"manager"}),  # a lead needs its team
    ("The principal reason is the rent.", "title", set()),
    ("Engineering managers and headcount.", "title", {"engineering manager"}),
    ("I've had green curry three times this week.", "favourite", {"green curry"}),  # not "curry" alone
    ("We shared tacos and a pizza.", "favourite", {"taco", "pizza"}),
    ("The pizzeria by the pastificio.", "favourite", set()),  # parts of other words
    ("Bumped into an old schoolfriend on the way in by river bus.", "commute", {"river bus"}),  # not "bus" alone
    ("Could you check the weather? I go in on the Tube these days.", "commute", {"tube"}),
    ("I'll catch the tram, or go on my bike.", "commute", {"tram", "bike"}),
    ("Parked by the bus stop, then the car park was full.", "commute", set()),  # a means only as the way one goes
    ("The bus was late and the train was packed.", "commute", set()),  # no "by" or "on": no way one went
    ("Typing one-handed with a lungo in the other.", "coffee", {"lungo"}),
    ("Two flat whites and a cafe con leche, please.", "coffee", {"flat white", "cafe con leche"}),
    ("A tea party with decaffeinated guests.", "coffee", set()),  # parts of other words, or no drink
])
def test_the_words_of_a_kind_a_statement_names(said, kind, words):
    assert kind_words(said, kind) == words and kind_words(said, None) == frozenset()


@pytest.mark.parametrize(("said", "value", "named"), [
    ("Tomorrow is my first morning back as a LISBON local.", "lisbon", True),
    ("The Lisbon rain again!", "lisbon", True),
    ("Lisboners are friendly.", "lisbon", False),  # part of another word
    ("The canteen at Lumen Health is great.", "lumen health", True),
    ("Lumen and Health are two words here.", "lumen health", False),
    ("Write to ana@example.org from now on.", "ana@example.org", True),
    ("Write to diana@example.org from now on.", "ana@example.org", False),
    ("St Brigid's had a fair today.", "st brigid", True),
    ("Back on the low-FODMAP plan, my gut says thanks.", "fodmap", True),  # a name after a hyphen, as values reads it
    ("Trying a non-vegan week.", "vegan", False),  # no name: the hyphen joins the words
])
def test_a_statement_names_a_value_as_a_whole_sequence_of_words(said, value, named):
    assert names_value(said, value) is named


def _pool(*saids: str):
    """One user statement a day, in the order given (day 0 first), each with what it states."""
    from datetime import datetime, timedelta, timezone

    from cbmemory.models import MemoryRecord

    day = datetime(2026, 3, 1, tzinfo=timezone.utc)
    return [(MemoryRecord(record_id=f"r{k}", user_id="u", session_id=f"s{k}", kind="turn", text=said, index_text=said,
                          role="user", occurred_at=day + timedelta(days=k), ingested_at=day, content_hash=f"h{k}",
                          position=0), said) for k, said in enumerate(saids)]


@pytest.mark.parametrize(("said", "slot", "is_shaped"), [
    ("Anything for me should go to callum.ross@quillon.com from now.", "email", True),  # no claim, the address's shape
    ("Please use still.waters@leith.net for everything.", "email", True),
    ("Ring 07700 900456 if you need me, the old phone died.", "phone", True),
    ("Use +44 7700 900789 for me please.", "phone", True),
    ("Best to text 0131 496 0000 from today.", "phone", True),
    ("Please use callum.ross@quillon.com for everything.", "phone", False),  # an address is no number
    ("Ring 07700 900456 if you need me.", "email", False),  # nor a number an address
    ("We were 2021, 2022, 2023 champions in Dundee.", "phone", False),  # a list of years is no phone number
    ("The flat is 120 square metres, 3 bedrooms.", "phone", False),  # numbers, too few digits
    ("I live in Inverness now.", "email", False),
    ("I live in Inverness now.", None, False),
    ("Her first week at St Brigid's went fine, new uniform and all.", "child_school", True),  # a saint's name
    ("She came home from Hillcrest Primary with paint in her hair.", "child_school", True),
    ("Had to sew a Dundee Grammar badge onto her blazer.", "child_school", True),
    ("She came home from Callum's with paint in her hair.", "child_school", False),  # a name that says no school
    ("High tide at Leith was at noon.", "child_school", False),  # the word alone is no school's name
    ("Her first week at St Brigid's went fine.", "employer", False),  # the school's shape is the school's slot only
    ("The neighbours here in Dundee brought round a cake to welcome us.", "home_city", True),  # a city's name
    ("Sorry, the wifi at the new place in Dunfermline only got connected today.", "home_city", True),
    ("The trams in Kraków are always late.", "home_city", True),  # its accent dropped
    ("The neighbours here brought round a cake from Fenwick Analytics.", "home_city", False),  # a name, no city's
    ("The neighbours here in Dundee brought round a cake.", "home_kind", False),  # the home's city only, not its kind
    ("Callum rang about the Quillon Labs launch.", "home_city", False),
    ("Got my Quillon Labs lanyard and laptop today.", "employer", True),  # a company's name
    ("Between the Fenwick Analytics onboarding sessions I barely ate.", "employer", True),
    ("The Dundee Credit Union app is down again.", "employer", True),
    ("Labs are my favourite dogs.", "employer", False),  # the word alone is no company's name
    ("We had dinner at Callum's.", "employer", False),
    ("Got my Quillon Labs lanyard today.", "home_city", False),  # the company's shape is the employer's slot only
])
def test_an_email_a_phone_number_a_schools_or_a_citys_name_is_of_its_slot_by_its_shape(said, slot, is_shaped):
    assert shaped(said, slot) is is_shaped


def test_a_value_named_first_after_the_best_ranked_statement_is_shown_the_newest_first():
    """``named_anew``: of the statements later than the best-ranked one, those naming a value no earlier statement
    named, that the head reads as of the kind at least ``ANEW_FLOOR`` and that are not shown, the newest ``ANEW``."""
    import numpy as np

    from cbmemory.retrieval.followed import ANEW, ANEW_FLOOR, named_anew

    pool = _pool("I'm at Marsh & Finch, in the accounts team.",  # r0: the best-ranked (the old claim)
                 "Lunch with Marsh & Finch people again.",  # r1: names a value named before
                 "My security pass for Quillon Labs finally works on every door.",  # r2: a value named first
                 "The badge from Quillon Labs came in the post.",  # r3: named before (by r2)
                 "The Aberdeen trip photos are up.",  # r4: named first, the head reads it below the floor
                 "The canteen at Dunfermline Works is far better.")  # r5: named first
    scores = [0.8, 0.4, None, None, None, 0.3]
    learned = np.array([0.9, 0.3, 0.07, 0.3, ANEW_FLOOR / 2, 0.1])
    assert ANEW == 2
    assert [r.record_id for r in named_anew(pool, learned, scores, shown=set())] == ["r2", "r5"]
    assert [r.record_id for r in named_anew(pool, learned, scores, shown={"r5"})] == ["r2"]  # shown already
    # a best-ranked statement later than them: none of them is after it
    assert named_anew(pool, learned, [0.8, 0.4, None, None, None, 0.9], shown=set()) == []
    assert named_anew(pool, learned, [None] * 6, shown=set()) == []  # nothing on the slot: no reference
    assert named_anew([], np.empty(0), [], shown=set()) == []


def test_a_claim_naming_a_value_no_earlier_claim_named_is_shown_the_newest_first():
    """``claimed_anew``: of the statements that claim the kind, the newest ``CLAIM_ANEW`` not shown that name a value
    no claim before them named, after a claim that named one (of a kind that holds several values, with a change
    word). The user's first claim never qualifies (a quiet change that was missed does not bring the old claim), nor
    does a claim naming a value again."""
    from cbmemory.retrieval.followed import CLAIM_ANEW, claimed_anew

    claimed = _pool("I work for Marsh & Finch, mostly on the accounts side.",  # r0: the first claim
                    "I started at Quillon Labs on Monday.",  # r1: a value no claim before named
                    "I work for Marsh & Finch again, back in accounts.",  # r2: a value named before
                    "Got my Fenwick Analytics lanyard today.")  # r3: a value no claim before named
    assert CLAIM_ANEW == 1
    assert [r.record_id for r in claimed_anew(claimed, "work", shown=set())] == ["r3"]  # the newest
    assert [r.record_id for r in claimed_anew(list(reversed(claimed)), "work", shown=set())] == ["r3"]  # by date
    assert [r.record_id for r in claimed_anew(claimed, "work", shown={"r3"})] == ["r1"]  # shown already
    assert claimed_anew(claimed[:1], "work", shown=set()) == []  # the first claim alone
    assert claimed_anew(claimed[:1] + claimed[2:3], "work", shown=set()) == []  # the same value again
    assert claimed_anew([], "work", shown=set()) == []
    # of a kind that holds several values (a pet), a new one is a change only with a change word
    pets = _pool("I have a tortoise, he's great company.", "We have a gecko too.", "I have a ferret now instead.")
    assert [r.record_id for r in claimed_anew(pets, "pet", shown=set())] == ["r2"]
    # of a kind whose words are values (a home's kind), not on a slot of names only
    homes = _pool("We live in a flat in Leith.", "We live in a canal boat in Leith now.")
    assert [r.record_id for r in claimed_anew(homes, "home", shown=set())] == ["r1"]
    assert claimed_anew(homes, "home", shown=set(), words=False) == []
