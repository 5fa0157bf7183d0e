"""Integration layer (issue 30): the default recipe's relevance floor on a real SQLite file with the real MiniLM
embedder: a question the memory knows nothing about shows no memory, a related one still finds its turn, and
``default_no_floor`` shows every hit as before."""

import pytest

from cbmemory.context import shown_records
from cbmemory.recipes import RECIPES

TURNS = [
    ("s1", "2025-03-08", ["I adopted a puppy last week, a beagle called Biscuit.",
                          "Yesterday we went to the vet for her first shots and she was very brave."]),
    ("s2", "2025-04-02", ["Last month I started a pottery class on Tuesday evenings.",
                          "Biscuit chewed my running shoes last Saturday."]),
    ("s3", "2025-05-14", ["We moved to a bigger flat two weeks ago, closer to the park.",
                          "In April I switched jobs and now work at a bakery."]),
]
UNRELATED = ["What is the capital of France?", "How do I reverse a list in Python?",
             "Who wrote Pride and Prejudice?", "How many moons does Jupiter have?"]


@pytest.fixture
def small(memory):
    for sid, date, texts in TURNS:
        memory.add_session("u", sid, [{"role": "user", "content": t} for t in texts], date=date)
    return memory


@pytest.mark.parametrize("question", UNRELATED)
def test_an_unrelated_question_shows_nothing_by_default_and_everything_without_the_floor(small, question):
    assert small.search(question, "u") == []
    assert "memories" not in small.recall(question, "u").text  # "Today is ..." alone
    bare = small.search(question, "u", recipe="default_no_floor")
    assert len(shown_records(bare)) == 6  # the whole memory, as before (hits and their windows)


@pytest.mark.parametrize(("question", "session", "position"), [
    ("When did I adopt my puppy?", "s1", 0),
    ("When did Biscuit go to the vet?", "s1", 1),
    ("When did I start the pottery class?", "s2", 0),
    ("Where do I work now?", "s3", 1),
])
def test_a_related_question_still_finds_its_memory_first(small, question, session, position):
    hits = small.search(question, "u")
    assert hits and (hits[0].record.session_id, hits[0].record.position) == (session, position)
    floor = RECIPES["default"].retrieval.filters.floor
    assert all(h.signals["vector"] >= floor for h in hits)  # every hit shown is above the floor
