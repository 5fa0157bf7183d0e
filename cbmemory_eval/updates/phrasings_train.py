"""Phrasings of the ``train`` family (develop rules on these; report on ``test``: ``phrasings_test``).

Per kind: ``state`` (the user's first statement of a value), ``change`` (a plain statement of a new value),
``quiet`` (a new value in words that repeat neither the old value nor the question's content words),
``passing`` (a new value told in passing inside another topic) and ``other`` (someone else's similar fact,
``{who}``: not a change of the user's own value). ``{v}`` is the value.
"""

from __future__ import annotations

PHRASINGS: dict[str, dict[str, str]] = {
    "city": {
        "state": "I've been living in {v} for a few years now and I really like the neighbourhood.",
        "change": "Big news: I moved to {v} last week, the boxes are still everywhere.",
        "quiet": "Tomorrow is my first morning as a resident of {v}.",
        "passing": "The drive was long, but the new flat in {v} made it worth it, and anyway, how was your concert?",
        "other": "My {who} just moved to {v}, so I'll have somewhere to stay when I visit.",
    },
    "employer": {
        "state": "I work at {v}, mostly on the planning side.",
        "change": "I started a new job at {v} this month.",
        "quiet": "Signed the contract with {v} yesterday, my badge arrives Monday.",
        "passing": "Speaking of lunch, the canteen at {v} is far better than my old place's.",
        "other": "My {who} got hired by {v}, which is great news for the family.",
    },
    "weekly_class": {
        "state": "My pottery class is every {v} evening, it's the highlight of my week.",
        "change": "The pottery class moved to {v} evenings from now on.",
        "quiet": "The studio reshuffled everything, so it's {v} nights at the wheel for me.",
        "passing": "I'll skip the film, I'm at the clay studio on {v}s now, but tell me how it ends.",
        "other": "My {who} signed up for a pottery class on {v}s too.",
    },
    "phone": {
        "state": "You can always reach me on {v}.",
        "change": "I changed my phone number, it's {v} now.",
        "quiet": "New SIM, new digits: {v}.",
        "passing": "Before I forget, text me at {v} from now on, the old one is gone; anyway, the party was fun.",
        "other": "My {who} has a new number, {v}, in case you need it.",
    },
    "favourite_dish": {
        "state": "My favourite dish is {v}, I could eat it every day.",
        "change": "These days {v} is my favourite dish by far.",
        "quiet": "I can't stop ordering {v}, it has replaced everything else I used to crave.",
        "passing": "We went to that market, I had {v} again, honestly it's my top food now, and the weather was lovely.",
        "other": "My {who} is obsessed with {v} lately.",
    },
    "child_school": {
        "state": "My daughter goes to {v}, she loves her teacher.",
        "change": "We moved my daughter to {v} this term.",
        "quiet": "Her first week at {v} went better than we hoped, new uniform and all.",
        "passing": "I was at the bookshop after the drop-off at {v}, her new place, and found the novel you mentioned.",
        "other": "My {who}'s daughter just started at {v}.",
    },
    "job_title": {
        "state": "I'm a {v} at the moment.",
        "change": "I got promoted, my title is {v} now.",
        "quiet": "The org chart finally says {v} next to my name.",
        "passing": "Since becoming {v} I barely get time for the garden, which is why it looks wild in the photo.",
        "other": "My {who} was just made {v} at their firm.",
    },
    "trip": {
        "state": "My next big trip is to {v}, I've been saving for it.",
        "change": "Change of plans, the big trip is going to be {v} instead.",
        "quiet": "Booked the flights for {v} last night, leaving in spring!",
        "passing": "I bought hiking boots for {v}, the new plan, and the shop also had that jacket you liked.",
        "other": "My {who} is going to {v} next month.",
    },
    "morning_habit": {
        "state": "I start every morning with {v}.",
        "change": "I switched my morning routine, now it's {v} first thing.",
        "quiet": "Before breakfast it's {v} for me these weeks, I feel so much better.",
        "passing": "After {v} today, which is what my mornings look like now, I finally read your message.",
        "other": "My {who} swears by {v} every morning.",
    },
    "partner": {
        "state": "My partner {v} says hi, by the way.",
        "change": "I'm seeing someone new, {v}, and it's going really well.",
        "quiet": "{v} and I have been together three months now, I'm so happy.",
        "passing": "We watched the match at {v}'s place, the person I'm seeing now, and the snacks were great.",
        "other": "My {who} is dating someone called {v}.",
    },
    "laptop": {
        "state": "I do all my work on a {v}.",
        "change": "I replaced my laptop, I'm on a {v} now.",
        "quiet": "The {v} arrived and all my files are on it already.",
        "passing": "I wrote the whole report on the {v} I got last week, and it went down well with the team.",
        "other": "My {who} bought a {v} yesterday.",
    },
    "household": {
        "state": "There are {v} of us living in the house.",
        "change": "With the new baby there are {v} of us in the house now.",
        "quiet": "Dinner for {v} every night under our roof since my mum moved in.",
        "passing": "Cooking for {v} every night, that's us now, means I finally use the big pot you gave me.",
        "other": "My {who}'s family is {v} people now.",
    },
    "doctor": {
        "state": "My doctor is {v}, she's very thorough.",
        "change": "I switched doctors, I see {v} now.",
        "quiet": "Had my first check-up with {v} today, lovely bedside manner.",
        "passing": "On the way back from {v}, my new GP, I passed the bakery you told me about.",
        "other": "My {who} started seeing {v} for her back.",
    },
    "language": {
        "state": "I'm learning {v}, a little every evening.",
        "change": "I dropped my old course and started learning {v} instead.",
        "quiet": "My new app streak is all {v} vocabulary, twelve days so far.",
        "passing": "The {v} lessons I've just begun are fun, and the teacher also plays in a band.",
        "other": "My {who} is learning {v} for work.",
    },
    "home_type": {
        "state": "We live in a {v}, it's cosy.",
        "change": "We moved into a {v} last month.",
        "quiet": "Waking up in our {v} still feels unreal, the keys came on Friday.",
        "passing": "The {v} we just moved into has a spot for a desk, so I finally set up the painting corner.",
        "other": "My {who} lives in a {v}.",
    },
    "coffee": {
        "state": "My usual coffee is a {v}.",
        "change": "I've switched to a {v} as my usual coffee.",
        "quiet": "The barista starts on a {v} as soon as I walk in lately.",
        "passing": "Grabbing my {v}, my go-to now, I bumped into our old teacher.",
        "other": "My {who} always orders a {v}.",
    },
    "car": {
        "state": "I drive a {v}.",
        "change": "I sold the old car and bought a {v}.",
        "quiet": "Picked up the {v} from the dealer this morning, it smells brand new.",
        "passing": "The {v} I just got made the road trip easy, and the lake was stunning.",
        "other": "My {who} bought a {v}.",
    },
    "sport": {
        "state": "On weekends I play {v} with friends.",
        "change": "I quit my old sport, I play {v} on weekends now.",
        "quiet": "Saturday mornings are {v} at the leisure centre for me lately.",
        "passing": "My knee is sore from {v}, my new thing, but the physio was helpful.",
        "other": "My {who} plays {v} every weekend.",
    },
    "diet": {
        "state": "I'm {v}, have been for a while.",
        "change": "I went {v} last month.",
        "quiet": "Since the doctor's advice it's {v} meals only for me.",
        "passing": "Finding {v} options, which is how I eat now, was easy at the wedding, and the band was great.",
        "other": "My {who} went {v}.",
    },
    "pet": {
        "state": "I have a {v}, he's great company.",
        "change": "We adopted a {v}; the old one went to my parents.",
        "quiet": "Our new {v} keeps me up at night but I adore him.",
        "passing": "The {v} we brought home chewed my notes, so I was late for the meeting.",
        "other": "My {who} has a {v}.",
    },
    "commute": {
        "state": "I get to work {v}.",
        "change": "I've started commuting {v} instead.",
        "quiet": "It's {v} to the office for me every day now, forty minutes door to door.",
        "passing": "Going in {v}, which is what I do now, I saw the mural you painted.",
        "other": "My {who} goes to work {v}.",
    },
    "email": {
        "state": "My email is {v}.",
        "change": "I've got a new email address: {v}.",
        "quiet": "Write to {v} from now on, the old inbox is closed.",
        "passing": "Send the photos to {v}, my new address, and say hi to everyone.",
        "other": "My {who}'s email is {v}.",
    },
    "wake_time": {
        "state": "I wake up at {v} on weekdays.",
        "change": "I've started getting up at {v} on weekdays.",
        "quiet": "The alarm rings at {v} now, the new shift starts early.",
        "passing": "Up at {v} like every workday now, I had time to bake the bread before work.",
        "other": "My {who} gets up at {v} every day.",
    },
}
REPLIES = ("Oh, nice!", "That sounds like quite a change.", "Good to know, thanks for telling me.",
           "How are you finding it so far?")
CONFIRMS = ("Got it: {v} from now on.", "Noted, so it's {v} now.")
WHO = ("cousin", "friend", "neighbour")
# Questions back that end a statement with --asks-back (a chat turn often tells news and then asks).
ASKS = ("How have you been?", "Anyway, how was your weekend?", "What about you, anything new?")
