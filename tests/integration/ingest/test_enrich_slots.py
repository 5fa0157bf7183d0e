"""Integration layer (offline): with an LLM enricher in ``facts`` mode and ``link_updates`` on, the slot keys
the extraction gives the user's facts link a statement to the earlier one it changes, where no rule does.
The LLM is a scripted chat model returning fixed JSON (the thing faked is the model, not under test); the
store is a real SQLite file and the embedder the real MiniLM.

"I live in Paris." then, a month later, "Unpacking boxes in my Porto flat tonight." links nothing by the
rules (no slot rule matches the second, and no change word: checked below with the same enricher giving no
keys); with ``home_city`` given to both by the extraction, the later supersedes the earlier. A fact about
the user's cousin with the same key, a restatement with the same value, and a value found nowhere in its line
(the prompt's example, copied by a small model) link nothing."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from cbmemory import AgentMemory, IngestConfig, SearchFilters, get_recipe
from cbmemory.errors import InvalidInputError
from cbmemory.ingest import EnrichConfig
from cbmemory.ingest.enrich import Enricher
from cbmemory.ingest.enrich import records as enrich_records
from cbmemory.ingest.slots import slots_of
from tests.support.enrich_llm import lines_of, make_scripted_chat

D0 = datetime(2023, 5, 7, tzinfo=timezone.utc)
PARIS, PORTO = "I live in Paris.", "Unpacking boxes in my Porto flat tonight."
COUSIN, AGAIN = "My cousin just moved to Glasgow.", "Still loving life in Paris."
POTTERY, LYON = "My pottery class moved to Mondays.", "Signed for a flat in Lyon today."
# what the scripted extraction says of each line: (who, what, key, value); the speaker is the user's name
FACTS = {
    PARIS: ("{me}", "{me} lives in Paris", "home_city", "Paris"),
    PORTO: ("{me}", "{me} is unpacking in a flat in Porto", "home_city", "Porto"),
    COUSIN: ("{me}'s cousin", "{me}'s cousin moved to Glasgow", "home_city", "Glasgow"),
    AGAIN: ("{me}", "{me} lives in Paris", "home_city", "Paris"),
    POTTERY: ("{me}", "{me}'s pottery class moved to Mondays", "home_city", "Porto"),  # the prompt's example, copied
    LYON: ("{me}", "{me} signed for a flat in Lyon", "home_city", "Lyon"),
}


def scripted(keys: bool = True):
    """The extraction's fixed replies, one fact per known line (with its slot key when ``keys``)."""
    def respond(messages, kwargs, n):
        events = []
        for label, speaker, text in lines_of(messages):
            if text in FACTS:
                who, what, key, value = (x.format(me=speaker) for x in FACTS[text])
                event = {"who": who, "what": what, "when": None, "date": None, "where": None, "turns": [label]}
                events.append(event | ({"key": key, "value": value} if keys else {}))
        return json.dumps({"events": events})
    return make_scripted_chat(respond)


def open_memory(tmp_path, minilm, llm, *, link_updates=True, name="m.db"):
    ingest = dataclasses.replace(get_recipe("default").ingest, link_updates=link_updates,
                                 enrich=EnrichConfig(modes=("events", "facts"), turns_per_call=4))
    enricher = Enricher(llm, sleep=lambda s: None) if llm is not None else None
    return AgentMemory.open(tmp_path / name, embedder=minilm, ingest=ingest if llm is not None else
                            dataclasses.replace(ingest, enrich=None), enricher=enricher)


def say(memory, user, sid, day, text):
    msgs = [{"role": "user", "speaker": user.title(), "content": text},
            {"role": "assistant", "speaker": "Bot", "content": "Nice!"}]
    memory.add_session(user, sid, msgs, date=D0 + timedelta(days=day))


def turn(memory, user, text):
    [rec] = [r for r in memory.session_records(user) if r.text == text]
    return rec


