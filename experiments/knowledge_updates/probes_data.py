"""The sentences of ``probes.py`` (issue 31), written on 5 December 2026 from no family's sentences: data only."""

QUESTIONS = {
    "home_city": [
        "Where's home for me right now?",
        "Remind me which city I'm living in.",
        "What city have I settled in?",
    ],
    "home_kind": [
        "Do I live in a flat or a house?",
        "What sort of place am I living in?",
        "What's my current home like, a flat or a house?",
    ],
    "employer": [
        "Who's my employer right now?",
        "Where do I work these days?",
        "Which firm am I with at the moment?",
    ],
    "job_title": [
        "What's my role at work?",
        "What do I do for a living, what's my title?",
        "Which position do I hold now?",
    ],
    "schedule": [
        "What day is my weekly class on?",
        "Which weekday do I have my regular session?",
        "When is my class each week?",
    ],
    "phone": [
        "What's the best number to reach me on?",
        "Remind me of my mobile number.",
        "Which phone number do I use now?",
    ],
    "email": [
        "What email should people use for me?",
        "Which address do I get my emails at?",
        "What's my current email?",
    ],
    "favourite_food": [
        "What dish do I love most?",
        "What's my go-to meal?",
        "Which food is my favourite at the moment?",
    ],
    "drink": [
        "What do I usually order at the café?",
        "How do I take my coffee these days?",
        "What's my regular drink order?",
    ],
    "child_school": [
        "Where does my son go to school?",
        "Which school are my kids at?",
        "What school does our little one attend?",
    ],
    "trip": [
        "Where am I off to on my next holiday?",
        "What's the destination of my upcoming trip?",
        "Where am I travelling to next?",
    ],
    "morning": [
        "How do I start my day?",
        "What's my morning routine now?",
        "What's the first thing I do after waking up?",
    ],
    "partner": ["Who am I seeing these days?", "What's my partner's name?", "Who is my other half?"],
    "device": ["What laptop am I using?", "Which computer do I work on?", "What machine do I have now?"],
    "household": [
        "How many of us live at home?",
        "How big is my household?",
        "How many people are there in my house?",
    ],
    "doctor": ["Who's my GP?", "Which doctor do I see?", "Who do I go to for my health check-ups?"],
    "language": [
        "What language am I studying?",
        "Which language am I trying to learn?",
        "What am I learning to speak?",
    ],
    "car": ["What do I drive?", "Which car do I have now?", "What's my current car?"],
    "sport": [
        "What sport am I into?",
        "Which sport do I play at the moment?",
        "What do I play for exercise?",
    ],
    "diet": ["What kind of diet am I on?", "What don't I eat these days?", "How do I eat now, any diet?"],
    "pet": ["What pet do I have?", "What animal lives with me?", "Which pet do I own now?"],
    "commute": ["How do I get to the office?", "What's my way to work now?", "How do I travel in to work?"],
    "wake": ["When does my alarm go off?", "What time do I get up?", "How early do I wake these days?"],
}
CHANGES = {
    "home_city": [
        "We've relocated to Rotterdam, the flat is tiny but bright.",
        "Home is Cork now, the move went smoothly.",
        "Packed up the old place, we're Dundee people now.",
    ],
    "home_kind": [
        "We swapped the flat for a terraced house with a yard.",
        "Living on a narrowboat these days, it's cosy.",
        "We've downsized to a studio.",
    ],
    "employer": [
        "I've joined Fenwick Analytics as of Monday.",
        "Handed in my notice and I'm now with Marlow Foods.",
        "New employer: Brightwater Insurance, started last week.",
    ],
    "job_title": [
        "I got promoted, I'm senior analyst now.",
        "They made me head of operations this spring.",
        "My new title is principal designer.",
    ],
    "schedule": [
        "My pottery class moved to Thursdays.",
        "Choir is on Mondays now instead.",
        "The weekly lesson switched to Friday evenings.",
    ],
    "phone": [
        "New number: 0771 204 5561, the old one is dead.",
        "Text me on 0788 402 1190 from now on.",
        "I've got a new mobile number, 0734 118 2205.",
    ],
    "email": [
        "Use maya.k@fastmail.com for me now.",
        "My address changed to j.ortiz@proton.me.",
        "Please email me at sam.hill@outlook.com from today.",
    ],
    "favourite_food": [
        "Lately ramen is my absolute favourite.",
        "These days nothing beats a good paella for me.",
        "My new favourite dish is shakshuka.",
    ],
    "drink": [
        "I've gone over to flat whites.",
        "My café order is an oat cortado now.",
        "I drink matcha lattes these days, no more espresso.",
    ],
    "child_school": [
        "Our son moved to Hillcrest Primary this term.",
        "The kids start at Bramble Academy in September, all enrolled.",
        "We switched our daughter to Oak Lane School.",
    ],
    "trip": [
        "Change of plan, we're heading to Japan this summer.",
        "The big holiday is Morocco now, flights booked.",
        "Scrapped Iceland, we're doing Vietnam instead.",
    ],
    "morning": [
        "I start every day with a cold swim now.",
        "First thing each morning I meditate these days.",
        "My mornings begin with yoga now.",
    ],
    "partner": [
        "I've been seeing Marco for a few months.",
        "Lena and I are together now.",
        "My girlfriend Aisha moved in last week.",
    ],
    "device": [
        "I switched to a MacBook Air for work.",
        "Got a Framework laptop, retired the old Dell.",
        "My main machine is a ThinkPad X1 now.",
    ],
    "household": [
        "With the baby here we're a family of four.",
        "My brother moved in, so it's three of us at home.",
        "It's just me and the cat now.",
    ],
    "doctor": [
        "I've registered with Dr Mensah at the new practice.",
        "My GP is Dr Lindqvist since the move.",
        "I switched to a new doctor, Dr Farouk.",
    ],
    "language": [
        "I've started Portuguese lessons.",
        "Dropped Spanish, I'm studying Japanese now.",
        "Learning Dutch these days, it's tough.",
    ],
    "car": [
        "Traded in the Golf for a Tesla Model 3.",
        "I drive a Skoda Octavia now.",
        "We bought a Honda Jazz last month.",
    ],
    "sport": [
        "I've taken up badminton.",
        "Switched from running to rowing.",
        "I play padel twice a week now.",
    ],
    "diet": ["I went vegan in January.", "I've cut out dairy completely.", "I'm keto these days."],
    "pet": [
        "We adopted a greyhound called Pip.",
        "There's a new kitten in the house, Miso.",
        "We got a rabbit last weekend.",
    ],
    "commute": [
        "I cycle to the office now.",
        "These days I take the train in.",
        "I've started walking to work.",
    ],
    "wake": [
        "My alarm goes at 5:45 now.",
        "I've been getting up at 7 these days.",
        "I'm up at 6:15 every morning now.",
    ],
}

