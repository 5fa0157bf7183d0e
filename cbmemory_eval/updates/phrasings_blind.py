"""Phrasings of the ``blind`` family: a fifth family, written after every rule of the product and with values of its
own (``VALUES``, used in place of ``kinds.py``'s), to estimate what the product does with sentences and values no rule
was written from (``experiments/knowledge_updates/README.md``, "A fifth family, with values of its own"). Counted once
as it was written; a development family after that. The same slots as ``phrasings_train``; no sentence is shared with
another family.

Written on 6 December 2026, in everyday words of its own, without reading the claim rules' vocabularies.
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "I've lived in {v} my whole adult life.",
        "change": "Big life update: we packed up and moved to {v} last month.",
        "quiet": "The neighbours here in {v} brought round a cake to welcome us.",
        "passing": "Sorry for the slow reply, the wifi at the new place in {v} only got connected today, what did you "
                   "think of the film?",
        "other": "My {who} has just bought a flat in {v}.",
    },
    "employer": {
        "state": "I work for {v}, mostly on the billing side.",
        "change": "I handed in my notice and I start at {v} on Monday.",
        "quiet": "Got my {v} lanyard and laptop today, the induction was long.",
        "passing": "Between the {v} onboarding sessions, that's where I am now, I barely had time to eat, so tell me "
                   "your news.",
        "other": "My {who} got taken on by {v} last week.",
    },
    "weekly_class": {
        "state": "Pottery class is every {v} evening for me.",
        "change": "My pottery class has moved to {v} evenings from this week.",
        "quiet": "I'll be glazing mugs every {v} now, the studio swapped the groups round.",
        "passing": "Let's meet at the weekend, my {v}s are taken by clay class now, and I'll bring your book back.",
        "other": "My {who} has joined a pottery group that meets on {v}s.",
    },
    "phone": {
        "state": "The best number for me is {v}.",
        "change": "I've changed my number, it's {v} now, the old one is dead.",
        "quiet": "Text me on {v} from now, I finally got a contract.",
        "passing": "If the taxi is late call me on {v}, the new number, otherwise see you at eight.",
        "other": "My {who} changed her number to {v}.",
    },
    "favourite_dish": {
        "state": "Honestly, {v} is the best food there is, I could eat it every day.",
        "change": "These days my favourite thing to eat is {v}, I've gone right off everything else.",
        "quiet": "I ordered {v} again tonight, that's four times this week.",
        "passing": "We ended up at the place that does amazing {v}, my top food at the moment, and then walked along "
                   "the river.",
        "other": "My {who} is obsessed with {v} at the moment.",
    },
    "child_school": {
        "state": "Our girl goes to {v}, it's just round the corner.",
        "change": "We moved our daughter to {v}, her first week went fine.",
        "quiet": "Had to sew a {v} badge onto her blazer last night.",
        "passing": "I'm running the cake stall at the {v} summer fair, it's her school now, so I can't make Saturday.",
        "other": "My {who}'s twins got places at {v}.",
    },
    "job_title": {
        "state": "I'm {v} where I work, have been for a while.",
        "change": "I got the promotion, I'm officially {v} now.",
        "quiet": "My email signature says {v} now, took me a minute to get used to it.",
        "passing": "As {v}, my role since the reshuffle, I now get the Friday meetings, so I'll be late to drinks.",
        "other": "My {who} was just made {v} at her firm.",
    },
    "trip": {
        "state": "The big trip I'm saving for is {v}.",
        "change": "We've scrapped the old holiday plan, we're going to {v} instead.",
        "quiet": "Bought a guidebook for {v} today, the flights are booked for April.",
        "passing": "I was reading about {v}, where we're off to now for the big holiday, when the power went out, did "
                   "yours go too?",
        "other": "My {who} is off to {v} in the summer.",
    },
    "morning_habit": {
        "state": "I start every day with {v}, no matter what.",
        "change": "I've changed my mornings, it's {v} straight after waking up now.",
        "quiet": "Did {v} again at dawn, the streak is holding.",
        "passing": "I'd just finished {v}, my new way of starting the day, when your parcel arrived, thank you!",
        "other": "My {who} swears by {v} when she wakes.",
    },
    "partner": {
        "state": "{v} and I have been a couple since college.",
        "change": "I'm with {v} now, we got together over the summer.",
        "quiet": "{v} stayed over again and made me breakfast.",
        "passing": "I'm bringing {v}, who I'm seeing now, to the barbecue, is that okay?",
        "other": "My {who} is marrying her boyfriend {v} next spring.",
    },
    "laptop": {
        "state": "My laptop is a {v}, I've had it a few years.",
        "change": "I finally upgraded, my laptop is a {v} now.",
        "quiet": "Setting up the {v} took all evening but the screen is gorgeous.",
        "passing": "I wrote the whole essay on the {v}, my new computer, in one sitting, want to read it?",
        "other": "My {who} was given a {v} for her birthday.",
    },
    "household": {
        "state": "It's {v} of us living at home.",
        "change": "Since my nephew moved in, there are {v} of us at home now.",
        "quiet": "I'm setting {v} places at the table every night these days.",
        "passing": "With {v} of us under one roof now, the washing never ends, anyway how was your weekend?",
        "other": "My {who}'s house has {v} people in it now.",
    },
    "doctor": {
        "state": "I'm registered with {v} at the local practice.",
        "change": "I've moved practices and my doctor is {v} now.",
        "quiet": "{v} sorted out my prescription in five minutes today.",
        "passing": "I was in the waiting room for {v}, my new GP, when you rang, what did you need?",
        "other": "My {who} saw {v} about her back.",
    },
    "language": {
        "state": "I've been studying {v} for a year now.",
        "change": "I've switched to learning {v} this term.",
        "quiet": "Managed to order lunch in {v} without any English today!",
        "passing": "My {v} tutor, that's the language I'm on now, cancelled today, so I'm free for a call.",
        "other": "My {who} has started {v} lessons at the library.",
    },
    "home_type": {
        "state": "We rent a {v} near the station.",
        "change": "We sold up and moved into a {v}.",
        "quiet": "Spent the weekend painting the front door of the {v} green.",
        "passing": "Our {v}, where we live since the move, has no dishwasher, so I'm washing up, call you after?",
        "other": "My {who} is renting a {v} in the old town.",
    },
    "coffee": {
        "state": "I drink {v}, nothing else will do.",
        "change": "I've switched my coffee to {v}.",
        "quiet": "The café had my {v} ready before I even reached the till.",
        "passing": "I knocked my {v}, what I drink these days, into my keyboard, so I'm on my phone.",
        "other": "My {who} won't touch anything but {v}.",
    },
    "car": {
        "state": "I drive a {v}, it's done me well.",
        "change": "Said goodbye to the old car at last, I've got a {v} now.",
        "quiet": "Collected the {v} from the dealer this afternoon.",
        "passing": "Filling up the {v}, my car these days, costs less, so I'll drive us to the gig.",
        "other": "My {who} has bought a second-hand {v}.",
    },
    "sport": {
        "state": "Saturdays are for {v}, I never miss a game.",
        "change": "I've given up my old sport and play {v} on weekends now.",
        "quiet": "Won the deciding point at {v} yesterday morning!",
        "passing": "I twisted my ankle at {v}, my weekend game now, so I'll be limping at the wedding.",
        "other": "My {who} joined a {v} club.",
    },
    "diet": {
        "state": "I eat {v}, have done since my twenties.",
        "change": "I've switched to eating {v} from this week.",
        "quiet": "Cleared the cupboards of anything that isn't {v}.",
        "passing": "The wedding caterers did a {v} plate for me, since that's my diet now, and it was lovely.",
        "other": "My {who} says she's {v} these days.",
    },
    "pet": {
        "state": "We've got a {v} named Pickle.",
        "change": "Our old pet went to a friend's farm and we adopted a {v}.",
        "quiet": "The {v} knocked its water bowl over again this morning.",
        "passing": "I'm at the vet with the {v}, our new pet, so can I call you back at six?",
        "other": "My {who} adopted a {v} from the shelter.",
    },
    "commute": {
        "state": "I go in to the office {v} every day.",
        "change": "I've started going in to the office {v} instead.",
        "quiet": "Got in {v} in half the usual time today.",
        "passing": "Coming home {v}, which is how I commute now, I saw a rainbow over the bay, gorgeous.",
        "other": "My {who} has started travelling to her shifts {v}.",
    },
    "email": {
        "state": "My email is {v} if you need it.",
        "change": "I've moved to a new email, {v}, please update it.",
        "quiet": "Anything for me should go to {v} from now.",
        "passing": "Forward the photos to {v}, my address these days, and I'll make an album.",
        "other": "My {who}'s new email is {v}.",
    },
    "wake_time": {
        "state": "On work days I'm up at {v}.",
        "change": "I've moved my weekday alarm to {v}.",
        "quiet": "My phone buzzes me awake at {v} Monday to Friday since the rota changed.",
        "passing": "Out of bed at {v} on work mornings, my new time, means I'm asleep by ten, so no late drinks.",
        "other": "My {who} gets up at {v}.",
    },
}
# Values of this family's own, for every kind (in place of ``kinds.py``'s).
VALUES: dict[str, tuple[str, ...]] = {
    "city": ("Aarhus", "Trieste", "Dunedin", "Halifax", "Utrecht", "Cork", "Gdansk", "Bilbao"),
    "employer": ("Tideline Robotics", "Harbourview Credit Union", "Saltmarsh Studios", "Corvid Analytics",
                 "Greenway Transit", "Meridian Dental"),
    "weekly_class": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "phone": ("07812 305664", "+44 7700 900481", "07931 226 017", "07458-771-302", "07603 918254"),
    "favourite_dish": ("lasagne", "pho", "jollof rice", "katsu curry", "dal", "goulash"),
    "child_school": ("Westfield Junior School", "St Columba's", "Brookside Primary", "Elm Park Academy",
                     "Larchmont Infants"),
    "job_title": ("principal engineer", "operations director", "account manager", "charge nurse",
                  "lead designer"),
    "trip": ("Japan", "Chile", "Norway", "Sri Lanka", "Canada", "Namibia"),
    "morning_habit": ("ten minutes of stretching", "a walk round the park", "fifty push-ups", "a page of sketching",
                      "a glass of lemon water"),
    "partner": ("Nadia", "Joaquim", "Priya", "Oskar", "Elodie", "Bastian"),
    "laptop": ("HP Spectre", "Lenovo Yoga", "Acer Swift", "Asus Zenbook", "Pixelbook"),
    "household": ("two", "seven", "eight", "nine"),
    "doctor": ("Dr. Achebe", "Dr. Nakamura", "Dr. Ferreira", "Dr. Kowalski", "Dr. Walsh"),
    "language": ("Japanese", "Polish", "Italian", "Hindi", "Icelandic", "Welsh"),
    "home_type": ("terraced house", "cottage", "penthouse", "maisonette", "canal boat"),
    "coffee": ("americano", "cappuccino", "iced mocha", "piccolo", "long black"),
    "car": ("Ford Focus", "Honda Jazz", "Tesla Model 3", "Renault Zoe", "Subaru Outback"),
    "sport": ("netball", "padel", "table tennis", "ultimate frisbee", "five-a-side football"),
    "diet": ("dairy-free", "flexitarian", "paleo", "low-carb", "plant-based"),
    "pet": ("guinea pig", "gecko", "cockatiel", "corn snake", "axolotl"),
    "commute": ("by ferry", "by car", "by scooter", "by motorbike", "by coach"),
    "email": ("hazel.moss@fastmail.com", "quiet.harbour@proton.me", "ember.lane@posteo.net",
              "paper.crane@mailbox.org"),
    "wake_time": ("5:45", "6:40", "7:20", "8:10"),
}
REPLIES = ("Good to know.", "Got it, thanks for telling me.", "Sounds like a lot going on.", "Nice one!")
CONFIRMS = ("Right, {v} from now on then.", "Noted: {v}.")
WHO = ("goddaughter", "landlady", "old schoolfriend")
# Questions back that end a statement with --asks-back.
ASKS = ("What have you been up to?", "How are things at your end?", "Anything new with you?")
