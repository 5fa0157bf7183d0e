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

# Questions about the stage's seven kinds that no benchmark kind has (the question sets hold none of them), written
# on 6 December 2026 after the first question head read "What instrument am I learning?" as a language and "What
# street do I live on?" as a city (README, "The question head, second version"); a sixth set for it.
OTHER_KINDS = {
    "hobby": ["What do I get up to at weekends for fun?", "Which pastime have I taken up lately?",
              "What's the thing I do to unwind these days?", "What am I into as a hobby now?",
              "How do I like to spend my free evenings?", "What craft have I been doing recently?"],
    "gym": ["Which fitness club do I go to?", "Where do I train these days?", "What gym have I joined?",
            "Which leisure centre am I a member of?", "Where do I do my workouts now?",
            "Which climbing wall or gym do I use?"],
    "bank": ["Which bank holds my current account?", "Where do I keep my savings?", "Who's my bank these days?",
             "Which building society am I with?", "What bank did I switch my account to?",
             "Which bank's card do I use?"],
    "address": ["What's the house number where I live?", "Which road is my flat on?",
                "Where should parcels for me be sent?", "What address do I give for deliveries?",
                "What is my full postal address?", "What's the postcode of my place?"],
    "health": ["What condition am I being treated for?", "Which pills do I take every day?",
               "What am I allergic to?", "What's wrong with my back these days?",
               "Which inhaler or medicine am I using now?", "What health problem do I live with?"],
    "music": ["Which instrument do I play?", "What band am I listening to on repeat?",
              "What kind of music do I like at the moment?", "Am I learning the guitar or the piano?",
              "Which singer am I obsessed with lately?", "What do I practise on my keyboard?"],
    "reading": ["What novel am I in the middle of?", "Which series am I binge-watching?",
                "What am I reading before bed these days?", "Which podcast or show am I following now?",
                "What's the book on my nightstand at the moment?", "What TV drama am I hooked on?"],
}
