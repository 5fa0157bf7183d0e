"""Integration layer (offline): AgentMemory with an Enricher driven by a scripted fake chat model, the
real MiniLM embedder and a SQLite file. Raw turns are stored before any model call; summary and event
records link back to their source turns; raw+facts changes only the index key; failures are recorded
without losing a turn; the budget and the cache hold across re-ingest and appends; ``AgentMemory.enrich``
runs the modes later over what is stored; ``forget`` erases the user's cache entries and failures too."""

import asyncio
import json
import sqlite3
from datetime import timedelta

import pytest

from cbmemory import AgentMemory, IngestConfig, SearchFilters
from cbmemory.ingest import PROMPT_VERSION, EnrichConfig
from cbmemory.ingest.enrich import FACTS_MARK, Enricher, SQLiteCache, base_index_text
from tests.support.enrich_llm import file_bytes, make_scripted_chat, rule_extractor

SESSION = [
    {"role": "user", "content": "Hey Mel! I went to a LGBTQ support group yesterday.", "speaker": "Caroline",
     "turn_id": "D1:1"},
    {"role": "assistant", "content": "That's great! I painted a lake sunrise last year.", "speaker": "Melanie",
     "turn_id": "D1:2", "annotations": {"image_caption": "a painting of a sunrise over a lake"}},
    {"role": "user", "content": "Lovely. How are the kids?", "speaker": "Caroline", "turn_id": "D1:3"},
    {"role": "assistant", "content": "Good! We went camping last week.", "speaker": "Melanie", "turn_id": "D1:4"},
]
DATE = "1:56 pm on 7 May, 2023"
TURN_IDS = ["D1:1", "D1:2", "D1:3", "D1:4"]


def open_memory(tmp_path, minilm, llm, modes=("events",), *, ingest=None, name="m.db", **enricher_kw):
    enricher_kw.setdefault("sleep", lambda s: None)
    ingest = ingest or IngestConfig(enrich=EnrichConfig(modes=tuple(modes), turns_per_call=4))
    enricher = Enricher(llm, **enricher_kw)
    return AgentMemory.open(tmp_path / name, embedder=minilm, ingest=ingest, enricher=enricher), enricher


def kinds(memory, kind, user="u"):
    return memory.store.list_records(user, SearchFilters(kinds=(kind,)))


def test_events_are_stored_linked_to_their_turns_with_absolute_dates(tmp_path, minilm):
    prompts = []
    llm = make_scripted_chat(lambda m, kw, n: prompts.append(m[-1][1]) or rule_extractor(m))
    memory, enricher = open_memory(tmp_path, minilm, llm)
    result = memory.add_session("u", "s1", SESSION, DATE)
    assert result.inserted == 4  # the raw write's own result
    events = kinds(memory, "event")
    assert [e.source_ids for e in events] == [("D1:1",), ("D1:2",), ("D1:4",)]
    first = events[0]
    assert first.text == ("Caroline went to a LGBTQ support group yesterday [= 6 May 2023]. "
                          "When: yesterday [= 6 May 2023].")
    assert first.index_text.startswith("[Sunday, 7 May 2023] Event: Caroline went")
    assert first.annotations["event_date"] == "2023-05-06" and first.annotations["event_date_source"] == "rule"
    assert first.annotations["prompt_version"] == PROMPT_VERSION and first.annotations["model"] == "scripted-llm"
    assert events[2].annotations["event_date"] == "2023-04-24"  # last week -> the ISO week before
    assert all(e.session_id == "s1" and e.occurred_at == first.occurred_at for e in events)
    report = enricher.last_report
    assert (report.planned, report.calls, report.derived, report.failures) == (1, 1, 3, ())
    assert prompts == [
        "Session date: Sunday, 7 May 2023\n\nLines:\n"
        "T1 Caroline: Hey Mel! I went to a LGBTQ support group yesterday.\n"
        "T2 Melanie: That's great! I painted a lake sunrise last year. "
        "[image caption: a painting of a sunrise over a lake]\n"
        "T3 Caroline: Lovely. How are the kids?\n"
        "T4 Melanie: Good! We went camping last week."]
    # chat history (session_records) is the raw turns only
    assert [r.turn_id for r in memory.session_records("u", "s1")] == TURN_IDS
    assert len(memory.session_records("u", "s1", kinds=None)) == 7


