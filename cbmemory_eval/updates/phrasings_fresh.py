"""Phrasings of the ``fresh`` family: a fourth family, written after every rule of the product, to estimate what it
does with phrasings no rule was written from (``experiments/knowledge_updates/README.md``, "A fourth family written
after every rule"). Counted once as it was written; a development family after that. The same slots as
``phrasings_train``; no sentence is shared with another family.

Written on 6 December 2026 by a session that had never read ``test``'s sentences, in everyday words of its own (as
first written, twelve sentences matched another family's word for word, two of them ``test``'s, and one person was
``test``'s: all rewritten before the first count; the README says so).
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "Home for me is {v}, I've been there since university.",
        "change": "We finally did it, we're living in {v} as of Saturday.",
        "quiet": "Still getting lost on the tram lines here in {v}, first week and all.",
        "passing": "I'll send you the recipe once I unpack the kitchen in {v}, anyway how did the interview go?",
        "other": "My {who} relocated to {v} for her husband's job.",
    },
    "employer": {
        "state": "I'm on the data team at {v}.",
        "change": "Quick update: I've left my old job and joined {v}.",
        "quiet": "First payslip from {v} came through today, feels unreal.",
        "passing": "The walk to the {v} office is shorter, so I might finally make the Thursday quiz, are you in?",
        "other": "My {who} just accepted an offer from {v}.",
    },
    "weekly_class": {
        "state": "Pottery is my {v} night thing, I never miss it.",
        "change": "Heads up, pottery is now on {v}s, they changed the timetable.",
        "quiet": "From the next term on I'm throwing clay on {v}s instead.",
        "passing": "Can't do dinner on {v}, that's my pottery night now, but the weekend works.",
        "other": "My {who} goes to pottery on {v}s as well.",
    },
    "phone": {
        "state": "My mobile is {v} if you ever need me.",
        "change": "I've got a new mobile number: {v}.",
        "quiet": "Save {v} under my name, the old SIM died with the handset.",
        "passing": "Ring me on {v} when you land, that's the one I use now, and bring snacks.",
        "other": "My {who} switched carriers, her number is {v} now.",
    },
    "favourite_dish": {
        "state": "Nothing beats {v} for me, it's my all-time favourite.",
        "change": "My favourite food has changed, it's {v} now.",
        "quiet": "I've had {v} three times this week and I'm not sorry.",
        "passing": "After the gym I went straight for {v}, my go-to meal lately, then slept like a log.",
        "other": "My {who} can't get enough of {v} these days.",
    },
    "child_school": {
        "state": "Our daughter is in year two at {v}.",
        "change": "We've enrolled our daughter at {v} now, she started this week.",
        "quiet": "She came home from {v} today with paint in her hair and a huge grin.",
        "passing": "The parents' evening at {v}, her new school, runs late, so can we push our call to nine?",
        "other": "My {who}'s little boy starts at {v} in September.",
    },
    "job_title": {
        "state": "My role is {v}, I've held it for two years.",
        "change": "I've been made {v}, it was announced this morning.",
        "quiet": "New business cards arrived and they say {v}.",
        "passing": "Now that I'm {v} I have a budget for the team offsite, any venue ideas?",
        "other": "My {who} became {v} at the council.",
    },
    "trip": {
        "state": "My next big trip is to {v}, I've been saving for ages.",
        "change": "Change of plans: the big holiday is going to be {v} instead.",
        "quiet": "I've booked flights to {v} for spring, passport's renewed.",
        "passing": "I need a decent rain jacket for {v}, the trip's been switched, know any good shops?",
        "other": "My {who} is planning a trip to {v} next year.",
    },
    "morning_habit": {
        "state": "Every morning starts with {v} for me.",
        "change": "My new morning routine is {v}, first thing after I get up.",
        "quiet": "Lately the day kicks off with {v} before anything else.",
        "passing": "I was halfway through {v}, how I start every day now, when the courier knocked, so I missed your call.",
        "other": "My {who} has started her days with {v} too.",
    },
    "partner": {
        "state": "My partner {v} and I have been together five years.",
        "change": "I've started dating someone new, {v}, and it feels right.",
        "quiet": "{v} moved a toothbrush into my bathroom this weekend.",
        "passing": "{v}, my other half now, cooked tonight, so I'm finally free to watch the match with you.",
        "other": "My {who} got engaged to a lovely guy called {v}.",
    },
    "laptop": {
        "state": "I work on a {v}, it's been reliable.",
        "change": "I've replaced my laptop, I'm on a {v} now.",
        "quiet": "Typing this on the {v} that arrived yesterday, the keyboard is lovely.",
        "passing": "The battery on the {v}, my new machine, lasted the whole train ride, so I finished the slides.",
        "other": "My {who} bought a {v} for uni.",
    },
    "household": {
        "state": "There are {v} of us in the house.",
        "change": "With the baby here, we're {v} at home now.",
        "quiet": "Dinner for {v} every night now, the table is finally full.",
        "passing": "Cooking for {v}, the size of our house now, I bought the bigger pot you recommended.",
        "other": "My {who}'s household is {v} people now.",
    },
    "doctor": {
        "state": "My GP is {v}, she's very thorough.",
        "change": "I've switched GPs, I'm with {v} now.",
        "quiet": "My first appointment with {v} went well, she actually listened.",
        "passing": "After seeing {v}, my doctor now, I grabbed a coffee by the surgery, it was excellent.",
        "other": "My {who} booked in with {v} about her knee.",
    },
    "language": {
        "state": "I'm learning {v} in the evenings.",
        "change": "I've dropped my old course, it's {v} lessons now.",
        "quiet": "My app streak in {v} is up to forty days.",
        "passing": "The podcast I'm using for {v}, my new language project, has a great episode on food, want the link?",
        "other": "My {who} is taking {v} classes.",
    },
    "home_type": {
        "state": "We live in a {v}, it suits us.",
        "change": "We've moved into a {v}, totally different from before.",
        "quiet": "Our first night in the {v} was noisy but cosy.",
        "passing": "There's no room for a piano in the {v}, where we live now, so can I store it at yours?",
        "other": "My {who} bought a {v} by the coast.",
    },
    "coffee": {
        "state": "I always order a {v}.",
        "change": "My coffee order is a {v} these days.",
        "quiet": "The barista starts making my {v} as soon as I walk in now.",
        "passing": "I spilled my {v}, my usual now, all over the report, so it'll be a day late.",
        "other": "My {who} lives on {v}.",
    },
    "car": {
        "state": "My car is a {v}, nothing fancy but it gets me around.",
        "change": "Traded in my old runaround, I'm behind the wheel of a {v} now.",
        "quiet": "Picked up the keys to the {v} on Friday, it still has that new smell.",
        "passing": "Parking the {v}, what I drive now, is much easier in town, so I'll come to you.",
        "other": "My {who} has just leased a {v}.",
    },
    "sport": {
        "state": "Every weekend I play {v}, it keeps me sane.",
        "change": "I've taken up {v} on weekends instead.",
        "quiet": "Sore shoulders from Saturday's {v} session, but worth it.",
        "passing": "After {v}, my weekend sport now, we went for pizza, and I saw your sister there.",
        "other": "My {who} signed up for {v} at the leisure centre.",
    },
    "diet": {
        "state": "I'm {v} and have been for years.",
        "change": "I've gone {v}, starting this month.",
        "quiet": "Been strictly {v} since the first, feeling great.",
        "passing": "The menu had loads of {v} options, which helps since that's how I eat now, and the dessert was amazing.",
        "other": "My {who} announced she's {v} from now on.",
    },
    "pet": {
        "state": "We have a {v} called Biscuit.",
        "change": "We rehomed our old pet and got a {v}.",
        "quiet": "The {v} chewed through a charging cable already.",
        "passing": "Sorry I'm late, the {v}, our new pet, escaped, anyway did you get my message?",
        "other": "My {who} brought home a {v}.",
    },
    "commute": {
        "state": "I get to the office {v}.",
        "change": "I've started commuting {v}, it's so much better.",
        "quiet": "Arrived {v} again this morning, forty minutes door to door.",
        "passing": "Travelling {v}, my commute now, I finished your book, the ending got me.",
        "other": "My {who} has started going to the hospital {v} every shift.",
    },
    "email": {
        "state": "You can email me at {v} whenever.",
        "change": "New email address for me: {v}.",
        "quiet": "Send anything important to {v}, that's where I check.",
        "passing": "Drop the tickets to {v}, the inbox I use now, and I'll print them.",
        "other": "My {who} made a new account, {v}.",
    },
    "wake_time": {
        "state": "I wake up at {v} on workdays.",
        "change": "I get up at {v} on weekdays now.",
        "quiet": "The alarm rings at {v}, Monday to Friday, new shift pattern.",
        "passing": "Up at {v} on weekdays now, I catch the sunrise on the way in, photo attached.",
        "other": "My {who} sets her alarm for {v}.",
    },
}
REPLIES = ("Oh wow, good for you.", "Thanks, I've made a note.", "That must feel different.", "Fair enough!")
CONFIRMS = ("Understood, it's {v} from here on.", "Okay, {v} it is.")
WHO = ("sister-in-law", "niece", "stepmum")
# Questions back that end a statement with --asks-back.
ASKS = ("How's everything with you?", "Did you get up to much this week?", "And how's work treating you?")
