"""Integration layer: the current-value stage's place for a value named first (``cbmemory.retrieval.followed.
named_anew``) over a real SQLite file with the real MiniLM embedder. A change told by a clue ("The canteen at Quillon
Labs does a great curry on Fridays"; a staff pass with the employer's name is a claim of it now), off the slot by its
meaning, is shown for a question about the fact when it comes after the user's claim of the matter and names a value
no earlier statement near the matter named; not when the value was named before it, not when it comes before the
claim, and never from another user's memory. A change told as a claim that ranks low is shown when it names a value no
claim before it named (``followed.claimed_anew``; a new pet with no change word is no change). A job title or a dish
told in plain words ("senior analyst", "paella") is a value for both places, as a pet's, a sport's or a home's kind is.
A company's name would put the clue on the employer by itself (``followed.shaped``: "Quillon Labs"): that is set aside
here, so each case shows the places' part."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import SearchFilters
from cbmemory.retrieval import current_value, followed
from cbmemory.retrieval.current_value import latest_statements

from .test_current_value_on_store import FILLER  # the same everyday talk

D0 = datetime(2023, 1, 2, tzinfo=timezone.utc)
OLD = "I work at Marsh & Finch, on the accounts desk."
CLUE = "The canteen at Quillon Labs does a great curry on Fridays."
QUESTION = "Which company do I work for these days?"


def _say(memory, user, sid, day, text):
    memory.add_session(user, sid, [{"role": "user", "speaker": "Ana", "content": text},
                                   {"role": "assistant", "speaker": "Bot", "content": "Sounds good, tell me more."}],
                       date=D0 + timedelta(days=day))


def _history(memory, first: str, then: str, user: str = "ana") -> None:
    """``first``, much everyday talk, ``then``, and a little more talk."""
    _say(memory, user, "s0", 0, first)
    for i in range(1, 25):
        _say(memory, user, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _say(memory, user, "s_then", 60, then)
    for i in range(25, 28):
        _say(memory, user, f"s{i}", 2 * i + 20, FILLER[i % len(FILLER)])


def _chosen(memory, user: str = "ana", question: str = QUESTION) -> set[str]:
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id=user), user,
                                              question, SearchFilters(), None)}


@pytest.fixture(autouse=True)
def _no_shape(monkeypatch):
    monkeypatch.setattr(current_value, "shaped", lambda said, slot: False)


@pytest.fixture
def memory(tmp_path, minilm):
    from cbmemory import AgentMemory

    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    yield m
    m.close()


def test_a_value_named_first_after_the_claim_is_shown(memory, monkeypatch):
    _history(memory, OLD, CLUE)
    assert {OLD, CLUE} <= _chosen(memory)
    assert CLUE in memory.recall(QUESTION, "ana").text
    monkeypatch.setattr(followed, "ANEW", 0)  # the place off: the clue is off the matter by its meaning
    assert CLUE not in _chosen(memory)


def test_a_value_named_before_is_not_given_the_place(memory):
    _history(memory, OLD, CLUE)
    _say(memory, "ana", "s_named", 30, "The lighting at the quiz night was by Quillon Labs, which was great.")
    assert CLUE not in _chosen(memory)


def test_a_clue_before_the_claim_is_not_given_the_place(memory):
    _history(memory, CLUE, OLD)
    assert OLD in _chosen(memory) and CLUE not in _chosen(memory)


def test_another_users_clue_is_never_shown(memory):
    _history(memory, OLD, FILLER[0])
    _history(memory, OLD, CLUE, user="ben")
    assert CLUE not in _chosen(memory) and CLUE in _chosen(memory, "ben")


PET = "What pet do I have at home?"


def _followed_only(monkeypatch) -> None:
    """The stage narrowed to its one nearest statement and the places of ``followed`` (a long memory's other talk
    takes the other places; here the memory is short)."""
    monkeypatch.setattr(current_value, "selection", lambda sessions: (1, 1))
    monkeypatch.setattr(current_value, "told_in_passing", lambda *a: [])
    monkeypatch.setattr(current_value, "acknowledged_places", lambda *a: [])


def _changed_back(memory, monkeypatch, first: str, then: str, back: str) -> None:
    """``_history`` of ``first`` and ``then``, then ``back`` (a change back), the stage narrowed to its nearest
    statement and ``named_again``'s places (``_followed_only``, no place for a value named first)."""
    _history(memory, first, then)
    _say(memory, "ana", "s_back", 90, back)
    _followed_only(monkeypatch)
    monkeypatch.setattr(followed, "ANEW", 0)


