"""Integration layer (a real SQLite file): the LLM runner's SQLite cache persists across runners and is
keyed by model as well as by prompt version and input."""

import json
from datetime import datetime, timezone

from cbmemory.ingest.enrich.cache import SQLiteCache
from cbmemory.ingest.enrich.extraction import CallSpec, Line, LLMRunner, events_messages
from tests.support.enrich_llm import make_scripted_chat

WHEN = datetime(2023, 5, 7, 13, 56, tzinfo=timezone.utc)
OK = json.dumps({"events": [{"who": "Mel", "what": "Mel ran a 5k", "turns": ["T1"]}]})


def spec(text="I ran a 5k yesterday.", session="s1", version="enrich-v1"):
    msgs = events_messages(WHEN, [Line("T1", "Mel", text)])
    return CallSpec("events", ("u", session), tuple(msgs), ("T1",), version)


def runner(llm, **kw):
    kw.setdefault("sleep", lambda s: None)
    return LLMRunner(llm, **kw)


def test_sqlite_cache_persists_across_runners_and_keys_by_model(tmp_path):
    path = tmp_path / "cache.db"
    llm = make_scripted_chat(lambda m, kw, n: OK)
    runner(llm, cache=SQLiteCache(path)).run([spec()])
    fresh = make_scripted_chat(lambda m, kw, n: OK)
    [out] = runner(fresh, cache=SQLiteCache(path)).run([spec()])
    assert out.status == "cached" and fresh.calls == 0 and out.value[0].what == "Mel ran a 5k"
    other = make_scripted_chat(lambda m, kw, n: OK, name="another-model")
    assert runner(other, cache=SQLiteCache(path)).run([spec()])[0].status == "ok"
    assert len(SQLiteCache(path)) == 2
