"""Integration layer: the question-date boost on a real SQLite file with the real offline embedder. A turn
dated inside the period the question names ("in May 2023", "last month") moves up; a question that names no
period gets exactly the default's hits; a relative period resolves against the reference date, else against
the memory's clock."""

from datetime import datetime, timezone

import pytest

from cbmemory import AgentMemory
from cbmemory.recipes import all_recipes

RECIPES = all_recipes()  # the core's recipes and the study's rows (cbmemory-eval)

# The May turn shares few words with the questions: by relevance alone it ranks last.
TURNS = [
    ("s1", "2023-03-04", "At pottery class I made a blue vase and a pottery bowl for my mum."),
    ("s2", "2023-04-15", "Pottery class again: I made a pottery mug, glazed it blue."),
    ("s3", "2023-05-06", "I finally finished a small teapot."),
    ("s4", "2023-06-10", "Pottery class was fun, I made a pottery plate with a blue glaze."),
    ("s5", "2023-07-08", "In pottery class I made pottery coasters for the whole family."),
]
JUNE_20 = datetime(2023, 6, 20, 9, tzinfo=timezone.utc)
STRONG = RECIPES["question_dates"].with_(name="question_dates_strong", date_weight=2.5)  # > the 2 signal weights


@pytest.fixture
def pottery(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "dates.db", embedder=minilm, recipe="question_dates", clock=lambda: JUNE_20)
    for sid, date, text in TURNS:
        m.add_session("u", sid, [{"role": "user", "content": text, "turn_id": sid}], date=date)
    yield m
    m.close()


def order(memory, query, recipe, **kw):
    return [h.record.turn_id for h in memory.search(query, "u", k=5, recipe=recipe, **kw)]


@pytest.mark.parametrize("query", ["What did I make at pottery class last month?",
                                   "What did I make at pottery class in May 2023?"])
def test_the_boost_moves_the_in_span_turn_up(pottery, query):
    plain = order(pottery, query, "default_v1", reference_date=JUNE_20)
    boosted = order(pottery, query, "question_dates", reference_date=JUNE_20)
    strong = order(pottery, query, STRONG, reference_date=JUNE_20)
    assert sorted(plain) == sorted(boosted) == sorted(strong) == ["s1", "s2", "s3", "s4", "s5"]
    assert boosted.index("s3") <= plain.index("s3")
    assert strong[0] == "s3" and strong[1:] == [t for t in plain if t != "s3"]  # the others keep their order
    hits = pottery.search(query, "u", k=5, recipe=STRONG, reference_date=JUNE_20)
    assert hits[0].ranks["date"] == 1 and all("date" not in h.ranks for h in hits[1:])


def test_the_relative_period_resolves_against_the_reference_date_else_the_clock(pottery):
    query = "What did I make at pottery class last month?"
    assert order(pottery, query, STRONG)[0] == "s3"  # the clock says 20 June: last month is May
    assert order(pottery, query, STRONG, reference_date="2023-08-02")[:2] == ["s5", "s2"]  # July: s5 first
    plain = order(pottery, query, "default_v1", reference_date="2023-08-02")
    assert plain.index("s5") > 0  # s5 was not first by relevance


@pytest.mark.parametrize("query", ["What did I make at pottery class?",
                                   "What did I make at pottery class before my birthday?"])
def test_a_question_without_a_period_gets_the_default_hits(pottery, query):
    plain = pottery.search(query, "u", k=5, recipe="default_v1", reference_date=JUNE_20)
    boosted = pottery.search(query, "u", k=5, recipe=STRONG, reference_date=JUNE_20)
    assert [(h.record.turn_id, h.score) for h in plain] == [(h.record.turn_id, h.score) for h in boosted]
