"""Unit layer: the bounded LLM runner with a scripted fake chat model: JSON mode and its fallback,
retries with backoff, the per-session call budget, the concurrency limit, re-asking on unreadable
replies, and the cache keyed by (user, prompt version, input hash), in memory (the SQLite cache:
tests/integration/ingest/test_enrich_cache.py)."""


import pytest

from cbmemory.ingest.enrich.cache import MemoryCache
from cbmemory.ingest.enrich.extraction import LLMRunner
from tests.support.enrich_llm import (
    EVENTS_REPLY,
    events_spec,
    make_scripted_chat,
    quick_runner,
    rule_extractor,
)


def test_json_mode_is_asked_for_and_the_reply_validated():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    r = quick_runner(llm)
    [out] = r.run([events_spec()])
    assert out.status == "ok" and out.value[0].what == "Mel ran a 5k" and out.value[0].turns == ("T1",)
    assert llm.kwargs_seen[0]["response_format"] == {"type": "json_object"}
    assert r.stats.json_mode == "on" and (out.input_tokens, out.output_tokens) == (100, 20)


def test_a_server_refusing_json_mode_gets_plain_calls_from_then_on():
    def respond(m, kw, n):
        return RuntimeError("HTTP 500: response_format json_schema not supported") if "response_format" in kw else EVENTS_REPLY

    llm = make_scripted_chat(respond)
    r = quick_runner(llm)
    first, second = r.run([events_spec("a went"), events_spec("b went")])
    assert first.status == second.status == "ok"
    assert first.calls == 2 and second.calls == 1  # one refused call, then plain ones only
    assert "response_format" not in llm.kwargs_seen[-1]
    assert r.stats.json_mode == "off (refused)" and "refused" in r.stats.notes[0]


def test_errors_are_retried_with_exponential_backoff():
    slept = []
    llm = make_scripted_chat(lambda m, kw, n: TimeoutError("slow server") if n <= 2 else EVENTS_REPLY)
    r = quick_runner(llm, json_mode="off", max_retries=3, backoff_s=0.5, sleep=slept.append)
    [out] = r.run([events_spec()])
    assert out.status == "ok" and out.calls == 3 and slept == [0.5, 1.0] and r.stats.retries == 2


def test_retries_exhausted_is_a_recorded_failure_not_an_exception():
    llm = make_scripted_chat(lambda m, kw, n: ConnectionError("down"))
    r = quick_runner(llm, json_mode="off", max_retries=2)
    [out] = r.run([events_spec()])
    assert out.status == "failed" and out.value is None and "ConnectionError: down" in out.error
    assert out.calls == 3 and llm.calls == 3


def test_the_per_session_budget_caps_calls_including_retries():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    r = quick_runner(llm, json_mode="off", calls_per_session=2)
    outs = r.run([events_spec("one"), events_spec("two"), events_spec("three"), events_spec("four", session="s2")])
    assert [o.status for o in outs] == ["ok", "ok", "budget", "ok"]
    assert "budget of 2" in outs[2].error and outs[2].calls == 0
    assert llm.calls == 3 and r.spent("u", "s1") == 2 and r.stats.budget_skipped == 1

    failing = make_scripted_chat(lambda m, kw, n: TimeoutError("x"))
    r = quick_runner(failing, json_mode="off", calls_per_session=2, max_retries=5)
    [out] = r.run([events_spec()])
    assert out.status == "failed" and failing.calls == 2  # the budget stopped the retries


def test_cache_hits_cost_no_call_and_no_budget():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY)
    cache = MemoryCache()
    r = quick_runner(llm, cache=cache, calls_per_session=1)
    assert r.run([events_spec()])[0].status == "ok"
    again = r.run([events_spec(), events_spec()])
    assert [o.status for o in again] == ["cached", "cached"] and llm.calls == 1
    assert again[0].value == r.run([events_spec()])[0].value
    assert r.run([events_spec(version="enrich-v2")])[0].status == "budget"  # another prompt version: a miss


def test_malformed_json_is_repaired_without_another_call():
    llm = make_scripted_chat(lambda m, kw, n: "```json\n{'events': [{'who': 'Mel', 'what': 'ran', turns: ['T1'],}\n")
    [out] = quick_runner(llm).run([events_spec()])
    assert out.status == "repaired" and out.value[0].what == "ran" and llm.calls == 1


def test_an_unreadable_reply_is_asked_again_once_then_recorded():
    replies = iter(["I found one event: Mel ran.", EVENTS_REPLY])
    llm = make_scripted_chat(lambda m, kw, n: next(replies))
    [out] = quick_runner(llm).run([events_spec()])
    assert out.status == "repaired" and out.calls == 2

    bad = make_scripted_chat(lambda m, kw, n: "no idea")
    r = quick_runner(bad)
    [out] = r.run([events_spec()])
    assert out.status == "failed" and out.error.startswith("malformed reply") and out.raw == "no idea"
    assert bad.calls == 2 and r.stats.reasks == 1
    [out] = quick_runner(make_scripted_chat(lambda m, kw, n: "no idea"), reask=False).run([events_spec()])
    assert out.status == "failed" and out.calls == 1


def test_the_reask_quotes_the_error_and_the_bad_reply():
    seen = []

    def respond(m, kw, n):
        seen.append(m)
        return "nope" if n == 1 else EVENTS_REPLY

    quick_runner(make_scripted_chat(respond)).run([events_spec()])
    assert seen[1][-2] == ("ai", "nope") and "could not be read" in seen[1][-1][1]


def test_concurrency_is_limited():
    llm = make_scripted_chat(lambda m, kw, n: EVENTS_REPLY, delay=0.05)
    r = quick_runner(llm, json_mode="off", max_concurrency=3)
    outs = r.run([events_spec(f"turn {i}", session=f"s{i}") for i in range(9)])
    assert all(o.status == "ok" for o in outs) and llm.calls == 9
    assert 2 <= llm.peak <= 3 and r.stats.peak_concurrency <= 3


def test_any_object_with_invoke_works():
    class Plain:
        model = "plain-model"

        def invoke(self, messages):
            return rule_extractor([("system", messages[0][1]), ("human", messages[1][1])])

    r = quick_runner(Plain())
    [out] = r.run([events_spec("I went hiking yesterday.")])
    assert out.status == "ok" and out.value[0].when == "yesterday" and r.model == "plain-model"
    assert r.stats.json_mode == "off (refused)"  # no bind(): JSON mode could not be asked for


def test_bad_limits_are_refused():
    with pytest.raises(ValueError):
        LLMRunner(object(), max_concurrency=0)
    with pytest.raises(ValueError):
        LLMRunner(object(), json_mode="maybe")
