"""Integration layer: the read-time current-value stage (``RetrievalConfig.current_value``,
``cbmemory.retrieval.current_value``) through AgentMemory over a real SQLite file with the real MiniLM embedder.
A first-person question about a fact the user changed in words the question does not share gets the
latest statement of that fact shown in the first hit's context; someone else's similar fact is not taken for
the user's, unless the person is the matter (a relative on the household, "my boyfriend" on a partner); a
question not about the user adds nothing ("we" is the user's household, unless it asks what was said; "the user" is
the user, as an agent's tool asks, and so is the name the user's turns carry); the recipe's own hits stay as they
were; a plain claim of the kind (the write-time rules) is taken though its words are far from the matter, a wish in
the same words is not; a change told in passing (its whole sentence off the matter, a clause on it) has a place of
its own, the newest such first, and so has a later statement naming a value the user's claim of the matter gave
(a change back told in other words), not the claim itself nor someone else's; a process's first such question
through a LangChain embedder (the real MiniLM behind it, calls counted as a hosted model's round trips) embeds the
stage's descriptions in one call, not one call each; a new process reads the statements' vectors the store kept at
write time, embeds none of them, and shows what it shows without them; a memory past 50 sessions keeps more
statements of the matter, as k grows with the haystack; an email address puts a statement on the email kind however
it is told, and a school's name on the school's."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest
from langchain_core.embeddings import Embeddings

from cbmemory import AgentMemory, LangChainEmbedder, SearchFilters, get_recipe
from cbmemory.retrieval import current_value, followed, passing, slot_match
from cbmemory.retrieval.current_value import latest_statements

D0 = datetime(2023, 1, 2, tzinfo=timezone.utc)
ON = get_recipe("default")  # on in the default since issue 31
OFF = get_recipe("default").with_(name="default_no_current", current_value=False)
FILLER = ["We watched a film about whales last night.", "The weather has been lovely for walks.",
          "I baked bread with my neighbour on Sunday.", "My book club picked a mystery novel this month.",
          "The garden needs weeding again.", "I tried a new recipe for lentil soup.",
          "Work was busy with the quarterly report.", "I finally fixed the squeaky door.",
          "The concert on Friday was loud but fun.", "I have been reading about old maps."]
LEEDS = ["Leeds was grey again today, day {i} of rain.", "The city centre in Leeds was packed on day {i}.",
         "Living in Leeds means the bus is always late, {i} minutes today.",
         "Our street in Leeds had a party, {i} neighbours came.", "I walked around Leeds for {i} hours."]
OLD = "I've been living in Leeds for a few years and I really like my street there."
NEW = "Tomorrow I start my first week as a local in Porto."


def _turns(memory, sid, day, *texts):
    msgs = []
    for t in texts:
        msgs += [{"role": "user", "speaker": "Ana", "content": t},
                 {"role": "assistant", "speaker": "Bot", "content": "Sounds good, tell me more."}]
    memory.add_session("ana", sid, msgs, date=D0 + timedelta(days=day))


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    yield m
    m.close()


def _history(memory, change: str) -> None:
    """The old city, then much talk that repeats it, ``change`` last."""
    _turns(memory, "s0", 0, OLD)
    for i in range(1, 41):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)], LEEDS[i % len(LEEDS)].format(i=i))
    _turns(memory, "s_change", 90, change)


def _chosen(memory, question: str) -> set[str]:
    """The texts of the statements the stage picks for ``question`` (``latest_statements``) in Ana's memory."""
    emb = memory.embedder
    return {r.text for r in latest_statements(memory.store, lambda t: emb.embed_query(t, user_id="ana"), "ana",
                                              question, SearchFilters(), None)}


def _shown(rec) -> set[str]:
    return {r.text for h in rec.hits for r in (h.record, *h.context)}


