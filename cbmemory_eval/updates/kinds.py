"""The kinds of facts of the knowledge-update benchmark: what is asked and the values a fact takes.

Each kind has one question per phrasing family (``train``/``dev``/``test``/``fresh``/``blind``/``probe``, see
``phrasings_*``)
and a pool of values (the old, new and someone else's value are drawn from it, deterministically, leaving out any
value the conversation already mentions; a family may have values of its own: ``phrasings_blind.VALUES``). Values
are distinctive strings, so a reader's answer can be scored by whether it names the new value or the old one.
"""

from __future__ import annotations

from dataclasses import dataclass

FAMILIES = ("train", "dev", "test", "fresh", "blind", "probe")


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    questions: dict[str, str]  # family -> the question asked after the last session
    values: tuple[str, ...]


# The ``dev`` family's questions (written with ``phrasings_dev``, 4 December 2026).
_DEV_QUESTIONS = {
    "city": "What town am I based in at present?", "employer": "Which organisation am I employed by?",
    "weekly_class": "Which weekday is pottery for me?", "phone": "What number can I be reached on?",
    "favourite_dish": "Which dish do I love most?", "child_school": "Which school is our daughter at?",
    "job_title": "What position do I have?", "trip": "What place is my big holiday going to be?",
    "morning_habit": "What is the first thing I do when I get up?", "partner": "Who is my significant other?",
    "laptop": "What computer do I have?", "household": "How many of us live at home?",
    "doctor": "Which doctor am I registered with?", "language": "What language am I working on?",
    "home_type": "What type of place do we live in?", "coffee": "What kind of coffee do I drink?",
    "car": "What do we drive?", "sport": "What sport do I do on Saturdays?", "diet": "Which diet do I keep to?",
    "pet": "What animal do we have?", "commute": "How do I travel to the office?",
    "email": "What is the email I use?", "wake_time": "What time do I rise during the week?",
}


# The ``fresh`` family's questions (written with ``phrasings_fresh``, 6 December 2026).
_FRESH_QUESTIONS = {
    "city": "Where am I living nowadays?", "employer": "Who do I work for these days?",
    "weekly_class": "What night of the week is my pottery?", "phone": "What's the best number to call me on?",
    "favourite_dish": "What food do I love most right now?", "child_school": "What school does my daughter attend?",
    "job_title": "What's my title at work these days?", "trip": "Where am I travelling for my next big holiday?",
    "morning_habit": "How do my mornings begin?", "partner": "Who's my other half?",
    "laptop": "Which laptop am I using?", "household": "How many people are in my home?",
    "doctor": "Which doctor looks after me?", "language": "Which language am I trying to pick up?",
    "home_type": "What kind of property do we live in?", "coffee": "What do I order at the coffee shop?",
    "car": "What am I driving these days?", "sport": "What do I play at the weekend?",
    "diet": "What kind of eater am I?", "pet": "What kind of pet do we keep?",
    "commute": "How am I getting in to work lately?", "email": "Where should emails to me go?",
    "wake_time": "What time am I up on weekdays?",
}


# The ``blind`` family's questions (written with ``phrasings_blind``, 6 December 2026).
_BLIND_QUESTIONS = {
    "city": "What city am I living in now?", "employer": "Where do I work at the moment?",
    "weekly_class": "On which evening do I go to pottery?", "phone": "What's my phone number?",
    "favourite_dish": "What is my favourite thing to eat?", "child_school": "Where does my daughter go to school?",
    "job_title": "What is my current title at my job?", "trip": "Where is my next big holiday?",
    "morning_habit": "What is my morning routine?", "partner": "Who am I dating?",
    "laptop": "What laptop do I have now?", "household": "How many people are in our household?",
    "doctor": "Who is my GP now?", "language": "What language am I learning at the moment?",
    "home_type": "What kind of home do we live in?", "coffee": "What coffee do I usually have?",
    "car": "What car do I have?", "sport": "What sport do I play at weekends?",
    "diet": "What diet do I follow?", "pet": "What animal do we keep as a pet?",
    "commute": "How do I get to work these days?", "email": "What email address should people use for me?",
    "wake_time": "When do I get up on weekdays?",
}


# The ``probe`` family's questions (written with ``phrasings_probe``, 7 December 2026, by a writer who had not read the
# product's rules nor the other families' sentences).
_PROBE_QUESTIONS = {
    "city": "Which city's my home base at the moment?",
    "employer": "Remind me, which company am I with at the moment?",
    "weekly_class": "What day's my pottery class on now?", "phone": "What's my current mobile number?",
    "favourite_dish": "Which dish is my absolute favourite at the moment?",
    "child_school": "What's the name of my daughter's school now?", "job_title": "What's my current job title?",
    "trip": "Which country am I heading to for my next big holiday?",
    "morning_habit": "What's the first thing I do after waking up these days?",
    "partner": "What's the name of the person I'm with now?",
    "laptop": "Which laptop model have I got at the moment?",
    "household": "How many people share my home at the moment?", "doctor": "Which doctor am I seeing these days?",
    "language": "What language have I been learning lately?",
    "home_type": "What kind of building do we live in now?",
    "coffee": "What do I normally order when I get a coffee?",
    "car": "Which car model do we drive at the moment?", "sport": "What do I play on Saturdays now?",
    "diet": "What sort of diet am I on at the moment?", "pet": "What kind of animal do we have at home now?",
    "commute": "How do I get into the office at the moment?", "email": "Which email address am I using now?",
    "wake_time": "What time do I get out of bed on weekdays now?",
}


