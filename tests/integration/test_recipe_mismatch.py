"""Integration layer (real SQLite file, MiniLM): a search with a recipe made for records indexed otherwise than
this memory indexes them warns once (RecipeMismatchWarning), saying why and what to do; a recipe searching
derived kinds the memory never makes says it can find nothing; the memory's own recipe stays silent."""

import warnings

import pytest

from cbmemory import AgentMemory, RecipeMismatchWarning


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "m.db", embedder=minilm)  # the default recipe: turns with the turn before
    m.add_session("u", "s1", [{"role": "user", "content": "I adopted a dog called Biscuit."}], date="2023-05-07")
    yield m
    m.close()


def test_the_memorys_own_recipe_is_silent(memory):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert memory.search("dog", "u")


def test_a_recipe_made_for_other_records_warns_once(memory):
    with pytest.warns(RecipeMismatchWarning, match=r"recipe 'vector_no_dates': it was made for records indexed "
                                                  r"as 'anchor=0.*but this memory indexes them as 'anchor=1"):
        assert memory.search("dog", "u", recipe="vector_no_dates")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        memory.search("dog", "u", recipe="vector_no_dates")  # said once per recipe


def test_a_recipe_searching_kinds_this_memory_never_makes_says_it_finds_nothing(memory):
    with pytest.warns(RecipeMismatchWarning, match="it searches summary records, which this memory does not make"):
        assert memory.search("dog", "u", recipe="summary") == []