def test_the_raw_turns_are_stored_before_the_model_is_called(tmp_path, minilm):
    seen = []
    holder = {}

    def respond(messages, kw, n):
        seen.append(holder["memory"].store.count("u"))
        return rule_extractor(messages)

    memory, _ = open_memory(tmp_path, minilm, make_scripted_chat(respond))
    holder["memory"] = memory
    memory.add_session("u", "s1", SESSION, DATE)
    assert seen == [4]


@pytest.mark.parametrize("reply", ["Sorry, I can't help with that.", RuntimeError("model crashed")])
def test_a_failed_extraction_is_recorded_and_no_turn_is_lost(tmp_path, minilm, reply):
    llm = make_scripted_chat(lambda m, kw, n: reply)
    cache = SQLiteCache(tmp_path / "cache.db")
    memory, enricher = open_memory(tmp_path, minilm, llm, cache=cache, max_retries=1)
    result = memory.add_session("u", "s1", SESSION, DATE)
    assert result.inserted == 4 and [r.turn_id for r in memory.session_records("u")] == TURN_IDS
    assert kinds(memory, "event") == []
    [failure] = enricher.last_report.failures
    assert failure.source_ids == tuple(TURN_IDS) and failure.session_id == "s1" and failure.task == "events"
    assert ("malformed reply" in failure.error) if isinstance(reply, str) else ("model crashed" in failure.error)
    assert enricher.failures() == [failure] and SQLiteCache(tmp_path / "cache.db").failures() == [failure]
    enricher.close()
    assert enricher.failures() == [failure]  # reopened on use
    assert memory.search("support group", "u")[0].record.turn_id == "D1:1"


def test_malformed_json_is_repaired_and_used(tmp_path, minilm):
    reply = "Here you go:\n```json\n{'events': [{who: 'Caroline', what: 'went to a support group', when: 'yesterday', turns: ['T1'],},"
    memory, enricher = open_memory(tmp_path, minilm, make_scripted_chat(lambda m, kw, n: reply))
    memory.add_session("u", "s1", SESSION, DATE)
    [event] = kinds(memory, "event")
    assert event.source_ids == ("D1:1",) and "6 May 2023" in event.text
    assert enricher.last_report.repaired == 1


def test_an_event_without_valid_turn_labels_links_to_the_best_matching_turn(tmp_path, minilm):
    reply = json.dumps({"events": [{"who": "Melanie", "what": "went camping with the kids", "turns": ["T42"]}]})
    memory, _ = open_memory(tmp_path, minilm, make_scripted_chat(lambda m, kw, n: reply))
    memory.add_session("u", "s1", SESSION, DATE)
    assert [e.source_ids for e in kinds(memory, "event")] == [("D1:4",)]


def test_raw_plus_facts_changes_the_index_key_only_and_reingest_is_free(tmp_path, minilm):
    llm = make_scripted_chat(rule_extractor)
    memory, enricher = open_memory(tmp_path, minilm, llm, modes=("facts",))
    memory.add_session("u", "s1", SESSION, DATE)
    turns = {r.turn_id: r for r in memory.session_records("u")}
    assert turns["D1:1"].text == SESSION[0]["content"]  # stored text stays raw
    assert FACTS_MARK + "Caroline went to a LGBTQ support group yesterday [= 6 May 2023]." in turns["D1:1"].index_text
    assert base_index_text(turns["D1:1"]) == "[Sunday, 7 May 2023] Caroline: " + SESSION[0]["content"]
    assert FACTS_MARK not in turns["D1:3"].index_text  # no fact from that turn
    assert kinds(memory, "event") == []  # facts mode stores no event records
    assert enricher.last_report.augmented == 3
    hit = memory.search("support group on 6 May 2023", "u", recipe="hybrid")[0]
    assert hit.record.turn_id == "D1:1" and hit.record.text == SESSION[0]["content"]

    again = memory.add_session("u", "s1", SESSION, DATE)  # re-ingest: cached facts applied before the write
    assert (again.inserted, again.replaced, again.unchanged) == (0, 0, 4)
    assert llm.calls == 1 and enricher.last_report.cached == 1 and enricher.last_report.augmented == 0