def test_the_latest_statement_of_the_fact_asked_about_is_shown_after_the_hits(memory):
    _history(memory, NEW)
    q = "Which city do I live in these days?"
    off, on = memory.recall(q, "ana", recipe=OFF), memory.recall(q, "ana", recipe=ON)
    assert NEW not in _shown(off)  # the question shares no word with the new statement
    assert NEW in _shown(on) and "Porto" in on.context.text
    assert [h.record.record_id for h in on.hits] == [h.record.record_id for h in off.hits]  # same hits
    [with_it] = [h for h in on.hits if NEW in {r.text for r in h.context}]
    assert with_it is on.hits[0]  # in the first hit's context


def test_someone_elses_similar_fact_is_not_taken_for_the_users(memory):
    cousin = "My cousin just became a resident of Glasgow, she loves it."
    _history(memory, cousin)
    on = memory.recall("Which city do I live in these days?", "ana", recipe=ON)
    off = memory.recall("Which city do I live in these days?", "ana", recipe=OFF)
    assert cousin not in _shown(on) - _shown(off)  # the user's own later statements on the matter may be added


def test_a_question_not_about_the_user_adds_nothing(memory):
    _history(memory, NEW)
    q = "Which city does Bot live in?"
    on, off = memory.recall(q, "ana", recipe=ON), memory.recall(q, "ana", recipe=OFF)
    assert _shown(on) == _shown(off)


def test_a_question_in_the_first_person_plural_is_about_the_user_unless_it_asks_what_was_said(memory):
    """"Where do we live now?" is the user's household's fact: the stage answers it as "Where do I live?";
    "What did we say about ...?" is the conversation, not the user, and adds nothing."""
    _history(memory, NEW)
    q = "Which city are we living in these days?"
    on, off = memory.recall(q, "ana", recipe=ON), memory.recall(q, "ana", recipe=OFF)
    assert NEW not in _shown(off) and NEW in _shown(on)
    said = "What did we say about the city we live in?"
    assert _shown(memory.recall(said, "ana", recipe=ON)) == _shown(memory.recall(said, "ana", recipe=OFF))


def test_a_question_an_agents_tool_asks_about_the_user_gets_the_users_fact(memory):
    """An agent writes its memory query about "the user": the stage reads it as the user's own question."""
    _history(memory, NEW)
    q = "Which city does the user live in these days?"
    on, off = memory.recall(q, "ana", recipe=ON), memory.recall(q, "ana", recipe=OFF)
    assert NEW not in _shown(off) and NEW in _shown(on)
    mine = "Which city do I live in these days?"  # the same statements added as for the user's own question
    assert _shown(on) - _shown(off) == _shown(memory.recall(mine, "ana", recipe=ON)) - _shown(
        memory.recall(mine, "ana", recipe=OFF))


def test_a_question_that_names_the_user_gets_the_users_fact(memory):
    """The user's turns carry their name (Ana): a question by that name is about the user; by the assistant's (Bot)
    it is not (the test above)."""
    _history(memory, NEW)
    q = "Which city does Ana live in these days?"
    on, off = memory.recall(q, "ana", recipe=ON), memory.recall(q, "ana", recipe=OFF)
    assert NEW not in _shown(off) and NEW in _shown(on)
    mine = "Which city do I live in these days?"
    assert _shown(on) - _shown(off) == _shown(memory.recall(mine, "ana", recipe=ON)) - _shown(
        memory.recall(mine, "ana", recipe=OFF))


def test_on_who_lives_with_the_user_a_statement_naming_a_relative_is_the_users_own(memory):
    """``ABOUT_PEOPLE``: for the people one lives with, a relative named is the matter, not someone else's fact
    (on where one lives it is: the test above)."""
    grown = "Since my grandmother joined us, dinner is set for five every evening."
    _turns(memory, "s0", 0, "It's just the four of us at home, me, my husband and the two kids.")
    for i in range(1, 41):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)], LEEDS[i % len(LEEDS)].format(i=i))
    _turns(memory, "s_change", 90, grown)
    q = "How many people live in my household?"
    assert grown not in _shown(memory.recall(q, "ana", recipe=OFF))
    assert grown in _shown(memory.recall(q, "ana", recipe=ON))


