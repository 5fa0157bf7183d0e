"""Unit layer (pure function, no store, no model): ``cbmemory.text.stated``, what a chat turn states once its
questions are left out. A turn that tells news and then asks back is a statement of the news; a turn that only
asks, or echoes the other side's words back as a question, states nothing; a turn that asks nothing is itself; a
request to the one spoken to is no question: it states what it says."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cbmemory.text import stated


@pytest.mark.parametrize(("turn", "says"), [
    ("I moved to Porto last week! How have you been?", "I moved to Porto last week!"),
    ("Really? I had no idea. I live in Oslo now.", "I had no idea. I live in Oslo now."),
    ("I moved to Porto, how about you?", "I moved to Porto"),
    ("The new flat is lovely; anyway, what did you think of the film?", "The new flat is lovely"),
    ("I'm swamped with work.\nWhat's up with you? Anything new?", "I'm swamped with work."),
    # a short question with its subject and verb left out, as chat turns end
    ("My new tutor knows a good mechanic, want the number?", "My new tutor knows a good mechanic"),
    ("There's no room for a piano in the loft, so I'm selling mine, interested?",
     "There's no room for a piano in the loft, so I'm selling mine"),
    ("I got the job - fancy a drink tonight?", "I got the job"),
    ("The new flat is great; any tips on curtains?", "The new flat is great"),
    # a relative clause set off by commas is the statement's, not the question's start
    ("I'm bringing Callum, who I'm seeing now, to the Leith gig, is that okay?",
     "I'm bringing Callum, who I'm seeing now, to the Leith gig"),
    ("We moved to Dundee, which we love, how about you?", "We moved to Dundee, which we love"),
    # ... and so is one opened by "where" or "when" (before, each was read as the question's start)
    ("The commute to Leith, where I am now, gives me time for podcasts, got any tips?",
     "The commute to Leith, where I am now, gives me time for podcasts"),
    ("I was reading about Inverness, when the power went out, what did you think of the film?",
     "I was reading about Inverness, when the power went out"),
    ("I'm in Leith now, where are you?", "I'm in Leith now"),  # no mark after it: the question
    # a question after a dash between spaces, as after a comma
    ("Typing one-handed with a flat white in the other — my new usual — what were we saying?",
     "Typing one-handed with a flat white in the other — my new usual"),
    ("Sounds like the move to Dundee went well - how is the new flat?", "Sounds like the move to Dundee went well"),
])
def test_the_news_before_a_question_is_stated(turn, says):
    assert stated(turn) == says


@pytest.mark.parametrize("turn", [
    "So you moved to Porto?",  # an echo of the other side's words
    "Wait, you moved to Porto?",  # no question opens after the comma: the whole sentence asks
    "So you moved to Porto, didn't you?",  # a tag question: it asks about them
    "Is this your own painting? Did you make it?",
    "You moved to Porto, right?",  # a one-word tag
    "I moved to Porto, so?",  # only joiners after the comma
    "Where did you go, last weekend?",  # the sentence opens as a question
    "Honestly, you think I should move?",  # the question after the comma has its subject: it is the whole question
    "Your sister said, any chance you could lend me the blue one?",  # over six words after it: not read as elliptical
])
def test_a_turn_that_only_asks_states_nothing(turn):
    assert stated(turn) == ""


@pytest.mark.parametrize(("turn", "says"), [
    ("Could you remind me to pack my chalk on Monday, since that's my climbing night now?",
     "Could you remind me to pack my chalk on Monday, since that's my climbing night now."),
    ("Can you help me draft an email to my manager at Quillon Labs, where I've been since the spring?",
     "Can you help me draft an email to my manager at Quillon Labs, where I've been since the spring."),
    ("So, can we go through my list after my swim, which is how I start the day now?",
     "So, can we go through my list after my swim, which is how I start the day now."),
    ("Please could you book a table near Leith for Callum, my new other half?",
     "Please could you book a table near Leith for Callum, my new other half."),
    # the request keeps its sentence's end: the next sentence's clauses stay apart
    ("Could you plan me a week of dinners? They need to be vegetarian, since that's how I eat now.",
     "Could you plan me a week of dinners. They need to be vegetarian, since that's how I eat now."),
])
def test_a_request_states_what_it_says(turn, says):
    assert stated(turn) == says


@pytest.mark.parametrize("turn", [
    "Can you tell me more about your trip to Dundee?",  # asks to be told: a question
    "Could you please show me a photo of the new flat?",
    "Could you remind me what time the class in Aberdeen starts?",
    "Would you like to see the pictures?",  # an offer
    "Can you believe it?",  # an exclamation
    "Will you be in Inverness on Friday?",  # a question about the one spoken to, not a request
    "Can I borrow the blue one?",  # the speaker asks: no "you" or "we" after the verb
])
def test_a_request_to_be_told_an_offer_or_a_question_states_nothing(turn):
    assert stated(turn) == ""


@given(st.text(alphabet=st.characters(blacklist_characters="?"), max_size=80))
def test_a_turn_that_asks_nothing_is_itself(turn):
    assert stated(turn) == turn


@given(st.text(max_size=120))
def test_what_is_stated_never_ends_in_a_question_and_comes_from_the_turn(turn):
    said = stated(turn)
    assert not said.endswith("?") or "?" not in turn  # a "?" is left only when the turn had none to ask
    assert set(said) <= set(turn) | {" ", "."}  # a request's question mark becomes a full stop
