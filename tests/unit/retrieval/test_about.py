"""Unit layer: whom a question is about (``cbmemory.retrieval.about``): a name the user's own turns carry counts as
"the user" (as an agent's tool writes), read from the hits a search found; a name of anyone else, a name in lower
case, a role word and a name that opens the question as another word ("Will ...") do not."""

from datetime import datetime, timezone

import pytest

from cbmemory.models import Hit, MemoryRecord
from cbmemory.retrieval.about import about_the_user, in_first_person, named_as_the_user, users_names

D = datetime(2026, 1, 1, tzinfo=timezone.utc)


def rec(rid: str, role: str, speaker: str | None) -> MemoryRecord:
    return MemoryRecord(rid, "u", "s", "turn", 0, role, "x", "x", D, D, "h", speaker=speaker)


@pytest.mark.parametrize(("question", "names", "asked"), [
    ("Which company does John work for now?", {"John"}, "Which company does the user work for now?"),
    ("What is John's phone number?", {"John"}, "What is the user's phone number?"),
    ("John’s employer?", {"John"}, "the user's employer?"),  # possessive: the first word too
    ("Where does Mary Ann live?", {"Mary Ann", "Mary"}, "Where does the user live?"),  # the longer name first
    ("Where does Maria live?", {"John"}, "Where does Maria live?"),  # someone else
    ("Where does Johnny live?", {"John"}, "Where does Johnny live?"),  # another name
    ("where does john live?", {"John"}, "where does john live?"),  # as written
    ("Will John move to Porto?", {"Will"}, "Will John move to Porto?"),  # the first word: a modal, not the user
    ("Where does the assistant live?", {"assistant"}, "Where does the assistant live?"),  # a role word
    ("Where does User live?", {"User"}, "Where does User live?"),
])
def test_a_name_of_the_users_is_read_as_the_user(question, names, asked):
    assert named_as_the_user(question, names) == asked


def test_a_named_question_is_then_about_the_user_in_the_first_person():
    asked = named_as_the_user("Which city does John live in these days?", {"John"})
    assert about_the_user(asked) and in_first_person(asked) == "Which city do I live in these days?"
    assert not about_the_user(named_as_the_user("Which city does John live in?", ()))  # no name known: as before


def test_the_users_names_are_the_speakers_of_their_own_turns():
    hits = [Hit(rec("a", "user", "John"), 1.0, context=(rec("b", "assistant", "Maria"), rec("c", "user", None))),
            Hit(rec("d", "assistant", "Bot"), 0.5, context=(rec("e", "user", "Johnny"),))]
    assert users_names(hits) == {"John", "Johnny"}
    assert users_names([]) == frozenset()
