"""Unit layer (cbmemory.agent; issue 24 item 2): which turns of an agent step only say again what the model was
shown (``restated``, ``linked``): a reply restating a memory and a question about it are linked to that
memory; a new fact, a commitment or a question about something else are not."""

from datetime import datetime, timezone

from cbmemory import ContextConfig, FormattedContext, Hit, MemoryRecord, Message, Recall
from cbmemory.agent import linked
from cbmemory.ingest.echoes import restated

MAY_5 = datetime(2023, 5, 5, 18, 0, tzinfo=timezone.utc)


def record(rid: str, text: str, speaker: str = "user") -> MemoryRecord:
    return MemoryRecord(rid, "alice", "s1", "turn", 0, "user", text, text, MAY_5, MAY_5, "h", turn_id=rid,
                        speaker=speaker)


PUPPY = record("r-puppy", "I adopted a puppy yesterday, her name is Biscuit.")
LYON = record("r-lyon", "I moved to Lyon last week, the flat is near the river.")
SHOWN = [PUPPY, LYON]
CONFIG = ContextConfig()


def test_a_reply_that_restates_the_memory_it_was_shown_is_linked_to_it():
    reply = ("You told me: [Friday, 5 May 2023] user: I adopted a puppy yesterday [Thursday, 4 May 2023], her name "
             "is Biscuit. So: Biscuit.")
    assert restated(reply, SHOWN, CONFIG) == ("r-puppy",)


def test_a_question_about_what_was_shown_is_linked_to_it():
    assert restated("What is my puppy's name?", SHOWN, CONFIG) == ("r-puppy",)
    assert restated("When did I adopt the puppy?", SHOWN, CONFIG) == ("r-puppy",)
    assert restated("What is my puppy called?", SHOWN, CONFIG, threshold=0.5) == ("r-puppy",)  # half its words


def test_new_facts_commitments_and_other_questions_are_not():
    assert restated("I'll remind you on Friday to call your mother about the vet.", SHOWN, CONFIG) == ()
    assert restated("My sister Emma is visiting next weekend.", SHOWN, CONFIG) == ()
    assert restated("What should I cook for dinner tonight?", SHOWN, CONFIG) == ()
    assert restated("Biscuit", [], CONFIG) == () and restated("?!", SHOWN, CONFIG) == ()


def test_a_statement_of_the_user_is_never_an_echo_but_the_agents_restatement_is():
    ctx = FormattedContext("…", 10, (Hit(PUPPY, 1.0),))
    found = Recall("…", ctx, ctx.hits, config=CONFIG)
    statement = Message("user", "My puppy Biscuit has a vet appointment.")  # names what was shown, says more
    echo = Message("assistant", "My puppy Biscuit has a vet appointment.")
    assert restated(statement.content, [PUPPY], CONFIG, threshold=0.4) == ("r-puppy",)  # the words alone would
    assert [t.restates for t in linked([statement, echo], found)] == [(), ("r-puppy",)]


def test_the_threshold_is_a_share_of_the_turns_words():
    half = "Biscuit chewed my new shoes"  # biscuit is shown; chew, new, shoe are not
    assert restated(half, SHOWN, CONFIG, threshold=0.25) == ("r-puppy",)
    assert restated(half, SHOWN, CONFIG, threshold=0.5) == ()


def test_linked_sets_restates_from_the_steps_recall_only():
    ctx = FormattedContext("…", 10, (Hit(PUPPY, 1.0), Hit(LYON, 0.5)))
    found = Recall("…", ctx, ctx.hits, config=CONFIG)
    turns = [Message("user", "What is my puppy's name?"), Message("assistant", "Her name is Biscuit, the puppy."),
             Message("assistant", "Noted.", restates=("r-given",))]
    assert [t.restates for t in linked(turns, found)] == [("r-puppy",), ("r-puppy",), ()]  # no caller marks an echo
    assert [t.restates for t in linked(turns, None)] == [(), (), ()]