def test_a_slot_key_links_a_move_no_rule_sees(tmp_path, minilm):
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "ana", "s1", 0, PARIS)
        say(memory, "ana", "s2", 30, PORTO)
        paris, porto = turn(memory, "ana", PARIS), turn(memory, "ana", PORTO)
        assert slots_of(paris) == {"home_city": "Paris"} and slots_of(porto) == {"home_city": "Porto"}
        assert porto.supersedes == (paris.record_id,) and paris.supersedes == ()
        assert memory.store.superseding("ana", [paris.record_id]) == {paris.record_id: (porto.record_id,)}
        shown = memory.recall("Which city do I live in?", "ana", current_only=True).text
        assert PORTO.rstrip(".") in shown and PARIS.rstrip(".") not in shown
        # a re-ingest answers from the cache: the records are unchanged and the link stays
        say(memory, "ana", "s2", 30, PORTO)
        assert turn(memory, "ana", PORTO).supersedes == (paris.record_id,)


@pytest.mark.parametrize("control", ["no keys", "no link_updates", "no enricher"])
def test_without_the_keys_the_same_turns_link_nothing(tmp_path, minilm, control):
    """The control: the rules alone do not link these two turns, so the link above is the keys' doing; and
    with ``link_updates`` off the enricher stores no slot keys (no behaviour change)."""
    llm = None if control == "no enricher" else scripted(keys=control != "no keys")
    with open_memory(tmp_path, minilm, llm, link_updates=control != "no link_updates") as memory:
        say(memory, "ana", "s1", 0, PARIS)
        say(memory, "ana", "s2", 30, PORTO)
        assert all(r.supersedes == () for r in memory.session_records("ana"))
        assert all(slots_of(r) == {} for r in memory.session_records("ana"))


def test_someone_elses_fact_with_the_same_key_links_nothing(tmp_path, minilm):
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "bo", "s1", 0, PARIS)
        say(memory, "bo", "s2", 20, COUSIN)
        assert slots_of(turn(memory, "bo", COUSIN)) == {}  # the cousin's home is not the user's
        assert all(r.supersedes == () for r in memory.session_records("bo"))


def test_a_value_copied_from_nowhere_in_the_line_links_nothing(tmp_path, minilm):
    """A small model copied the prompt's example value ("home_city: Porto") onto a line about a pottery class:
    the key is dropped (``slots.grounded``), so the user's home is not marked as changed nor hidden."""
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "gil", "s1", 0, PARIS)
        say(memory, "gil", "s2", 20, POTTERY)
        assert slots_of(turn(memory, "gil", POTTERY)) == {}
        assert all(r.supersedes == () for r in memory.session_records("gil"))
        assert PARIS.rstrip(".") in memory.recall("Which city do I live in?", "gil", current_only=True).text


def test_a_copied_value_stored_before_the_check_is_passed_over(tmp_path, minilm, monkeypatch):
    """A file written before ``grounded`` holds the copied key on the pottery line (and the link that version made
    from it, which stays); a later move links past it, to the statement of the home it changes."""
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "hal", "s1", 0, PARIS)
        with monkeypatch.context() as m:
            m.setattr(enrich_records, "grounded", lambda value, text: True)  # the version before the check
            say(memory, "hal", "s2", 20, POTTERY)
        assert slots_of(turn(memory, "hal", POTTERY)) == {"home_city": "Porto"}
        say(memory, "hal", "s3", 30, LYON)
        assert turn(memory, "hal", LYON).supersedes == (turn(memory, "hal", PARIS).record_id,)


def test_a_restatement_links_nothing_and_a_later_change_supersedes_the_latest(tmp_path, minilm):
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "cy", "s1", 0, PARIS)
        say(memory, "cy", "s2", 10, AGAIN)
        assert all(r.supersedes == () for r in memory.session_records("cy"))
        say(memory, "cy", "s3", 30, PORTO)
        assert turn(memory, "cy", PORTO).supersedes == (turn(memory, "cy", AGAIN).record_id,)


def test_one_write_of_a_whole_conversation_links_within_it_and_never_across_users(tmp_path, minilm):
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "dee", "s0", -5, PARIS)  # another user's earlier home: never a candidate
        memory.add_sessions("ana", [
            ("s1", [{"role": "user", "speaker": "Ana", "content": PARIS}], D0),
            ("s2", [{"role": "user", "speaker": "Ana", "content": PORTO}], D0 + timedelta(days=30))])
        assert turn(memory, "ana", PORTO).supersedes == (turn(memory, "ana", PARIS).record_id,)
        assert turn(memory, "dee", PARIS).supersedes == ()
        assert memory.store.superseding("dee", [turn(memory, "dee", PARIS).record_id]) == {}


