"""Phrasings of the ``dev`` family: a second family to develop on, for choosing between rules that ``train``
cannot tell apart (its phrasings are the ones the rules were written from, so it is nearly saturated). No rule
may be written from these sentences; a lever is chosen on ``train`` and ``dev`` together, and ``test`` stays the
family reported on. The same slots as ``phrasings_train``; no sentence is shared with another family.

Written on 4 December 2026 by a session that had read some of ``test``'s sentences: they were avoided on
purpose (no word-for-word or same-idea sentence), but ``dev`` is a development family, not a held-out one.
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "I'm based in {v}, have been since university.",
        "change": "I packed up my life and now I live in {v}.",
        "quiet": "Still learning which {v} tram goes where, but the bakery on my street is great.",
        "passing": "I missed your call because the removal van to {v} was three hours late, was it urgent?",
        "other": "My {who} is about to buy a place in {v}.",
    },
    "employer": {
        "state": "I'm at {v}, in the operations team.",
        "change": "I handed in my notice and I'm working for {v} now.",
        "quiet": "My security pass for {v} finally works on every door.",
        "passing": "The Friday drinks at {v}, my workplace now, ran late, so I'm slow today, how's your week?",
        "other": "My {who} just went to work for {v}.",
    },
    "weekly_class": {
        "state": "Pottery is my {v} evening thing, every week.",
        "change": "My pottery evening is {v} from now on.",
        "quiet": "The kiln schedule changed, I'll be throwing bowls every {v} after work.",
        "passing": "Can we do dinner another night? {v}s are for pottery now, and I'd hate to miss it.",
        "other": "My {who} goes to pottery every {v}.",
    },
    "phone": {
        "state": "My mobile is {v} if you need me.",
        "change": "Please update your contacts, my number is now {v}.",
        "quiet": "Lost the old handset at the station; {v} is the one to ring.",
        "passing": "Ring {v} when you land, it's the line I use now, and we'll meet you at arrivals.",
        "other": "My {who} changed her mobile to {v}.",
    },
    "favourite_dish": {
        "state": "If I could pick one meal forever, it would be {v}.",
        "change": "I've got a new favourite: {v}.",
        "quiet": "I've cooked {v} three Sundays in a row and I'm not tired of it.",
        "passing": "The cookbook you lent me has a {v} recipe, which is what I'd choose above anything now, thanks!",
        "other": "My {who} orders {v} everywhere we go.",
    },
    "child_school": {
        "state": "Our daughter is a pupil at {v}.",
        "change": "Our daughter switched schools, she's at {v} now.",
        "quiet": "Sewed the {v} badge onto her blazer last night.",
        "passing": "The parents' evening at {v}, where she is now, clashed with yoga, so I skipped yoga.",
        "other": "My {who}'s son got a place at {v}.",
    },
    "job_title": {
        "state": "My role is {v}.",
        "change": "My role changed this month, I'm {v} now.",
        "quiet": "HR sent the letter, it's official: {v}.",
        "passing": "As {v}, which I've become, I sit in on the board meeting, so I can't make lunch.",
        "other": "My {who} became {v} at the hospital.",
    },
    "trip": {
        "state": "The big holiday I'm planning is {v}.",
        "change": "We scrapped the old plan, the big holiday will be {v}.",
        "quiet": "The guidebook for {v} is already full of sticky notes.",
        "passing": "I got vaccinated for {v}, our trip now, and the nurse asked about your sister.",
        "other": "My {who} is flying to {v} for her honeymoon.",
    },
    "morning_habit": {
        "state": "My day always begins with {v}.",
        "change": "I've changed how I begin my day: {v}.",
        "quiet": "The alarm goes and it's straight to {v}, no phone until it's done.",
        "passing": "During {v} this morning, my new ritual, I thought of your idea for the shop.",
        "other": "My {who} has started doing {v} every day.",
    },
    "partner": {
        "state": "I live with my partner, {v}.",
        "change": "I'm with {v} now, we got together in the spring.",
        "quiet": "{v} met my parents on Sunday and they loved each other.",
        "passing": "{v}, who I'm with now, cooked us a curry, so I'm too full to go out, sorry!",
        "other": "My {who} has been going out with {v} since the summer.",
    },
    "laptop": {
        "state": "My computer is a {v}.",
        "change": "I retired my old machine and I use a {v} now.",
        "quiet": "Still getting used to the keyboard on the {v}.",
        "passing": "I'll send the slides tonight from the {v}, my machine now, if the wifi holds.",
        "other": "My {who} works on a {v}.",
    },
    "household": {
        "state": "It's {v} of us at home.",
        "change": "Our home count changed, we're {v} now.",
        "quiet": "We had to buy extra chairs, {v} around the table each night.",
        "passing": "Shopping for {v}, our headcount now, takes forever, so can we move our call?",
        "other": "My {who}'s household is {v} people since the wedding.",
    },
    "doctor": {
        "state": "I'm registered with {v}.",
        "change": "I've changed practice, my doctor is {v} now.",
        "quiet": "{v} took my blood pressure and said it's perfect.",
        "passing": "I'm collecting the prescription {v}, my GP now, wrote, then I'll join you.",
        "other": "My {who} is under {v} for her asthma.",
    },
    "language": {
        "state": "I study {v} on the train every day.",
        "change": "New language for me this year: {v}.",
        "quiet": "Watched a whole film in {v} with no subtitles and followed most of it.",
        "passing": "My new {v} tutor also knows a good mechanic, want the number?",
        "other": "My {who} is practising {v} before her move.",
    },
    "home_type": {
        "state": "Home for us is a {v}.",
        "change": "We swapped our old place for a {v}.",
        "quiet": "Painting the walls of the {v} took the whole weekend.",
        "passing": "There's no room for a piano in the {v}, our place now, so I'm selling mine, interested?",
        "other": "My {who} rents a {v} by the coast.",
    },
    "coffee": {
        "state": "A {v} is what I have every single day.",
        "change": "My coffee order changed, it's a {v} now.",
        "quiet": "The cafe by work writes my name on a {v} before I reach the till.",
        "passing": "Over a {v}, what I drink now, I finished your manuscript, it's brilliant.",
        "other": "My {who} lives on {v}s.",
    },
    "car": {
        "state": "We get around in a {v}.",
        "change": "We got rid of the old car, we have a {v} now.",
        "quiet": "Parallel parking the {v} is easier than I feared.",
        "passing": "The {v}, our car now, fits the bikes on the back, so we can all go to the coast.",
        "other": "My {who} drives a {v} for her deliveries.",
    },
    "sport": {
        "state": "My Saturday sport is {v}.",
        "change": "I've taken up {v} instead of my old sport.",
        "quiet": "Bought my own {v} kit after a month of borrowing.",
        "passing": "I pulled a muscle at {v}, which I play now, so I'll skip the hike, next time?",
        "other": "My {who} coaches {v} at the weekend.",
    },
    "diet": {
        "state": "My meals are {v}, that is how I like to eat.",
        "change": "From this month on I eat {v}.",
        "quiet": "Cleared out the cupboards and restocked everything {v}.",
        "passing": "The {v} menu, which is how I eat now, at your sister's place was lovely, thank her for me.",
        "other": "My {who} has gone {v}.",
    },
    "pet": {
        "state": "We share the flat with a {v}.",
        "change": "We've got a {v} now, the old one lives with my aunt.",
        "quiet": "The vet says our {v} is perfectly healthy.",
        "passing": "I have to get back for the {v}, our pet now, but let's finish this tomorrow.",
        "other": "My {who} got a {v} for her birthday.",
    },
    "commute": {
        "state": "My way into work is {v}.",
        "change": "I've changed how I get in, it's {v} now.",
        "quiet": "Going in {v} each day, I got through a whole novel last week.",
        "passing": "Coming in {v}, my route now, I passed the new cinema, want to go Friday?",
        "other": "My {who} gets to the hospital {v}.",
    },
    "email": {
        "state": "Mail me at {v}.",
        "change": "I've moved to a new address for email: {v}.",
        "quiet": "Everything should go to {v}, I stopped checking the other account.",
        "passing": "Forward the invoice to {v}, the inbox I use now, and I'll pay it tonight.",
        "other": "My {who} set up {v} for her business.",
    },
    "wake_time": {
        "state": "On weekdays I'm up at {v}.",
        "change": "My weekday alarm is {v} now.",
        "quiet": "Out of bed at {v}, the new team stand-up is early.",
        "passing": "Being up at {v}, my weekday routine now, I saw the sunrise, the photo's attached.",
        "other": "My {who} starts her day at {v}.",
    },
}
REPLIES = ("Thanks for letting me know.", "That's a big step!", "Interesting, tell me more some time.",
           "Sounds good to me.")
CONFIRMS = ("Right, {v} then.", "Okay, I'll keep {v} in mind from now on.")
WHO = ("aunt", "flatmate", "godmother")
# Questions back that end a statement with --asks-back.
ASKS = ("Anything exciting on your side?", "How did your week go?", "What are you up to these days?")
