"""Unit layer (retrieval.acknowledged): whether the assistant's reply acknowledges a user's statement: a short
reply that names a word of it back ("Noted, Fernhill Analytics."), not one that shares only function and chat words,
nor a long reply that talks on."""

from __future__ import annotations

import pytest

from cbmemory.retrieval.acknowledged import ACK_WORDS, acknowledges

CLUE = "Got a Fernhill Analytics hoodie in my welcome pack."


@pytest.mark.parametrize(("statement", "reply"), [
    (CLUE, "Noted, Fernhill Analytics."),
    (CLUE, "Fernhill Analytics from now on, then."),
    ("The stove in the cottage finally draws properly.", "So the cottage is home now, got it."),
    ("First thing I do is a lap of the park with the dog.", "A lap of the park first thing, noted."),
    ("Ring me on 0770 123 4567 from today.", "Saved 0770 123 4567 for you."),
    ("Mail goes to ana.reyes@example.org these days.", "I'll use ana.reyes@example.org."),
    ("I’ve started at Harbourside Bank.", "HARBOURSIDE BANK, noted!"),  # case and curly apostrophes
    ("I do yoga at six.", "Ok, at six then."),  # a word of three letters is named
])
def test_a_short_reply_naming_a_word_of_the_statement_acknowledges_it(statement, reply):
    assert acknowledges(statement, reply)


@pytest.mark.parametrize(("statement", "reply"), [
    (CLUE, "Thanks for letting me know."),  # no word of it
    (CLUE, "That's great, now I know!"),  # only chat words it shares ("great", "now")
    ("I went to a support group yesterday.", "Sounds good to me."),
    ("We are in it for the long run, me and my team.", "Me too, we are all in it."),  # function words only
    (CLUE, ""),  # no reply at all
    (CLUE, "Fernhill Analytics " + "and so much more to say about it " * 3),  # talk, not an acknowledgement
])
def test_a_reply_that_names_nothing_of_it_or_talks_on_does_not(statement, reply):
    assert not acknowledges(statement, reply)


def test_the_longest_reply_that_acknowledges_has_ack_words_words():
    """At ``ACK_WORDS`` words a reply naming the value acknowledges it; one word more and it is talk."""
    fill = ["fine"] * (ACK_WORDS - 2)
    assert acknowledges(CLUE, " ".join(["Fernhill", "Analytics", *fill]))
    assert not acknowledges(CLUE, " ".join(["Fernhill", "Analytics", *fill, "fine"]))