@pytest.mark.parametrize(("said", "taken"), [
    ("My new boyfriend Sam and I had our first date night at the harbour.", True),  # the matter's own word
    ("My sister has a new boyfriend, Sam, and they had a date night at the harbour.", False),  # her partner
    ("My hubby Sam and I had our first date night at the harbour in years.", True),  # an everyday word for him
])
def test_on_a_partner_only_the_partner_is_the_matter(memory, said, taken):
    """The stage's selection itself (``latest_statements``): a partner named by the matter's own word is the
    user's; a sister's partner is not, though her statement is as near the matter."""
    _turns(memory, "s0", 0, "I have been single for a while and I like it that way.")
    for i in range(1, 41):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)], LEEDS[i % len(LEEDS)].format(i=i))
    _turns(memory, "s_change", 90, said)
    emb = memory.embedder
    chosen = latest_statements(memory.store, lambda t: emb.embed_query(t, user_id="ana"), "ana",
                               "Who am I in a relationship with?", SearchFilters(), None)
    assert chosen  # the question has a kind (partner) and the user's statements on it are found
    assert (said in {r.text for r in chosen}) is taken


@pytest.mark.parametrize(("said", "taken"), [
    ("I moved to Porto with my sister last week.", True),  # the user's move, the sister as company
    ("My sister moved to Porto last week.", False),  # hers
    ("My landlord moved to Porto last week.", False),  # someone else named in an everyday word
    ("My cousins moved to Inverness last week.", False),  # someone else in the plural
    ("My manager moved to Inverness last week.", False),  # someone named by a role
    ("My new manager moved to Inverness last week.", False),  # ... with a word that describes them between
    ("She moved to Inverness last week.", False),  # someone just named, and nothing of the user's
])
def test_someone_named_as_company_leaves_the_statement_the_users(memory, said, taken):
    """A statement naming a person is read by its clauses that name no one else; a person after "with" goes along
    with the user (``current_value.COMPANY``), so the user's own move told with company is found."""
    _history(memory, said)
    assert (said in _chosen(memory, "Which city do I live in these days?")) is taken


@pytest.mark.parametrize(("said", "taken"), [
    ("Since the move to Porto I see my parents on weekends.", True),  # the user's move; the parents its object
    ("Since the move to Porto my parents see me on weekends.", False),  # the parents' move, as it reads
])
def test_a_relative_named_as_an_object_leaves_the_statement_the_users(memory, said, taken):
    """A relative named as the object of an act (``statements._object``) does not make the statement someone
    else's: the move told with the parents seen on weekends is found; told with them as the subject it is not."""
    _history(memory, said)
    assert (said in _chosen(memory, "Which city do I live in these days?")) is taken


def test_news_told_before_a_question_back_is_the_users_statement(memory):
    """``text.stated``: a turn that tells the news and then asks back is taken for what it states (before, a
    turn ending in a question was no statement, and the stage never showed it); one that only asks is not."""
    asks_back = NEW + " How have you been lately?"
    _history(memory, asks_back)
    _turns(memory, "s_echo", 91, "So you think I should become a local in Porto too?")
    q = "Which city do I live in these days?"
    chosen = _chosen(memory, q)
    assert asks_back in chosen
    assert "So you think I should become a local in Porto too?" not in chosen


def test_news_that_ends_in_a_short_question_with_no_subject_is_the_users_statement(memory):
    """``text.stated``: "..., want to come?" asks with its subject and verb left out, as chat turns do; the news
    before it is stated (before, the whole sentence was a question, and the stage never read it)."""
    news = "Tomorrow I start my first week as a local in Porto, want to visit in May?"
    _history(memory, news)
    q = "Which city do I live in these days?"
    chosen = _chosen(memory, q)
    assert news in chosen


