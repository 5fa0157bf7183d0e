"""Phrasings of the ``test`` family: report on these, never develop on them (``phrasings_train`` is for
that). The same slots as ``phrasings_train``; no sentence is shared between the two families."""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "Life in {v} suits me, the trams and the river walks especially.",
        "change": "We relocated to {v} at the start of the month.",
        "quiet": "Just got the keys to a flat in {v}, the lease started on Monday.",
        "passing": "Unpacking in {v} took all weekend, so I missed the game, who won?",
        "other": "My {who} has settled in {v} now, she sent me photos of the harbour.",
    },
    "employer": {
        "state": "I've been with {v} for about two years.",
        "change": "I left my old firm and joined {v}.",
        "quiet": "First payslip from {v} came in today, feels good.",
        "passing": "The commute to {v}, where I am now, gives me time for podcasts, got any tips?",
        "other": "My {who} accepted an offer from {v}.",
    },
    "weekly_class": {
        "state": "Ceramics night is {v} for me, I never miss it.",
        "change": "My ceramics class got rescheduled to {v}s.",
        "quiet": "From now on the wheel and I meet on {v}s instead.",
        "passing": "Can't do drinks {v}, that's clay night now, but the weekend works.",
        "other": "My {who} takes a ceramics course on {v}s.",
    },
    "phone": {
        "state": "My mobile is {v}, if you ever need to call.",
        "change": "Please note my new mobile, {v}.",
        "quiet": "The old SIM is dead; {v} is the one that rings.",
        "passing": "Ring {v} if the train is late, that's my line now, and bring the umbrella.",
        "other": "My {who} got a new mobile: {v}.",
    },
    "favourite_dish": {
        "state": "Nothing beats {v} for me.",
        "change": "My top meal has changed, it's {v} now.",
        "quiet": "Every craving these days ends with a bowl of {v}.",
        "passing": "The festival had great {v}, my new number one, and the music was loud.",
        "other": "My {who} can't get enough of {v}.",
    },
    "child_school": {
        "state": "Our girl attends {v}.",
        "change": "Our girl switched to {v} after the holidays.",
        "quiet": "The first parents' evening at {v} was on Tuesday, all good news.",
        "passing": "Pickup at {v}, her new place, is chaotic, so I bought a bike trailer.",
        "other": "My {who}'s kid was accepted at {v}.",
    },
    "job_title": {
        "state": "My position is {v}.",
        "change": "HR confirmed it, I'm {v} as of this week.",
        "quiet": "New business cards arrived: {v}, in bold letters.",
        "passing": "Being {v} now means more meetings, so I've been walking at lunch to stay sane.",
        "other": "My {who} became {v} last week.",
    },
    "trip": {
        "state": "We're planning a holiday to {v} this year.",
        "change": "We cancelled the old plan and picked {v} for the holiday.",
        "quiet": "Tickets for {v} are printed and on the fridge.",
        "passing": "Packing lists for {v}, where we're heading now, are taking over my notebook.",
        "other": "My {who} is flying to {v} in the autumn.",
    },
    "morning_habit": {
        "state": "Every day begins with {v} for me.",
        "change": "New routine: the day begins with {v} now.",
        "quiet": "Since March it's {v} before anything else, even before coffee.",
        "passing": "Right after {v}, which is my thing now, I called the plumber.",
        "other": "My {who} started doing {v} daily.",
    },
    "partner": {
        "state": "{v} and I have been together for years.",
        "change": "I've met someone, {v}, we're officially together.",
        "quiet": "Moving in with {v} next month, we found a place with a garden.",
        "passing": "We took {v}, who I'm with now, to the gallery, and the new exhibit was amazing.",
        "other": "My {who} got engaged to {v}.",
    },
    "laptop": {
        "state": "My machine is a {v}.",
        "change": "Work gave me a {v} to replace the old machine.",
        "quiet": "Set up the {v} yesterday, the keyboard is a dream.",
        "passing": "The battery on my {v}, the new one, lasted the whole flight, so I finished the book draft.",
        "other": "My {who} is using a {v}.",
    },
    "household": {
        "state": "We're a family of {v}.",
        "change": "Since the twins arrived we're a family of {v}.",
        "quiet": "The table is set for {v} every evening since grandpa joined us.",
        "passing": "Laundry for {v}, which is us now, is endless, so we bought a bigger machine.",
        "other": "My {who}'s family grew to {v}.",
    },
    "doctor": {
        "state": "I see {v} at the local practice.",
        "change": "I registered with {v} at a new practice.",
        "quiet": "{v} took my blood pressure this morning and was very kind.",
        "passing": "The pharmacy next to {v}'s office, my new one, has great opening hours.",
        "other": "My {who} goes to {v}.",
    },
    "language": {
        "state": "I'm studying {v} twice a week.",
        "change": "I've moved on to {v} classes now.",
        "quiet": "Flashcards in {v} are stuck all over the kitchen this month.",
        "passing": "Between my {v} homework, my new project, and work, I barely watch TV.",
        "other": "My {who} is taking {v} lessons.",
    },
    "home_type": {
        "state": "Our home is a {v} on the edge of town.",
        "change": "We sold the old place and bought a {v}.",
        "quiet": "The {v} needs paint but the view from the bedroom is perfect.",
        "passing": "Our {v}, since the move, has a shed, so the bikes finally have a home.",
        "other": "My {who} rents a {v}.",
    },
    "coffee": {
        "state": "I always get a {v}.",
        "change": "I've given up my old coffee for a {v}.",
        "quiet": "A {v} is what the café writes on my cup these days.",
        "passing": "With a {v} in hand, my new standard, I walked to the station.",
        "other": "My {who} only drinks {v}.",
    },
    "car": {
        "state": "Our car is a {v}.",
        "change": "We traded in the car for a {v}.",
        "quiet": "The {v} handles the hills beautifully, I'm glad we went for it.",
        "passing": "Parking the {v}, which we just got, is easier, so I drove to the market.",
        "other": "My {who} leased a {v}.",
    },
    "sport": {
        "state": "Weekends are for {v} with my club.",
        "change": "I joined a {v} club and left the old one.",
        "quiet": "My Sundays belong to {v} lately, I've got the bruises to prove it.",
        "passing": "After {v} on Saturday, my new hobby, we had pizza with the team.",
        "other": "My {who} joined a {v} team.",
    },
    "diet": {
        "state": "I eat {v}.",
        "change": "I've become {v}.",
        "quiet": "The fridge is entirely {v} since January.",
        "passing": "The restaurant had {v} dishes, which is what I need now, so the birthday was easy.",
        "other": "My {who} has become {v}.",
    },
    "pet": {
        "state": "Our {v} is the boss of the house.",
        "change": "We rehomed the old pet and took in a {v}.",
        "quiet": "The {v} we got from the shelter has already learned his name.",
        "passing": "Feeding the {v}, our newest family member, made me late for the call.",
        "other": "My {who} rescued a {v}.",
    },
    "commute": {
        "state": "I go to the office {v}.",
        "change": "I changed how I commute, I go {v} now.",
        "quiet": "Forty minutes {v} each way is my routine since the office moved.",
        "passing": "Travelling {v}, my new way in, I finished two audiobooks.",
        "other": "My {who} commutes {v}.",
    },
    "email": {
        "state": "Reach me at {v}.",
        "change": "My address changed to {v}.",
        "quiet": "Only {v} gets checked these days, the old account is gone.",
        "passing": "Forward the invite to {v}, that's the one I use now, and see you Friday.",
        "other": "My {who} uses {v}.",
    },
    "wake_time": {
        "state": "On workdays I'm up at {v}.",
        "change": "My weekday wake-up moved to {v}.",
        "quiet": "Since the new contract the phone buzzes at {v} Monday to Friday.",
        "passing": "Rising at {v}, which is my schedule now, I caught the sunrise on the bridge.",
        "other": "My {who} is up at {v} on weekdays.",
    },
}
REPLIES = ("That's exciting.", "Thanks for the update!", "I'll remember that.", "Wow, how does it feel?")
CONFIRMS = ("Understood, {v} it is.", "Okay, I've got {v} down for you now.")
WHO = ("sister", "colleague", "brother-in-law")
# Questions back that end a statement with --asks-back (a chat turn often tells news and then asks).
ASKS = ("And how are things with you?", "Did you end up going to that gig?", "What have you been up to lately?")
