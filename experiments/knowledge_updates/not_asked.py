"""Issue 31: a second list of first-person questions about no fact a slot holds (what happened, what was said, what
the user thought or felt, once), written on 6 December 2026 for the question head (README, "A question's kind read by
a head trained on questions"), before any run read them. Negatives beside ``question_reading.NOT_ASKED`` and
``asked.EVENTS``; several are near a slot's words on purpose (a meal once is no favourite dish, a drive once no car,
a call once no phone number)."""

NOT_ASKED_2 = [
    "What did I cook for the dinner party on Saturday?", "When did I drive up to see the lighthouse?",
    "Who called me during the power cut?", "What did I order at the noodle bar last week?",
    "Which museum did I visit on my day off?", "What did I say about the storm that flooded the road?",
    "When did I start feeling better after the flu?", "What did my friend bake for my birthday?",
    "Why did I leave the concert early?", "What did I find in the attic?",
    "How did the job interview I mentioned go?", "What did I think of the hotel breakfast?",
    "Which song did I sing at karaoke?", "What did I do on the first day of the holidays?",
    "When did I get the parking ticket?", "What did I tell you about my old school reunion?",
    "What did I paint in the art class last month?", "Who did I bump into at the station?",
    "What did I say the neighbours' party was like?", "When did I go camping by the lake?",
    "What did I plant in the garden in spring?", "What happened at the wedding I went to?",
    "How long did the queue at the airport take?", "What did I win at the raffle?",
    "When did I sprain my ankle?", "What did I buy at the flea market?",
    "What did I say about the documentary we discussed?", "Which restaurant did I try for the first time?",
    "What did I write in the letter to my grandfather?", "What did the mechanic say about the noise?",
    "When did I lose my keys?", "What was the surprise I planned for my brother?",
    "What did I make with the leftover pumpkin?", "How did I celebrate passing my exam?",
    "What did I do when the train was cancelled?", "Which game did I play with my nephew?",
    "What did I think of the play at the theatre?", "When did I see the fireworks?",
    "What did I tell you about the hike in the rain?", "Who gave me the book for Christmas?",
    "What did I learn at the cooking workshop?", "How did the charity run go?",
    "What did I say I was nervous about last week?", "What photos did I take at the beach?",
    "When did I volunteer at the food bank?", "What did I say about the weather on my trip last year?",
    "What did I get my partner for our anniversary?", "Which band did I see live in the summer?",
    "What went wrong with the birthday cake?", "What did I tell you about the dog that chased me?",
    "When did I fix the leaking tap?", "What did my boss say in the meeting on Monday?",
    "Why was I late to the dentist that time?", "What did I bring back from the market in town?",
    "What did I say about the fire alarm at work?", "How did I spend the bank holiday?",
    "What was the first thing I did after the exam?", "When did I go to the hospital with my mum?",
    "What did I decide about the old sofa?", "What did I say about the noisy builders next door?",
]