def test_a_statement_naming_someone_in_a_clause_of_its_own_is_the_users_by_its_other_clauses(memory):
    """A statement that names a relative is someone else's fact, unless the clauses naming no one claim the user's
    own ("I moved to Porto last month"): read as those clauses, not dropped whole for "my sister"."""
    news = "I moved to Porto last month, and my sister is coming to help me unpack."
    _history(memory, news)
    chosen = _chosen(memory, "Which city do I live in these days?")
    assert news in chosen


PASSING = ("The pottery class was messy, my vase collapsed twice and the glaze ran everywhere, but the neighbours in "
           "my new town Porto are lovely.")


def test_a_change_told_in_passing_has_a_place_of_its_own(memory, monkeypatch):
    """``told_in_passing``: the change's whole sentence is off the matter (mostly about pottery), its last clause is
    on it. It is shown besides the stage's ranked selection, which stays as it was; with no place kept for such
    statements (``RESERVED`` 0) it is not shown. (No place for a value named again either: the history names Leeds
    after the user's claim of it, and that place is another test's, as is the place for the best statement's names;
    nor for a value named first, which Porto is.)"""
    _history(memory, PASSING)
    monkeypatch.setattr(followed, "VALUED", 0)
    monkeypatch.setattr(followed, "BEST_VALUED", 0)
    monkeypatch.setattr(followed, "ANEW", 0)

    def chosen() -> set[str]:
        return _chosen(memory, "Which city do I live in these days?")

    kept, reserved = chosen(), passing.RESERVED
    monkeypatch.setattr(passing, "RESERVED", 0)
    ranked = chosen()
    assert PASSING in kept and PASSING not in ranked
    assert len(ranked) == current_value.LATEST and ranked < kept  # the ranked selection is as it was
    assert len(kept - ranked) <= reserved


def test_the_place_kept_is_for_the_newest_statements_told_in_passing(memory, monkeypatch):
    """Of several statements whose clause is on the matter and that the ranked selection leaves out, the newest
    ``RESERVED`` are kept; the older one, which a third place would keep, is not; with no place kept, none is (the
    place for a value named first, which would take the first to name Porto, set aside)."""
    monkeypatch.setattr(followed, "ANEW", 0)
    older = ("The storm kept me awake all night, the dog barked at every thunderclap and the power went out twice, "
             "but unpacking in our new neighbourhood in Porto went fine.")
    latest = PASSING.replace("pottery", "yoga").replace("vase collapsed", "mat slipped")
    _history(memory, older)
    _turns(memory, "s_later", 95, PASSING)
    _turns(memory, "s_latest", 99, latest)

    def chosen(reserved: int) -> set[str]:
        monkeypatch.setattr(passing, "RESERVED", reserved)
        return _chosen(memory, "Which city do I live in these days?")

    assert {PASSING, latest} <= chosen(2) and older not in chosen(2)
    assert {PASSING, latest, older} <= chosen(3)  # its clause is on the matter: only the number of places left it out
    assert not {PASSING, latest, older} & chosen(0)  # they come through the places kept, not the ranking


BACK = "Tomorrow is my first morning back as a Leeds local, the cat already found her sunny spot."


def test_a_change_back_told_in_other_words_is_shown_as_it_names_a_value_given_before(memory, monkeypatch):
    """``followed.named_again``: Leeds, then Porto ("I moved to Porto", a claim), then back to Leeds in words off the
    matter. The last statement names Leeds, which the user's claim of their home named before: it joins the stage's
    selection, which is otherwise as it was; with no place for such statements (``VALUED`` 0) it is not shown. (The
    best statement's names have a place of their own, which would bring it too: set aside here.)"""
    monkeypatch.setattr(followed, "BEST_VALUED", 0)
    _history(memory, "I moved to Porto last month, the flat is tiny but bright.")
    _turns(memory, "s_back", 95, BACK)
    q = "Which city do I live in these days?"
    kept, shown = _chosen(memory, q), _shown(memory.recall(q, "ana"))
    monkeypatch.setattr(followed, "VALUED", 0)
    plain = _chosen(memory, q)
    assert BACK in kept and BACK in shown
    assert BACK not in plain and BACK not in _shown(memory.recall(q, "ana"))
    assert kept - plain == {BACK}  # one place, besides what the stage shows as before