# A second set, written at 15:19-15:21 UTC before any change to the claim rules that ``CHANGES``' misses
# suggested: the check for such a change (``probes.py check``). And look-alikes no rule should claim: someone else's,
# a wish, a negation, a plan not yet made, a question (``check`` counts those claimed that name no one:
# ``text.people``, which both readers of a claim apply).
CHECK = {
    "home_city": [
        "Finally settled in Galway after all that house hunting.",
        "Our new address is in Leicester, much closer to the coast road.",
        "I'm a Bristolian now, signed the lease on Friday.",
    ],
    "home_kind": [
        "We bought a bungalow, no more stairs for us.",
        "I'm renting a houseboat now, believe it or not.",
        "Moved out of the semi into a top-floor flat.",
    ],
    "employer": [
        "I'm working for Halden Logistics since May.",
        "Accepted the offer from Corvid Software, first day was Monday.",
        "My new company is Tamsin & Roe, a small law firm.",
    ],
    "job_title": [
        "I'm the team's lead engineer now.",
        "Got bumped up to senior nurse last month.",
        "My job title changed to operations manager.",
    ],
    "schedule": [
        "Book club meets on Wednesdays now, not Tuesdays.",
        "My swim squad trains every Saturday morning now.",
        "I moved my piano lesson to Sunday afternoons.",
    ],
    "phone": [
        "I changed my number, it's 0756 330 8812.",
        "You can reach me on 0747 991 2034 now.",
        "My mobile is 0712 558 4409 these days.",
    ],
    "email": [
        "I'm on ravi.p@hey.com now, the old inbox is closed.",
        "My email is now tomas.w@gmx.net.",
        "Switched my email to lou.b@icloud.com.",
    ],
    "favourite_food": [
        "I'm obsessed with pho at the moment.",
        "Dumplings have become my favourite thing to eat.",
        "My go-to dinner these days is a mushroom risotto.",
    ],
    "drink": [
        "I've switched to green tea in the mornings.",
        "My usual coffee is a long black now.",
        "These days I order a chai latte every time.",
    ],
    "child_school": [
        "Our daughter is at Linden Park School now.",
        "We moved the twins to Greyfriars Primary.",
        "My son started at Ashgrove Academy this week.",
    ],
    "trip": [
        "We booked Lisbon for our anniversary trip instead.",
        "Our summer holiday is in Crete this year.",
        "I'm flying to Montreal in August now, not Boston.",
    ],
    "morning": [
        "My morning routine now starts with journaling.",
        "I go for a run before breakfast these days.",
        "Every morning I do ten minutes of stretching now.",
    ],
    "partner": [
        "I'm dating a guy called Felix.",
        "My partner is Ines, we met in the spring.",
        "I got engaged to Tom last weekend.",
    ],
    "device": [
        "I use a Surface Pro for everything now.",
        "My laptop is a Dell XPS these days.",
        "Bought a new MacBook Pro, the old one died.",
    ],
    "household": [
        "My mum moved in with us, so we're five now.",
        "We live with two lodgers these days.",
        "I live alone since the divorce.",
    ],
    "doctor": [
        "My doctor now is Dr Okafor at Riverside Surgery.",
        "I see Dr Halvorsen these days.",
        "We registered with a new GP, Dr Chen.",
    ],
    "language": [
        "I'm learning Korean on the side.",
        "I've taken up Italian classes on Thursdays.",
        "Studying Mandarin now, three lessons a week.",
    ],
    "car": [
        "I drive a Kia Niro these days.",
        "We swapped the Corsa for a Volvo estate.",
        "My car is a Nissan Leaf now.",
    ],
    "sport": [
        "I've joined a climbing gym.",
        "I play tennis on weekends now.",
        "Netball is my sport these days.",
    ],
    "diet": ["I've gone vegetarian.", "I eat gluten-free now.", "I'm on a low-carb diet these days."],
    "pet": [
        "We have a dog now, a collie called Bramble.",
        "I adopted a tabby cat last month.",
        "Our new puppy is called Biscuit.",
    ],
    "commute": [
        "I take the bus to work now.",
        "I ride my e-bike to the office these days.",
        "I drive in to work since the move.",
    ],
    "wake": [
        "I wake up at 6:30 now.",
        "My alarm is set for 5am these days.",
        "I've been waking at 7:15 since the new job.",
    ],
}
# A third set, written at 15:21 UTC after ``CHECK``'s misses had been printed once with its count (so ``CHECK`` is
# seen, as ``CHANGES`` is) and before any change to the claim rules: ``changes held`` prints its counts only.
HELD = {
    "home_city": [
        "After years of thinking about it I finally live in Truro, by the harbour.",
        "We're in Harrogate now, the kids love the park.",
        "Swapped city life for Kendal this spring.",
    ],
    "home_kind": [
        "Our home now is a little cottage with a wood burner.",
        "I moved into a shared house near the station.",
        "We're in a two-bed maisonette these days.",
    ],
    "employer": [
        "I work at Pellinor Bank now, in their risk team.",
        "Started with Quayside Media on the first of the month.",
        "Left the agency, my employer is Hartwell Foods now.",
    ],
    "job_title": [
        "I'm now the deputy head of science.",
        "As of this month I'm a staff engineer.",
        "They gave me the product owner role, so that's my title now.",
    ],
    "schedule": [
        "My Spanish conversation group is on Tuesday evenings now.",
        "I have my climbing session every Thursday now.",
        "Rehearsals for my band switched to Saturdays.",
    ],
    "phone": [
        "My new phone number is 0791 664 2387.",
        "Ring me on 0738 220 9164, I ditched the old SIM.",
        "Got a work phone, my number there is 0745 310 6621.",
    ],
    "email": [
        "Send things to my new address, noor.h@posteo.de.",
        "I've moved my email over to d.kim@zoho.com.",
        "My inbox is now at ellis.j@mailbox.org.",
    ],
    "favourite_food": [
        "Tacos are my favourite food now, hands down.",
        "I can't get enough of katsu curry lately.",
        "My favourite meal these days is a Sunday roast.",
    ],
    "drink": [
        "My morning drink is a flat white now.",
        "I've moved on from lattes to cold brew.",
        "Coffee-wise I'm all about the cortado now.",
    ],
    "child_school": [
        "Our youngest goes to Millbrook Primary now.",
        "We enrolled our son at St Aidan's Academy.",
        "My daughter moved schools, she's at Fairview High now.",
    ],
    "trip": [
        "Our autumn trip is to Kyoto now, all booked.",
        "I'm heading to Sicily for my holiday instead of Crete.",
        "We're travelling to Chile in March, the Peru trip is off.",
    ],
    "morning": [
        "My new routine is a cold shower first thing.",
        "I walk the dog every morning before work now.",
        "Each morning I start the day with a smoothie now.",
    ],
    "partner": [
        "I'm in a relationship with Sofia now.",
        "My boyfriend is called Dev, we've been together since June.",
        "Me and Harriet are a couple now.",
    ],
    "device": [
        "My work laptop is a ThinkPad T14 now.",
        "I'm on a Chromebook these days, it's all I need.",
        "I replaced my old PC with a Mac mini.",
    ],
    "household": [
        "My partner's dad lives with us now, so it's four of us.",
        "There are six of us in the house since the twins arrived.",
        "I'm living with my sister these days.",
    ],
    "doctor": [
        "My new doctor is Dr Abiodun.",
        "I'm registered at Elm Tree Surgery now, with Dr Price.",
        "I changed GP, I see Dr Novak now.",
    ],
    "language": [
        "I'm studying Greek with an app now.",
        "I've been learning Welsh since January.",
        "I switched from French to Spanish lessons.",
    ],
    "car": [
        "We've got a Toyota Yaris hybrid now.",
        "I sold the Fiesta and bought a Mazda 3.",
        "I drive an electric Vauxhall now.",
    ],
    "sport": [
        "I play squash on Sundays now.",
        "I've joined the local rowing club.",
        "Football's out, I'm playing hockey this season.",
    ],
    "diet": ["I'm vegan now.", "I've stopped eating meat.", "I eat a pescatarian diet these days."],
    "pet": [
        "We got a cat, her name is Pepper.",
        "I've adopted a rescue greyhound.",
        "My new dog is a spaniel called Rolo.",
    ],
    "commute": [
        "I cycle in to work every day now.",
        "My commute is on the tram these days.",
        "I get the train to the office now.",
    ],
    "wake": [
        "I get up at 6am these days.",
        "I set my alarm for 6:45 now.",
        "I wake at 5:30 every morning now.",
    ],
}
NOT_CLAIMS = [
    "My sister moved to Galway last month.", "She's working for Halden Logistics now.",
    "I'd love to live in Leicester one day.", "I never worked for Corvid Software.",
    "I'm going to move to Bristol next year.", "Do you still live in Galway?",
    "My brother got a new number, 0756 330 8812.", "If I moved to Crete I'd swim every day.",
    "I don't drive a Kia any more.", "My friend adopted a tabby cat.",
    "They play tennis on weekends.", "Maybe I'll learn Korean.", "Our neighbours bought a bungalow.",
    "My cousin is dating a guy called Felix.", "I wish I could wake up at 6:30.",
]

# written 5 December 2026 before the second round of claim phrases (README, "Direct changes in everyday words, a
# second round"): look-alikes of its phrases that no rule should claim
NOT_CLAIMS_2 = [
    "My brother became head of sales in March.", "I wish they'd made me team lead.",
    "Waking at 5 every day sounds awful.", "Are there four of you now?",
    "My sister's family are five now.", "I never became a manager, thankfully.",
]