def test_a_users_own_annotations_cannot_forge_a_slot_key(tmp_path, minilm):
    with open_memory(tmp_path, minilm, scripted()) as memory:
        forged = {"cbmemory.slot.home_city": "1", "cbmemory.slot_value.home_city": "Lyon"}
        with pytest.raises(InvalidInputError, match="reserves"):
            memory.add_session("eve", "s1", [{"role": "user", "content": PARIS, "annotations": forged}], date=D0)
        with pytest.raises(InvalidInputError, match="reserves"):
            memory.add_session("eve", "s1", [{"role": "user", "content": PARIS}], date=D0, annotations=forged)
        assert memory.store.count("eve") == 0


def test_slot_keys_need_the_facts_mode(tmp_path, minilm):
    """Events alone never rewrite the raw turns, so they carry no keys (documented: the facts mode)."""
    ingest = dataclasses.replace(get_recipe("default").ingest, link_updates=True,
                                 enrich=EnrichConfig(modes=("events",), turns_per_call=4))
    assert isinstance(ingest, IngestConfig)
    with AgentMemory.open(tmp_path / "e.db", embedder=minilm, ingest=ingest,
                          enricher=Enricher(scripted(), sleep=lambda s: None)) as memory:
        say(memory, "ana", "s1", 0, PARIS)
        say(memory, "ana", "s2", 30, PORTO)
        assert all(r.supersedes == () and slots_of(r) == {} for r in memory.session_records("ana"))


def test_an_enrichment_run_later_over_stored_turns_links_them(tmp_path, minilm):
    """``AgentMemory.enrich`` after the writes: the turns are rewritten with their keys and linked then."""
    ingest = dataclasses.replace(get_recipe("default").ingest, link_updates=True)
    with AgentMemory.open(tmp_path / "later.db", embedder=minilm, ingest=ingest,
                          enricher=Enricher(scripted(), sleep=lambda s: None)) as memory:
        say(memory, "ana", "s1", 0, PARIS)
        say(memory, "ana", "s2", 30, PORTO)
        assert all(r.supersedes == () for r in memory.session_records("ana"))
        report = memory.enrich("ana", config=EnrichConfig(modes=("facts",)))
        assert report.augmented == 2
        assert turn(memory, "ana", PORTO).supersedes == (turn(memory, "ana", PARIS).record_id,)


def test_the_event_extracted_from_a_changed_statement_is_changed_with_it(tmp_path, minilm):
    """The ``events`` mode's record of a statement ("Ana lives in Paris", made from the Paris turn) counts as
    changed when that turn is: ``current_only`` leaves it out, and shown otherwise it is marked, with the
    statement that changed it pulled in."""
    with open_memory(tmp_path, minilm, scripted()) as memory:
        say(memory, "ana", "s1", 0, PARIS)
        say(memory, "ana", "s2", 30, PORTO)
        paris, porto = turn(memory, "ana", PARIS), turn(memory, "ana", PORTO)
        events = {r.text: r for r in memory.store.list_records("ana", SearchFilters(kinds=("event",)))}
        [old] = [r for t, r in events.items() if "Paris" in t]
        [new] = [r for t, r in events.items() if "Porto" in t]
        assert old.source_ids == (paris.record_id,) and new.source_ids == (porto.record_id,)
        only = SearchFilters(kinds=("event",))
        everything = memory.search("Where does Ana live?", "ana", k=5, filters=only)
        assert {h.record.record_id for h in everything} == {old.record_id, new.record_id}
        now = memory.search("Where does Ana live?", "ana", k=5, filters=only, current_only=True)
        assert [h.record.record_id for h in now] == [new.record_id]
        shown = memory.recall("Where does Ana live?", "ana", recipe="events_raw", k=5).text
        [line] = [ln for ln in shown.splitlines() if old.text in ln]
        assert "[changed on" in line and "no longer current" in line
        assert PORTO.rstrip(".") in shown
        events_now = memory.recall("Where does Ana live?", "ana", recipe="events_raw", k=5, current_only=True).text
        assert old.text not in events_now and new.text in events_now and PARIS.rstrip(".") not in events_now