def test_each_value_named_again_has_a_place_of_its_own(memory, monkeypatch):
    """Leeds, then Porto, then back to Leeds in other words, then Porto named twice more (lines about its trams and
    its bridges): the newest naming of each value joins the selection, so the newer namings of one value do not take
    the places of the change back; with a single place (``VALUED`` 1) only the newest naming of any value is kept.
    (The best statement's names' place set aside, as the place for a value named first.)"""
    monkeypatch.setattr(followed, "ANEW", 0)
    monkeypatch.setattr(followed, "BEST_VALUED", 0)
    _history(memory, "I moved to Porto last month, the flat is tiny but bright.")
    _turns(memory, "s_back", 95, BACK)
    trams = "The Porto trams I read about were late again, said the radio."
    bridges = "A quiz question tonight was about the bridges of Porto, I got it wrong."
    _turns(memory, "s_trams", 97, trams)
    _turns(memory, "s_bridges", 98, bridges)
    q = "Which city do I live in these days?"
    kept = _chosen(memory, q)
    monkeypatch.setattr(followed, "VALUED", 1)
    one = _chosen(memory, q)
    assert {BACK, bridges} <= kept and trams not in kept  # one place a value: Porto's newest, and Leeds'
    assert bridges in one and not {BACK, trams} & one


def test_a_value_named_only_by_its_own_claim_or_by_someone_else_is_not_followed(memory, monkeypatch):
    """The claim that gave a value is its first telling, not its naming again; a statement naming the value and
    someone else ("my cousin") is not the user's own; so nothing joins the selection."""
    _turns(memory, "s0", 0, "I live in Lisbon now, near the river.")
    for i in range(1, 31):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _turns(memory, "s_cousin", 70, "My cousin Rita loves Lisbon, she visits every spring.")
    q = "Which city do I live in these days?"
    chosen = _chosen(memory, q)
    monkeypatch.setattr(followed, "VALUED", 0)
    assert chosen == _chosen(memory, q)
    assert "I live in Lisbon now, near the river." in chosen


def _claim_search_alone(monkeypatch) -> None:
    """The stage's vector searches cut to one record and its places but the nearest off: what else it shows, the claim
    search (``followed.claimed_by_words``) found."""
    for name, reach in (("DEPTH", 1), ("EMBEDDED", 1), ("HEAD_DEPTH", 0)):
        monkeypatch.setattr(current_value, name, reach)
    monkeypatch.setattr(passing, "RESERVED", 0)
    monkeypatch.setattr(followed, "ANEW", 0)
    monkeypatch.setattr(followed, "VALUED", 0)


def test_a_claim_beyond_the_vector_searches_reach_is_found_by_the_words_of_its_rule(memory, monkeypatch):
    """``followed.claimed_by_words``: in a long memory a claim of the kind may lie past the few hundred records the
    vector searches read (their vectors also hold the date and the turn answered). Here their reach is cut to one record
    (the Leeds talk nearest the matter); the user's claim of a new home is still found by a full-text search
    for its rule's phrases and shown, and not with that search's budget at 0. A wish in the same words is found by the
    search but is no claim, so it is not taken."""
    wish = "I would love to live in Dundee one day, said nobody."
    _history(memory, "I moved to Inverness in March, the boxes are still everywhere.")
    _turns(memory, "s_wish", 92, wish)
    _claim_search_alone(monkeypatch)
    q = "Which city do I live in these days?"
    found = _chosen(memory, q)
    monkeypatch.setattr(followed, "CLAIM_EMBEDDED", 0)
    reach = _chosen(memory, q)
    news = "I moved to Inverness in March, the boxes are still everywhere."
    assert news in found and news not in reach
    assert wish not in found