def _k(name: str, train_q: str, test_q: str, *values: str) -> Kind:
    return Kind(name, {"train": train_q, "dev": _DEV_QUESTIONS[name], "test": test_q,
                       "fresh": _FRESH_QUESTIONS[name], "blind": _BLIND_QUESTIONS[name],
                       "probe": _PROBE_QUESTIONS[name]}, values)


KINDS: tuple[Kind, ...] = (
    _k("city", "Which city do I live in these days?", "Where is home for me right now?",
       "Porto", "Glasgow", "Tallinn", "Valencia", "Bergen", "Krakow", "Ljubljana", "Leipzig"),
    _k("employer", "Which company do I work for now?", "Who is my current employer?",
       "Brightwave Labs", "Northwind Logistics", "Calder Insurance", "Pinecrest Bank", "Orbital Foods",
       "Lumen Health"),
    _k("weekly_class", "Which evening is my weekly pottery class?", "On what day do I have pottery each week?",
       "Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    _k("phone", "What is my phone number now?", "Which number should people call to reach me?",
       "0771 482 9063", "0752 119 3387", "0798 604 2215", "0745 330 8172", "0789 951 4406"),
    _k("favourite_dish", "What is my favourite dish at the moment?", "Which food do I like best currently?",
       "ramen", "paella", "moussaka", "shakshuka", "pierogi", "bibimbap"),
    _k("child_school", "Which school does my daughter go to?", "Where is my daughter enrolled for school?",
       "Hillcrest Primary", "Maple Grove School", "Riverside Academy", "St Brigid's", "Oakfield Elementary"),
    _k("job_title", "What is my job title?", "What role do I hold at work?",
       "senior analyst", "team lead", "product manager", "staff engineer", "head of design"),
    _k("trip", "Where am I going on my next big trip?", "Which destination is my upcoming holiday?",
       "Iceland", "Morocco", "Peru", "Vietnam", "New Zealand", "Patagonia"),
    _k("morning_habit", "What do I do first thing every morning?", "How do I usually start my day?",
       "a cold shower", "journaling", "a 5k run", "twenty minutes of meditation", "a swim at the lido"),
    _k("partner", "What is my partner's name?", "Who am I in a relationship with?",
       "Tobias", "Rafael", "Henrik", "Leonie", "Ingrid", "Mateo"),
    _k("laptop", "Which laptop do I use?", "What computer am I working on these days?",
       "ThinkPad X1", "MacBook Air", "Surface Laptop", "Framework laptop", "Dell XPS"),
    _k("household", "How many people live in my household?", "How big is my household now?",
       "three", "four", "five", "six"),
    _k("doctor", "Who is my doctor?", "Which GP do I see?",
       "Dr. Okafor", "Dr. Lindqvist", "Dr. Brennan", "Dr. Haddad", "Dr. Moreau"),
    _k("language", "Which language am I learning?", "What language am I studying at the moment?",
       "Portuguese", "Korean", "Dutch", "Greek", "Turkish", "Swahili"),
    _k("home_type", "What kind of place do I live in?", "What sort of home do I have?",
       "houseboat", "loft", "bungalow", "studio flat", "farmhouse"),
    _k("coffee", "What is my usual coffee order?", "What coffee do I normally get?",
       "flat white", "oat latte", "cortado", "cold brew", "macchiato"),
    _k("car", "What car do I drive?", "Which car is mine now?",
       "Skoda Octavia", "Toyota Prius", "Volvo XC40", "Kia Niro", "Mazda MX-5"),
    _k("sport", "Which sport do I play on weekends?", "What is my weekend sport?",
       "badminton", "squash", "volleyball", "fencing", "water polo"),
    _k("diet", "What diet am I following?", "How do I eat these days?",
       "vegetarian", "vegan", "pescatarian", "keto", "gluten-free"),
    _k("pet", "What pet do I have?", "Which animal lives with me?",
       "parrot", "ferret", "tortoise", "rabbit", "hamster"),
    _k("commute", "How do I get to work?", "What is my commute like?",
       "by bike", "by train", "by bus", "on foot", "by tram"),
    _k("email", "What is my email address?", "Which email should people write to me at?",
       "sunny.days@fastmail.com", "kite.runner@proton.me", "blue.heron@mailbox.org", "night.owl@posteo.net"),
    _k("wake_time", "What time do I wake up on weekdays?", "When does my alarm go off on workdays?",
       "5:30", "6:15", "7:00", "7:45"),
)
BY_NAME = {k.name: k for k in KINDS}
