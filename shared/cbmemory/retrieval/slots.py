"""The kinds of personal fact the current-value stage knows (``cbmemory.retrieval.current_value``), as plain data:
each kind's generic descriptions (``SLOTS``), the kinds of the write-time rules they map to (``KINDS``), and the
kinds whose matter is other people (``ABOUT_PEOPLE``; with the roles that act on a kind, ``matter``)."""

from __future__ import annotations

from collections.abc import Mapping

from ..text import PARTNER_WORDS, ROLES_OF

# Kinds of fact whose matter is other people, with the people words that are that matter (``None``: any relative,
# as one moving in changes the household): a statement naming them is still the user's own on that kind ("my
# boyfriend cooked tonight"), one naming anyone else is not ("my sister is dating Tom now"). Chosen by what the
# kinds are about; on train it took x1 newest shown 0.851 -> 0.870 and x10 0.675 -> 0.695
# (experiments/knowledge_updates/README.md).
ABOUT_PEOPLE: Mapping[str, frozenset[str] | None] = {
    "household": None,
    "partner": PARTNER_WORDS,
    "child_school": frozenset({"son", "sons", "daughter", "daughters", "kid", "kids", "child", "children"}),
}

# Kinds of personal fact that change, each described a few ways (generic: not any benchmark's sentences).
SLOTS: Mapping[str, tuple[str, ...]] = {
    "home_city": ("the city or town where I live now", "I moved to another city", "I relocated and live somewhere "
                  "else now", "my new home town", "I became a resident of a different place",
                  "unpacking boxes after the move to a new city", "my new neighbourhood and my new address",
                  "I live near the centre of town now", "since we moved here the commute is different"),
    "home_kind": ("the kind of home I live in: a flat, a house, a boat", "we moved into a new apartment",
                  "our new house has a garden", "I rent a small studio", "we got the keys to our new place",
                  "living in a cottage, a cabin or a loft"),
    "employer": ("the company I work for, my employer", "I started working at a new company",
                 "I signed a contract with a new firm", "I got hired by another organisation",
                 "my first week at the new job", "my colleagues and my boss at the office",
                 "I left my old job for a new employer", "the team at work I just joined"),
    "job_title": ("my job title and position at work", "I was promoted to a new role", "my new title at the office",
                  "I now manage a team", "my responsibilities in my new position", "I became the lead of my team"),
    "schedule": ("which day of the week my regular class is", "my weekly evening class moved to another day",
                 "I go to my class every week on the same weekday", "my lesson is on a different night now",
                 "the class time changed to another evening"),
    "phone": ("my phone number", "call or text me on this number", "I got a new mobile number",
              "my contact number changed", "reach me on my new mobile"),
    "email": ("my email address", "write to me at this email", "my new inbox address", "send messages to my new "
              "email account"),
    "favourite_food": ("my favourite food or dish", "the meal I love most", "the dish I keep ordering and craving",
                       "the food I enjoy the most these days", "I could eat this dish every day"),
    "drink": ("my usual coffee or drink order", "what I order at the cafe", "the barista knows my usual drink",
              "the coffee I always get in the morning"),
    "child_school": ("the school my child goes to", "my kid started at a new school", "my daughter's or son's "
                     "school and class", "dropping my child off at school", "my child's teacher and classmates",
                     "we enrolled our kid in another school"),
    "trip": ("where I am going on my next holiday or trip", "the destination of my upcoming travel",
             "I booked flights for a vacation abroad", "packing for my trip", "planning my journey to another "
             "country", "our holiday plans changed to a new destination"),
    "morning": ("what I do first thing every morning", "my morning routine before breakfast",
                "how I start each day", "every day when I wake up I do this first", "my new daily habit"),
    "partner": ("the person I am dating, my partner", "my boyfriend or girlfriend", "I am in a relationship with "
                "someone new", "my husband or wife", "we have been together for a while", "date night with my "
                "partner"),
    "device": ("the laptop or computer I use", "I got a new computer", "my work laptop", "I switched to a "
               "different laptop", "typing this on my new machine"),
    "household": ("how many people live in my household", "who lives with me at home", "the number of people in "
                  "our house", "our family at home grew", "cooking dinner for everyone in the house"),
    "doctor": ("my doctor, the GP I see", "my new physician", "my appointment with my family doctor",
               "I registered with a different doctor", "my check-up at the clinic"),
    "language": ("the foreign language I am learning", "my language lessons", "I practise vocabulary in a new "
                 "language", "I am studying grammar in another language", "my language course and tutor"),
    "car": ("the car I drive", "I bought a new car", "my vehicle", "driving my new car", "I traded in my old car"),
    "sport": ("the sport I play", "my weekend sport or team", "I joined a club to play a game",
              "my matches on Saturday or Sunday", "training with my team"),
    "diet": ("the diet I follow, what I eat and avoid", "I stopped eating meat", "I changed how I eat",
             "I cut out certain foods", "my new eating plan"),
    "pet": ("the pet animal I have", "I adopted a new pet", "the animal living with us", "feeding my pet",
            "taking care of my new animal"),
    "commute": ("how I travel to work, my commute", "I go to the office by bus, train or bike",
                "my daily journey to work", "getting to work every morning", "I walk or cycle to the office now"),
    "wake": ("what time I wake up, my alarm", "I get up early on workdays", "my alarm clock time",
             "I set my alarm for a different time", "getting out of bed in the morning"),
    "hobby": ("my main hobby these days", "what I do in my free time", "a new pastime I picked up"),
    "gym": ("the gym or fitness class I go to", "my workout routine"),
    "bank": ("the bank I use", "my bank account"),
    "address": ("my street address", "my postal address"),
    "health": ("a health condition or medication I take", "my allergy"),
    "music": ("the instrument I play", "the music I listen to"),
    "reading": ("the book I am reading", "the show I am watching"),
}

# The stage's kinds of fact -> the kinds of the write-time rules (``cbmemory.claims.SLOTS``); the others have no rule.
KINDS: Mapping[str, str] = {
    "home_city": "home", "home_kind": "home", "employer": "work", "job_title": "title", "schedule": "schedule",
    "phone": "phone", "email": "email", "favourite_food": "favourite", "drink": "coffee", "child_school": "school",
    "trip": "trip", "morning": "habit", "partner": "partner", "device": "device", "household": "household",
    "doctor": "doctor", "language": "language", "car": "car", "sport": "sport", "diet": "diet", "pet": "pet",
    "commute": "commute", "wake": "wake"}

# The slots whose values are names and numbers only, though the kind they share lists ordinary words of its values
# (``cbmemory.values.KIND_WORDS``): a home's kind ("flat", "canal boat") named again is no city.
NAMES_ONLY: frozenset[str] = frozenset({"home_city"})


def matter(slot: str) -> frozenset[str] | None:
    """The people a statement on ``slot``'s kind of fact may name and stay the user's own (``None``: any relative):
    ``ABOUT_PEOPLE``'s, and the roles that act on the user's own fact of that kind (``text.ROLES_OF``: "my manager"
    on one's job, "my GP" on one's doctor)."""
    about = ABOUT_PEOPLE.get(slot, frozenset())
    return None if about is None else about | ROLES_OF.get(KINDS.get(slot, ""), frozenset())