def test_a_claim_in_words_every_record_holds_is_found_by_the_phrases_of_its_rule(memory, monkeypatch):
    """Every record holds the weekday of its date, so the words of the schedule's rule ("tuesday", "evenings") match
    them all, and talk full of weekdays ranks first by them; the rule's phrases ("on thursdays") find the claim. With
    the vector searches cut to one record and the claim search to three, the change of day is shown when the search
    asks for the rule's phrases, and not when it asks for its words (as for a rule of more than ``CLAIM_PHRASES``)."""
    days = ["Monday was slow, Friday was worse, and the mornings are dark.",
            "Tuesday and Wednesday felt like one long evening.",
            "Saturday, Sunday, Monday: the weekend went by in a blur of afternoons."]
    _turns(memory, "s0", 0, "Pottery is on Mondays for me, at the studio by the canal.")
    for i in range(1, 31):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)], days[i % len(days)])
    news = "From the next term I'm at the wheel on Thursdays instead."
    _turns(memory, "s_change", 90, news)
    _claim_search_alone(monkeypatch)
    monkeypatch.setattr(followed, "CLAIM_DEPTH", 3)
    q = "Which weekday is pottery for me?"
    by_phrases = _chosen(memory, q)
    monkeypatch.setattr(followed, "CLAIM_PHRASES", 0)
    by_words = _chosen(memory, q)
    assert news in by_phrases and news not in by_words


@pytest.mark.parametrize(("said", "taken"), [
    ("I work for Globex these days.", True),  # the user's own claim of the kind, though its words are far from it
    ("I would love to work for Globex these days.", False),  # a wish: no claim, and as far from the matter
])
def test_a_plain_claim_of_the_kind_is_taken_though_its_words_are_far_from_the_matter(memory, monkeypatch, said,
                                                                                     taken):
    """``statement_score``: "I work for Globex these days" is below the statement floor by MiniLM alone (its words
    are near no description of an employer); the write-time rules read it as the user's claim of where they work,
    so the stage takes it. A wish in the same words is no claim and stays off the matter by the rules. The slot head
    reads both as of the kind (an employer, the wish less surely), so with it both are on the matter and the claim
    ranks nearer: the rules' part is checked with the head set aside (and the place for a value named first, which
    reads the head and would show the wish as the first to name Globex: it is shown, not claimed)."""
    _turns(memory, "s0", 0, "I work at Initech as an engineer.")
    for i in range(1, 21):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _turns(memory, "s_change", 60, said)
    q = "Which company do I work for now?"
    assert said in _chosen(memory, q)  # with the head
    emb = memory.embedder
    protos = current_value.prototypes(emb.embed_query, emb.embed_queries)
    claim, wish = "I work for Globex these days.", "I would love to work for Globex these days."
    scores = current_value.statement_scores(emb.embed([claim, wish]), [claim, wish], protos, "employer")
    assert scores[0] is not None and scores[1] is not None and scores[0] > scores[1]
    monkeypatch.setattr(current_value, "HEAD_FLOOR", 9.0)
    monkeypatch.setattr(current_value, "HEAD_WEIGHT", 0.0)
    monkeypatch.setattr(followed, "ANEW", 0)
    chosen = _chosen(memory, q)
    assert "I work at Initech as an engineer." in chosen  # the question has its kind, and the old claim is found
    assert (said in chosen) is taken