def test_summaries_per_session_and_per_round(tmp_path, minilm):
    memory, _ = open_memory(tmp_path, minilm, make_scripted_chat(rule_extractor), modes=("summary",))
    memory.add_session("u", "s1", SESSION, DATE)
    [summary] = kinds(memory, "summary")
    assert summary.source_ids == tuple(TURN_IDS) and summary.position == 0 and summary.role == "system"
    assert summary.text.startswith("Caroline said: Hey Mel!") and summary.index_text.startswith(
        "[Sunday, 7 May 2023] Summary: ")

    cfg = IngestConfig(enrich=EnrichConfig(modes=("summary",), summary_unit="round", rounds_per_call=8))
    llm = make_scripted_chat(rule_extractor)
    memory2, _ = open_memory(tmp_path, minilm, llm, ingest=cfg, name="r.db")
    memory2.add_session("u", "s1", SESSION, DATE)
    rounds = kinds(memory2, "summary")
    assert [r.source_ids for r in rounds] == [("D1:1", "D1:2"), ("D1:3", "D1:4")] and llm.calls == 1
    assert [r.text for r in rounds] == ["round R1 summary", "round R2 summary"]


def test_modes_combine_and_recipes_choose_the_kinds(tmp_path, minilm):
    memory, _ = open_memory(tmp_path, minilm, make_scripted_chat(rule_extractor), modes=("summary", "events"))
    memory.add_session("u", "s1", SESSION, DATE)
    assert memory.stats()["records_by_kind"] == {"turn": 4, "event": 3, "summary": 1}
    assert {h.record.kind for h in memory.search("camping", "u", recipe="summary")} == {"summary"}
    assert {h.record.kind for h in memory.search("camping", "u", recipe="events")} == {"event"}
    assert {h.record.kind for h in memory.search("camping", "u", recipe="events_raw")} == {"turn", "event"}
    top = memory.search("When did Melanie go camping?", "u", recipe="events")[0]
    assert top.record.source_ids == ("D1:4",) and "week of 24 April 2023" in top.record.text


def test_budget_per_session_bounds_calls_and_records_the_rest(tmp_path, minilm):
    llm = make_scripted_chat(rule_extractor)
    cfg = IngestConfig(enrich=EnrichConfig(modes=("events",), turns_per_call=1, context_turns=0))
    memory, enricher = open_memory(tmp_path, minilm, llm, ingest=cfg, calls_per_session=2, max_concurrency=1)
    memory.add_session("u", "s1", SESSION, DATE)
    report = enricher.last_report
    assert (report.planned, report.calls, report.budget_skipped, llm.calls) == (4, 2, 2, 2)
    assert [f.source_ids for f in report.failures] == [("D1:3",), ("D1:4",)]
    assert all("budget" in f.error for f in report.failures)
    assert len(memory.session_records("u")) == 4 and len(kinds(memory, "event")) == 2
    memory.add_session("u", "s2", SESSION[:1], "2023-06-01")  # another session has its own budget
    assert llm.calls == 3


def test_appends_extract_only_the_new_turns_with_earlier_context(tmp_path, minilm):
    prompts = []

    def respond(messages, kw, n):
        prompts.append(messages[-1][1])
        return rule_extractor(messages)

    llm = make_scripted_chat(respond)
    memory, enricher = open_memory(tmp_path, minilm, llm)
    memory.add_session("u", "s1", SESSION, DATE)
    memory.add_messages("u", "s1", [{"role": "user", "content": "I bought a new guitar yesterday!",
                                     "speaker": "Caroline"}])
    new = memory.session_records("u", "s1")[-1]
    assert new.position == 4 and new.text.startswith("I bought")  # derived records don't confuse appends
    assert "C1 Caroline: Lovely. How are the kids?" in prompts[-1] and "C2 Melanie: Good!" in prompts[-1]
    assert "T1 Caroline: I bought a new guitar yesterday!" in prompts[-1] and "D1:1" not in prompts[-1]
    events = kinds(memory, "event")
    assert events[-1].source_ids == (new.record_id,)  # no turn id: linked by record id
    memory.add_messages("u", "s1", [{"role": "user", "content": "I bought a new guitar yesterday!",
                                     "speaker": "Caroline", "turn_id": "D1:5"}])
    assert llm.calls == 3


