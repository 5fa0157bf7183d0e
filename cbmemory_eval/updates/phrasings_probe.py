"""Phrasings of the ``probe`` family.

A sixth family, written on 7 December 2026 by a writer who had not read the product's rules nor the other
families' sentences, with values of its own (``VALUES``), to estimate what the product does with wordings no rule
was written from.

Every sentence is said by the user; ``{v}`` is a value of the kind (exactly once per sentence) and ``{who}`` (only in
``"other"``) a relation word from ``WHO``. Keys: ``state`` (the original value, plainly), ``change`` (says it changed
to ``{v}``), ``quiet`` (``{v}`` only as a side detail of an everyday event), ``passing`` (about something else, with
``{v}`` in a phrase that marks it as current) and ``other`` (someone else's similar fact).
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "Honestly, {v} is home for me — I've been here since I finished uni.",
        "change": "We finally did it — we've moved to {v}! Boxes absolutely everywhere.",
        "quiet": "The bin men in {v} come round at six in the morning, which nobody warned me about.",
        "passing": "Sorry for the slow replies, the wifi in our new flat in {v} still isn't sorted.",
        "other": "My {who} is thinking about relocating to {v} for work next spring.",
    },
    "employer": {
        "state": "I've worked at {v} for about six years now, and I still quite like it.",
        "change": "Quick update — I've left my old job and I'm at {v} now.",
        "quiet": "The canteen at {v} does a surprisingly decent curry on Thursdays.",
        "passing": "Can you help me draft an email to my manager at {v}, where I've been since the spring?",
        "other": "My {who} just got an offer from {v} and can't decide whether to take it.",
    },
    "weekly_class": {
        "state": "Pottery's on {v} evenings for me — it's honestly the highlight of my week.",
        "change": "They've shuffled the timetable, so my pottery class is on {v}s now.",
        "quiet": "Clay under my nails again — {v} nights at the studio always leave me a mess.",
        "passing": "Could you remind me to pack an apron on {v}, since that's my wheel-throwing night now?",
        "other": "My {who} goes to a life-drawing class every {v} at the community centre.",
    },
    "phone": {
        "state": "My mobile number is {v}, if you ever need it for forms.",
        "change": "I've got a new number — it's {v} now, the old one's dead.",
        "quiet": "The delivery driver rang {v} twice this morning and I missed both calls, typical.",
        "passing": "Can you put {v}, which is my number these days, at the bottom of the cover letter?",
        "other": "My {who} changed their number to {v} and forgot to tell anyone.",
    },
    "favourite_dish": {
        "state": "Nothing beats {v} for me — it's my favourite thing in the world to eat.",
        "change": "My tastes have changed, I think — {v} is my new favourite dish.",
        "quiet": "Made {v} again tonight, third time this week, and I regret nothing.",
        "passing": ("I'm hosting on Saturday — any tips for making {v}, which is my favourite these days, "
                    "for a crowd?"),
        "other": "My {who} is obsessed with {v} and orders it everywhere we go.",
    },
    "child_school": {
        "state": "Our daughter goes to {v}, just round the corner from us.",
        "change": "We moved our daughter to {v} this term, and she's settling in well.",
        "quiet": "The parents' WhatsApp group for {v} has been pinging non-stop about the bake sale.",
        "passing": "Can you help me write a sick note for {v}, where our girl's in Year 4 now?",
        "other": "My {who}'s little boy has just started at {v}.",
    },
    "job_title": {
        "state": "My job title is {v}, though honestly half the time I'm just in meetings.",
        "change": "I got the promotion! My title's officially {v} from this week.",
        "quiet": "New business cards arrived today — {v} printed right under my name, looks very grand.",
        "passing": "Can you tidy up my LinkedIn blurb? It needs to say {v}, which is my role now.",
        "other": "My {who} has just been made {v} at a startup.",
    },
    "trip": {
        "state": "Our next big holiday is {v} — we've been saving up for ages.",
        "change": "Change of plan: we've scrapped the old idea and booked {v} instead!",
        "quiet": "Just spent an hour reading about visas and plug adapters for {v}, my brain hurts.",
        "passing": "Do you have a packing-list template? The big holiday is {v} now, so I want to start early.",
        "other": "My {who} just got back from three weeks in {v} and won't stop showing me photos.",
    },
    "morning_habit": {
        "state": "Every morning starts with {v} for me — I'm useless without it.",
        "change": "I've swapped my old routine for {v} first thing, and I feel so much better.",
        "quiet": "Got a funny look from the postman — {v} at dawn is apparently not normal round here.",
        "passing": "Can we go through my to-do list after {v}, which is how I kick off each day now?",
        "other": "My {who} swears by {v} before breakfast.",
    },
    "partner": {
        "state": "My partner's called {v} — we've been together since uni.",
        "change": "I'm seeing someone new — {v}, and it's going really well.",
        "quiet": "{v} nicked the duvet again last night, so I'm running on no sleep.",
        "passing": "Can you suggest a birthday present for {v}, my new other half? Budget's about fifty quid.",
        "other": "My {who} has been seeing someone called {v} for a few months now.",
    },
    "laptop": {
        "state": "I do everything on my {v}, and it's been pretty reliable so far.",
        "change": "Finally retired the old machine — I'm on a shiny new {v} now.",
        "quiet": "Spilled tea all over the keyboard of my {v} this morning — it survived, thank god.",
        "passing": "Can you recommend a sleeve that fits the {v}, since that's what I'm using now?",
        "other": "My {who} keeps trying to convince me the {v} is the best thing ever made.",
    },
    "household": {
        "state": "There are {v} of us at home, so it's never exactly quiet.",
        "change": "Things have shifted at home — it's {v} of us under one roof now.",
        "quiet": "I'm cooking for {v} every night, so the food shop is eye-watering.",
        "passing": "Could you scale this chilli recipe for {v}, which is how many of us there are at home now?",
        "other": "My {who} has a household of {v}, all squeezed into a tiny flat.",
    },
    "doctor": {
        "state": "My GP is {v} at the surgery on the high street.",
        "change": "I've switched practices, so I'm with {v} now.",
        "quiet": "{v} told me to cut back on salt, which, fair enough.",
        "passing": ("Can you remind me to book a blood test? {v}, who I'm registered with now, "
                    "wants it done this month."),
        "other": "My {who} sees {v} too and can't recommend them enough.",
    },
    "language": {
        "state": "I'm learning {v} — slowly, but I'm getting there.",
        "change": "I've switched to {v} now; the old language just wasn't sticking.",
        "quiet": "Watched a film in {v} last night and caught a few words without reading the subtitles!",
        "passing": "Could you quiz me on some {v} verbs later? That's what I'm studying now.",
        "other": "My {who} is fluent in {v} and keeps offering to help me practise.",
    },
    "home_type": {
        "state": "We live in a {v} on the edge of town.",
        "change": "We've moved out of the old place and into a {v}!",
        "quiet": "The heating in our {v} takes ages to kick in on cold mornings.",
        "passing": "Can you suggest some plants that'd suit our new {v}? Not much light, sadly.",
        "other": "My {who} just put in an offer on a {v} near the coast.",
    },
    "coffee": {
        "state": "My usual order is a {v}, no sugar.",
        "change": "I've gone off my old drink — it's a {v} every time now.",
        "quiet": "The barista had my {v} ready before I'd even opened my mouth today.",
        "passing": "Sorry, typing one-handed with a {v} in the other — my new usual — what were we saying?",
        "other": "My {who} won't drink anything except a {v}.",
    },
    "car": {
        "state": "We drive a {v} — nothing fancy, but it gets us around.",
        "change": "We've traded in the old car and got a {v}!",
        "quiet": "Managed to fit a whole flat-pack wardrobe in the boot of the {v} today, very proud.",
        "passing": "Can you find me a decent car wash nearby? The {v}, which is what we've got now, is filthy.",
        "other": "My {who} has just bought a second-hand {v} and won't stop talking about it.",
    },
    "sport": {
        "state": "Saturdays are for {v} — I've played since school.",
        "change": "I've packed in my old sport and taken up {v} on Saturdays instead.",
        "quiet": "My knees are killing me after {v} this morning, I'm getting too old for this.",
        "passing": "Can we move our chat to the afternoon? I've got {v}, my new Saturday thing, until noon.",
        "other": "My {who} plays {v} in a Sunday league and is weirdly competitive about it.",
    },
    "diet": {
        "state": "I follow a {v} diet and have done for years.",
        "change": "Heads up, I've gone onto a {v} diet, so my shopping list looks totally different now.",
        "quiet": "Found a brilliant {v} cookbook at the charity shop for a couple of quid.",
        "passing": "Could you plan me a week of dinners? They need to be {v}, since that's how I eat now.",
        "other": "My {who} is trying a {v} diet and keeps sending me recipes.",
    },
    "pet": {
        "state": "We keep a {v} at home, and it's basically the boss of the house.",
        "change": "Exciting news — we've got a {v}! Still working out the name.",
        "quiet": "Had to buy a whole bag of special bedding for the {v} today, the price of it!",
        "passing": "Can you recommend a pet-sitter app? Our new {v} can't be left alone over the weekend.",
        "other": "My {who} has a {v} that's far too clever for its own good.",
    },
    "commute": {
        "state": "I get to the office {v} most days — it takes about forty minutes.",
        "change": "I've changed how I get in — it's {v} now, and honestly it's way less stressful.",
        "quiet": "Bumped into an old schoolfriend on the way in {v} this morning, small world.",
        "passing": "Could you check the weather for tomorrow? I go in {v} these days, so it matters.",
        "other": "My {who} gets to work {v} and thinks everyone else is mad.",
    },
    "email": {
        "state": "My email's {v} — that's the one I actually check.",
        "change": "I've set up a new address: {v}. Please use that from now on.",
        "quiet": "Got another weird newsletter to {v} this morning, no idea how they found me.",
        "passing": ("Can you draft a reply to the landlord? Sign it off with {v}, my new address, "
                    "so he writes back there."),
        "other": "My {who} uses {v} for everything and never checks it.",
    },
    "wake_time": {
        "state": "My alarm goes off at {v} every weekday, no exceptions.",
        "change": "I've shifted my weekday alarm to {v}, which is taking some getting used to.",
        "quiet": "The birds outside were already going mad at {v} today, right as I dragged myself up.",
        "passing": "Could we keep our catch-ups to the evening? I'm up at {v} on workdays now, so mornings are hectic.",
        "other": "My {who} gets up at {v} every day and it makes me tired just hearing about it.",
    },
}

# The family's own values. weekly_class has only the five weekday names, which every family shares.
VALUES: dict[str, tuple[str, ...]] = {
    "city": ("Coimbra", "Aberdeen", "Plovdiv", "Bologna", "Maastricht", "Tampere", "Zaragoza"),
    "employer": ("Hollowbrook Analytics", "Quayside Robotics", "Fernhill Mutual", "Brackenridge Media",
                 "Copperleaf Energy", "Tidewater Freight"),
    "weekly_class": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "phone": ("07700 900 412", "+44 7911 123 456", "(020) 7946 0321", "07946-558-213", "0113 496 0785"),
    "favourite_dish": ("khachapuri", "laksa", "bobotie", "feijoada", "beef rendang", "okonomiyaki"),
    "child_school": ("Ashgrove Primary", "Thornbury Academy", "St Aidan's", "Willowmead School",
                     "Penrose Academy"),
    "job_title": ("clinical pharmacist", "data scientist", "senior copywriter", "lead architect",
                  "project coordinator"),
    "trip": ("Uzbekistan", "Mongolia", "Slovenia", "Bhutan", "Costa Rica", "Madagascar"),
    "morning_habit": ("a spot of tai chi", "a kettlebell workout", "a mug of bone broth",
                      "half an hour of yoga", "a crossword", "a few pages of a novel"),
    "partner": ("Callum", "Ottilie", "Anouk", "Dmitri", "Soren", "Beatriz"),
    "laptop": ("Razer Blade", "LG Gram", "MacBook Pro", "Huawei MateBook", "Samsung Galaxy Book"),
    "household": ("ten", "eleven", "twelve", "thirteen"),
    "doctor": ("Dr. Achterberg", "Dr. Nwosu", "Dr. Castellano", "Dr. Fairbairn", "Dr. Ishikawa"),
    "language": ("Basque", "Tagalog", "Catalan", "Amharic", "Hungarian", "Finnish"),
    "home_type": ("mews house", "barn conversion", "converted chapel", "mansion flat", "static caravan"),
    "coffee": ("double espresso", "ristretto", "lungo", "decaf latte", "Turkish coffee", "cafe con leche"),
    "car": ("Dacia Duster", "Citroen Berlingo", "Fiat Panda", "Peugeot 308", "Hyundai Ioniq", "Nissan Leaf"),
    "sport": ("korfball", "lacrosse", "hurling", "dodgeball", "tag rugby"),
    "diet": ("Mediterranean", "low-FODMAP", "halal", "kosher", "low-sodium"),
    "pet": ("bearded dragon", "chinchilla", "gerbil", "tarantula", "degu", "sugar glider"),
    "commute": ("on the Tube", "by water taxi", "on rollerblades", "by river bus", "by cargo bike"),
    "email": ("marigold.fox@gmail.com", "t.ashworth@outlook.com", "pebble.and.moss@icloud.com",
              "juniper.tide@hey.com", "lark.song@zoho.eu"),
    "wake_time": ("6:50", "5:40", "7:35", "6:05", "8:25"),
}

REPLIES: tuple[str, ...] = (
    "Thanks, that's useful to know.",
    "Noted — I'll keep that in mind.",
    "Good to hear from you.",
    "Understood, thanks for sharing.",
)

CONFIRMS: tuple[str, ...] = (
    "Got it — {v} from now on.",
    "Okay, {v} it is. I'll remember that.",
)

WHO: tuple[str, ...] = ("nephew", "housemate", "stepdad")

ASKS: tuple[str, ...] = (
    "Got any news yourself?",
    "Does that sound sensible to you?",
    "What would you do in my shoes?",
)