@pytest.mark.parametrize(("first", "new", "question", "slot"), [
    ("My email is callum.ross@quillon.com, use that one.",
     "Anything for me should go to old.lighthouse@inverness.org from now.",
     "Which email address should you use for me these days?", "email"),
    ("My daughter goes to Dunfermline Primary, she loves her teacher.",
     "Her first week at St Brigid's went better than we hoped, new uniform and all.",
     "Which school does my daughter go to?", "child_school"),
])
def test_a_values_shape_puts_a_statement_on_its_kind_however_it_is_told(memory, monkeypatch, first, new, question,
                                                                        slot):
    """``followed.shaped``: "Anything for me should go to old.lighthouse@inverness.org from now." is no claim ("should"
    is a hedge, no first person is its subject) and by its meaning is off the email slot (the address's words, an old
    lighthouse in Inverness, pull it away); "Her first week at St Brigid's ..." is about the daughter and off the
    school's slot (a week, a uniform). With the shape set aside each is off its slot and not shown; an address, and a
    saint's name as a school's, put them on it, so the stage shows them."""
    _turns(memory, "s0", 0, first)
    for i in range(1, 21):
        _turns(memory, f"s{i}", 2 * i, FILLER[i % len(FILLER)])
    _turns(memory, "s_change", 60, new)
    assert new in _chosen(memory, question)
    emb = memory.embedder
    protos = current_value.prototypes(emb.embed_query, emb.embed_queries)
    with monkeypatch.context() as m:
        m.setattr(current_value, "shaped", lambda said, slot: False)
        assert current_value.statement_scores(emb.embed([new]), [new], protos, slot) == [None]
        assert new not in _chosen(memory, question)


@pytest.mark.parametrize(("first", "new", "question", "slot"), [
    ("I've lived in Aberdeen for years and I love the granite.",
     "Sorry for the slow reply, the wifi at the new place in Dundee only got connected today.",
     "Which city do I live in these days?", "home_city"),
    ("I work for Fenwick Analytics, mostly on the billing side.",
     "The Quillon Labs car park was full again, so I cycled round the block twice.",
     "Who do I work for these days?", "employer"),
])
def test_a_citys_or_a_companys_name_puts_a_statement_on_its_slot(memory, monkeypatch, first, new, question, slot):
    """``followed.shaped``, ``places.is_city``: "Sorry for the slow reply, the wifi at the new place in Dundee ..." is
    about the wifi by its meaning and below the home's city's floor, "The Quillon Labs car park was full ..." about a
    car park; the city's and the company's names put them on their slots, where they are ranked (in these small
    memories the stage's other places show them too: what the shape changes is their rank)."""
    _turns(memory, "s0", 0, first)
    _turns(memory, "s_change", 60, new)
    assert new in _chosen(memory, question)
    emb = memory.embedder
    protos = current_value.prototypes(emb.embed_query, emb.embed_queries)
    scored = current_value.statement_scores(emb.embed([new]), [new], protos, slot)[0]
    assert scored is not None and scored > 0
    with monkeypatch.context() as m:
        m.setattr(current_value, "shaped", lambda said, slot: False)
        assert current_value.statement_scores(emb.embed([new]), [new], protos, slot) == [None]


class _Hosted(Embeddings):
    """The real MiniLM as a hosted model is reached through LangChain: each call would be a round trip."""

    def __init__(self, model):
        self.model, self.calls = model, 0

    def embed_documents(self, texts):
        self.calls += 1
        return self.model.embed(texts).tolist()

    def embed_query(self, text):  # as OpenAIEmbeddings: a query is a document of one text
        return self.embed_documents([text])[0]


def test_a_processs_first_question_about_the_user_embeds_the_matters_in_one_batch(tmp_path, minilm, monkeypatch):
    path, hosted = tmp_path / "hosted.db", _Hosted(minilm)
    with AgentMemory.open(path, embedder=LangChainEmbedder(hosted)) as writer:
        _history(writer, NEW)
    con = sqlite3.connect(path)  # as turns written before their statements' vectors were kept (or by another backend)
    con.execute("DELETE FROM derived")
    con.commit()
    con.close()
    monkeypatch.setattr(slot_match, "_MADE", {})  # the descriptions' vectors not made yet in this process
    with AgentMemory.open(path, embedder=LangChainEmbedder(hosted)) as memory:  # a new process's cache
        hosted.calls = 0  # not the open's (the model's dimension)
        on = memory.recall("Which city do I live in these days?", "ana", recipe=ON)
    assert NEW in _shown(on)
    # the question; the first description (which tells the model); the second as a query and as a document
    # (is a query embedded as a document?); the other 138 descriptions in one call; the statements found in
    # one call: not one call per description (141); then the clauses of the 74 statements not chosen, newest
    # first, 32 statements' in one call and the other 42's in the next (``told_in_passing``)
    assert hosted.calls == 6 + 2