def test_enrich_per_call_over_stored_turns(tmp_path, minilm):
    llm = make_scripted_chat(rule_extractor)
    enricher = Enricher(llm)
    memory = AgentMemory.open(tmp_path / "m.db", embedder=minilm, enricher=enricher)  # raw-only store
    memory.add_session("u", "s1", SESSION, DATE)
    memory.add_session("u", "s2", SESSION[:2], "2023-06-01")
    assert llm.calls == 0 and kinds(memory, "summary") == []
    report = memory.enrich("u", ["s2"], config=EnrichConfig(modes=("summary",)))
    assert report.derived == 1 and [s.session_id for s in kinds(memory, "summary")] == ["s2"]
    assert report.write is not None and report.write.inserted == 1  # the facade wrote what the planner derived
    report = asyncio.run(memory.aenrich("u", config=EnrichConfig(modes=("summary",))))
    assert report.cached == 1 and report.calls == 1 and len(kinds(memory, "summary")) == 2
    with pytest.raises(Exception, match="no enrichment modes"):
        memory.enrich("u")
    with pytest.raises(Exception, match="no enricher"):
        AgentMemory(memory.store, minilm).enrich("u", config=EnrichConfig(modes=("summary",)))


def test_derived_records_expire_and_are_forgotten_with_their_session(tmp_path, minilm):
    memory, _ = open_memory(tmp_path, minilm, make_scripted_chat(rule_extractor), modes=("summary", "events"))
    memory.add_session("u", "s1", SESSION, DATE, ttl=timedelta(days=30))
    expiries = {r.expires_at for r in memory.session_records("u", kinds=None)}
    assert len(expiries) == 1 and None not in expiries
    assert memory.forget("u", "s1").records == 8 and memory.store.count("u") == 0


def test_async_writes_enrich_too(tmp_path, minilm):
    memory, enricher = open_memory(tmp_path, minilm, make_scripted_chat(rule_extractor))
    asyncio.run(memory.aadd_session("u", "s1", SESSION, DATE))
    assert len(kinds(memory, "event")) == 3 and enricher.last_report.calls == 1


def test_no_enricher_means_raw_only_even_with_modes_configured(tmp_path, minilm):
    memory = AgentMemory.open(tmp_path / "m.db", embedder=minilm, recipe="events_raw")
    memory.add_session("u", "s1", SESSION, DATE)
    assert memory.stats()["records_by_kind"] == {"turn": 4}


def test_forget_erases_the_users_llm_cache_entries_and_failures_too(tmp_path, minilm):
    path = tmp_path / "cache.db"

    def respond(messages, kw, n):
        failing = any("Snorkelbramble" in text for _, text in messages)  # the re-ask too
        return "no idea about Fizzlewick" if failing else rule_extractor(messages)

    llm = make_scripted_chat(respond)
    memory, enricher = open_memory(tmp_path, minilm, llm, cache=SQLiteCache(path))
    memory.add_session("bob", "s1", SESSION, DATE)
    memory.add_session("alice", "s3", SESSION, DATE)  # bob's identical session is no hit for alice
    assert llm.calls == 2 and enricher.last_report.cached == 0
    mine = [dict(SESSION[0], content="Hey Mel! I went to the Quetzalwobble support group yesterday."), *SESSION[1:]]
    memory.add_session("alice", "s1", mine, DATE)
    memory.add_session("alice", "s2", [{"role": "user", "content": "I visited Snorkelbramble.",
                                        "speaker": "Caroline"}], DATE)
    assert [f.session_id for f in enricher.failures()] == ["s2"]
    before = file_bytes(path)
    assert b"Quetzalwobble" in before and b"Fizzlewick" in before  # the extraction and the raw reply

    assert memory.forget("alice", "s2").records == 1 and enricher.failures() == []
    assert b"Fizzlewick" not in file_bytes(path) and b"Quetzalwobble" in file_bytes(path)
    result = memory.forget("alice")
    assert result.records == 2 * 7 and result.wiped and memory.store.count("alice") == 0
    assert b"Quetzalwobble" not in file_bytes(path)
    assert sqlite3.connect(path).execute("SELECT DISTINCT user_id FROM llm_cache").fetchall() == [("bob",)]
    calls = llm.calls
    memory.add_session("bob", "s1", SESSION, DATE)  # bob's entries stay
    memory.add_session("alice", "s1", mine, DATE)  # alice's are gone: extracted again
    assert llm.calls == calls + 1 and enricher.last_report.cached == 0