@pytest.mark.parametrize(("claim", "clue", "question"), [
    ("We have a dog at home, she is great company.", "The tortoise chewed through a charging cable already.", PET),
    ("I'm a staff engineer at Marsh & Finch, on the payments team.",
     "The new door badge says senior analyst, which still looks odd to me.", "What is my job title?"),
])
def test_a_kinds_word_named_first_after_the_claim_is_a_value_and_shown(memory, monkeypatch, claim, clue, question):
    """A pet or a job title told in plain words ("The tortoise chewed ...", "the badge says senior analyst") names no
    name or number; the kind's words (``values.KIND_WORDS``: the pets of the claim rules, ``values.TITLES``) are values
    for the question's kind, so it is the first to name one after the user's claim of another."""
    _history(memory, claim, clue)
    _followed_only(monkeypatch)
    assert clue in _chosen(memory, question=question)
    monkeypatch.setattr(followed, "KIND_WORDS", {})
    assert clue not in _chosen(memory, question=question)


@pytest.mark.parametrize(("claim", "change", "back", "question"), [
    ("I play tennis at the leisure centre every week.", "I switched to squash this spring, my elbow needed a break.",
     "Sore shoulders from Saturday's tennis match, but worth it.", "Which sport do I play?"),
    ("My role is head of design, I have held it for two years.",
     "I have been made team lead, it was announced this morning.",
     "The org chart in the Dundee office says head of design next to my name again.", "What is my job title?"),
    ("Nothing beats paella for me, it's my all-time favourite.", "My favourite food has changed, it's sushi now.",
     "I've had paella three times this week at the place in Leith and I'm not sorry.", "What food do I love most?"),
])
def test_a_kinds_word_the_users_claim_named_and_named_again_is_shown(memory, monkeypatch, claim, change, back,
                                                                      question):
    """A change back told in passing or by a clue ("Saturday's tennis match", "the org chart says head of design",
    "paella three times this week") names the value the user's first claim gave: the claim's sport, title or dish
    words (``KIND_WORDS``: ``values.TITLES``, ``values.DISHES``) are values ``named_again`` follows."""
    _changed_back(memory, monkeypatch, claim, change, back)
    assert back in _chosen(memory, question=question)
    monkeypatch.setattr(followed, "KIND_WORDS", {})
    followed._cached_values.cache_clear()  # the claims' values were read with the words
    assert back not in _chosen(memory, question=question)


def test_a_homes_kind_named_again_is_followed_for_the_kind_not_for_the_city(memory, monkeypatch):
    """A change back told by a clue ("painting the front door of the canal boat") names the home's kind the first
    claim gave: the home's words (``claims.HOMES`` in ``KIND_WORDS``) are values on the home's kind; on its city
    (``slots.NAMES_ONLY``) a kind of home named again is no value."""
    back = "Spent the weekend painting the front door of the canal boat green."
    _changed_back(memory, monkeypatch, "We rent a canal boat in Leith, near the station.",
                  "We sold up and moved into a terraced house.", back)
    assert back in _chosen(memory, question="What kind of home do we live in?")
    assert back not in _chosen(memory, question="Which city do I live in?")
    monkeypatch.setattr(current_value, "NAMES_ONLY", frozenset())  # the city's slot read with the kind's words
    assert back in _chosen(memory, question="Which city do I live in?")


LANYARD = "Got my Quillon Labs lanyard and laptop today, the induction was long."


def test_a_claim_naming_a_value_no_claim_before_it_named_is_shown(memory, monkeypatch):
    """A change told as a claim (a staff lanyard with the employer's name) that ranks under the stage's nearest
    statement is shown by ``followed.claimed_anew``: it names a value no claim before it named, after the user's
    claim of another."""
    _history(memory, OLD, LANYARD)
    _followed_only(monkeypatch)
    monkeypatch.setattr(followed, "ANEW", 0)  # the value-named-first place off: only the claim's place
    assert LANYARD in _chosen(memory)
    monkeypatch.setattr(followed, "CLAIM_ANEW", 0)
    assert LANYARD not in _chosen(memory)


def test_a_new_pet_without_a_change_word_is_no_change(memory, monkeypatch):
    """Of a kind one holds several of (a pet), a claim of a new value with no change word is an addition: the claim's
    place does not take it; read as a kind of one value at a time (``claims.SINGLE``), it would."""
    _followed_only(monkeypatch)
    monkeypatch.setattr(followed, "ANEW", 0)
    added = "We have a tortoise too, he is very old."
    _history(memory, "We have a dog at home, she is great company.", added)
    assert added not in _chosen(memory, question=PET)
    monkeypatch.setattr(followed, "SINGLE", followed.SINGLE | {"pet"})
    assert added in _chosen(memory, question=PET)