class _Seen:
    """The real MiniLM under its own name, the texts it is asked to embed as documents recorded."""

    def __init__(self, model):
        self.model, self.name, self.dimension, self.texts = model, model.name, model.dimension, []

    def embed(self, texts):
        self.texts += list(texts)
        return self.model.embed(texts)

    def embed_query(self, text):
        return self.model.embed_query(text)


def test_a_new_process_reads_the_statements_vectors_kept_at_write_and_shows_the_same(tmp_path, minilm):
    """The embedded store keeps the vectors of what each user turn states from the turn's write
    (``statements.kept_texts``): a new process's first question about the user embeds none of the statements (only
    the clauses of those not chosen, ``told_in_passing``), and shows exactly what a process that has to embed them
    (the same file without them) shows."""
    path = tmp_path / "kept.db"
    with AgentMemory.open(path, embedder=minilm) as writer:
        _history(writer, NEW)
        turns = [r.text for r in writer.session_records("ana") if r.role == "user"]
    bare = tmp_path / "bare.db"
    shutil.copyfile(path, bare)
    con = sqlite3.connect(bare)
    kept = con.execute("SELECT count(*) FROM derived").fetchone()[0]
    con.execute("DELETE FROM derived")
    con.commit()
    con.close()
    assert kept == len(turns) == 82  # one per user turn: each states all it says
    said = set(turns)
    q = "Which city do I live in these days?"
    fresh, without = _Seen(minilm), _Seen(minilm)
    with AgentMemory.open(path, embedder=fresh) as a_mem, AgentMemory.open(bare, embedder=without) as b_mem:
        a, b = a_mem.recall(q, "ana", recipe=ON), b_mem.recall(q, "ana", recipe=ON)
    assert not said & set(fresh.texts)
    assert len(said & set(without.texts)) >= 40  # the statements the slot's search found, embedded there
    assert NEW in _shown(a)
    assert [(h.record.record_id, [r.record_id for r in h.context]) for h in a.hits] == \
        [(h.record.record_id, [r.record_id for r in h.context]) for h in b.hits]
    assert a.context.text == b.context.text


def test_a_memory_of_many_sessions_keeps_more_statements_of_the_matter(memory, monkeypatch):
    """150 sessions, each with a statement on where the user lives: the stage keeps the newest 17 of the 28 nearest
    (``selection``: 12 of 20 grown by scale_k's law); with the growth held at 1 the newest 12 of 20. The other places
    (told in passing, acknowledged, named again) add at most 3 in either case; the places for a value named first and
    for a claim naming a value no claim before it named are set aside (each statement names a distance of its own), and
    so is the place for the best statement's names (each names Leeds)."""
    monkeypatch.setattr(followed, "ANEW", 0)
    monkeypatch.setattr(followed, "CLAIM_ANEW", 0)
    monkeypatch.setattr(followed, "BEST_VALUED", 0)
    for i in range(150):
        _turns(memory, f"s{i}", i, f"I live in Leeds and I walked {i + 2} km around my neighbourhood today.")
    assert len(memory.store.list_sessions("ana")) == 150 and current_value.selection(150) == (28, 17)
    grown = _chosen(memory, "Which city do I live in these days?")
    monkeypatch.setattr(current_value, "GROW_MAX", 1.0)
    held = _chosen(memory, "Which city do I live in these days?")
    assert len(grown) >= 17 and len(held) <= 15
